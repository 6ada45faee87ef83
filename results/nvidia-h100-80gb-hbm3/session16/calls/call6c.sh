#!/usr/bin/env bash
# Session 16 call 6c (right after 6b, same machine: its /tmp/site and /tmp/d): issue #13's comparison
# (session 15 call 8's): seed 001's CuTe DSL example at 128x64x128 against mma and warp_specialized,
# default timing rule on both sides, two rounds.
set -uo pipefail
L=$OUT/logs; mkdir -p $L
N=/tmp/d/fa-bench
[[ -x $N ]] || { echo "no warm machine: /tmp/d/fa-bench missing"; exit 1; }
export PATH=/usr/local/cuda/bin:$PATH PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
D64="--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64"
A="--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
C="--batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
fb() { for s in "$D64" "$A" "$C"; do timeout 90 $N $s --kernel mma,warp_specialized --causal 0,1 --csv $L/mma.csv >> $L/fa.log 2>&1; done; }
cute() { for s in "$D64" "$A" "$C"; do
  timeout 120 python3 scripts/peers.py --fa-bench $N --backends cute --cute-example .whl/cute/flash_attention_v2.py $s --causal 0,1 \
    --csv $L/mma.csv >> $L/cute.log 2>&1; echo "cute rc=$?"; done; }
fb; cute; cute; fb
python3 - $L <<'PY'
import csv, sys, statistics, collections
runs = collections.defaultdict(list)
for r in csv.DictReader(open(f'{sys.argv[1]}/mma.csv')):
    if r['tflops']: runs[(r['head_dim'], r['batch_size'], r['is_causal'], r['kernel'])].append(float(r['tflops']))
for k, v in sorted(runs.items()): print(' '.join(k), f'{statistics.mean(v):.1f}', v)
PY
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
