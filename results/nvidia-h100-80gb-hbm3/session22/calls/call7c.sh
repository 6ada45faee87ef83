#!/usr/bin/env bash
# Session 22 call 7c (right after 7a and 7b, same machine: /tmp/stash holds the first two parts of
# the CuTe DSL site): issue #13's comparison as session 16 call 6c ran it: seed 001's CuTe DSL
# example at 128x64x128 against mma (s22g = fef0b22's kernels: the lazy max at head_dim 128) and
# warp_specialized, default timing rule on both sides, two rounds (fa-bench, the example, the
# example, fa-bench).
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/site /tmp/d
tar -xJf .exp/s22g.tar.xz -C /tmp/d; N=/tmp/d/g/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
ls /tmp/stash
cat /tmp/stash/cute_site.q.aa /tmp/stash/cute_site.q.ab .whl/cute/q3/cute_site.q.ac | xz -d | tar -x -C /tmp/site || echo "CuTe site unpack failed"
python3 -c "import google.protobuf" 2>/dev/null && rm -rf /tmp/site/google /tmp/site/protobuf-*.dist-info
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
D64="--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64"
A="--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
C="--batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
fb() { for s in "$D64" "$A" "$C"; do timeout 90 $N $s --kernel mma,warp_specialized --causal 0,1 --csv $L/mma.csv >> $L/fa.log 2>&1; done; echo "fa-bench done at $SECONDS s"; }
cute() { for s in "$D64" "$A" "$C"; do
  timeout 120 python3 scripts/peers.py --fa-bench $N --backends cute --cute-example .whl/cute/flash_attention_v2.py $s --causal 0,1 \
    --csv $L/mma.csv >> $L/cute.log 2>&1; echo "cute rc=$? at $SECONDS s"; done; }
fb; cute; cute; fb
python3 - $L <<'PY'
import csv, sys, statistics, collections
runs = collections.defaultdict(list)
for r in csv.DictReader(open(f'{sys.argv[1]}/mma.csv')):
    if r['tflops']: runs[(r['head_dim'], r['batch_size'], r['is_causal'], r['kernel'])].append((float(r['tflops']), float(r['sm_clock_mean_mhz'] or 0)))
for k, v in sorted(runs.items()):
    print(' '.join(k), f'median {statistics.median(t for t, _ in v):.1f} ({statistics.median(c for _, c in v):.0f} MHz)', [round(t, 1) for t, _ in v])
PY
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
