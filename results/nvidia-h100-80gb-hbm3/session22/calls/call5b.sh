#!/usr/bin/env bash
# Session 22 call 5b (right after 5a, same machine: its /tmp/stash and /tmp/b): issue #13's comparison
# (session 16 call 6c's): seed 001's CuTe DSL example at 128x64x128 against mma (s22f and s22L),
# default timing rule on both sides, two rounds (fa-bench, the example, the example, fa-bench; s22L and s22f alternating).
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/site
[[ -x /tmp/b/L/fa-bench ]] || { echo "no warm machine: /tmp/b missing"; exit 1; }
export PATH=/usr/local/cuda/bin:$PATH
cat /tmp/stash/cute_site.part.aa .whl/cute/p2/cute_site.part.ab | xz -d | tar -x -C /tmp/site || echo "CuTe site unpack failed"
python3 -c "import google.protobuf" 2>/dev/null && rm -rf /tmp/site/google /tmp/site/protobuf-*.dist-info
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
N=/tmp/b/L/fa-bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
D64="--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64"
A="--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
C="--batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
fb() { for s in "$D64" "$A" "$C"; do for t in $1; do  # $1: the binaries' order
  if [[ $t == L ]]; then csv=$L/mma.csv; else csv=$L/mma_f.csv; fi
  timeout 90 /tmp/b/$t/fa-bench $s --kernel mma --causal 0,1 --csv $csv >> $L/fa.log 2>&1; done; done; }
cute() { for s in "$D64" "$A" "$C"; do
  timeout 120 python3 scripts/peers.py --fa-bench $N --backends cute --cute-example .whl/cute/flash_attention_v2.py $s --causal 0,1 \
    --csv $L/mma.csv >> $L/cute.log 2>&1; echo "cute rc=$? at $SECONDS s"; done; }
fb "L f"; cute; cute; fb "f L"
python3 - $L <<'PY'
import csv, sys, statistics, collections
runs = collections.defaultdict(list)
for f, tag in (('mma.csv', ''), ('mma_f.csv', ' (before)')):
    for r in csv.DictReader(open(f'{sys.argv[1]}/{f}')):
        if r['tflops']: runs[(r['head_dim'], r['batch_size'], r['is_causal'], r['kernel'] + tag)].append((float(r['tflops']), float(r['sm_clock_mean_mhz'] or 0)))
for k, v in sorted(runs.items()):
    print(' '.join(k), f'median {statistics.median(t for t, _ in v):.1f} ({statistics.median(c for _, c in v):.0f} MHz)', [round(t, 1) for t, _ in v])
PY
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
