#!/usr/bin/env bash
# Session 32 call 6c (after 6a / 6b stashed the build and the site on the same machine): issue #13's comparison
# as session 29's call 8c on the committed build (the finite running-max start since), three rounds, each shape's fa-bench and CuTe runs back to back, who goes first alternating by
# round: seed 001's kernel (CUTLASS main's flash_attention_v2.py, 128x64x128, peers.py --backends cute) against
# mma (128x64x128) and warp_specialized (default) at 2x32x8192x64, 4x16x8192x128, 1x16x16384x128, causal 0 and 1.
set -uo pipefail
L=$OUT/logs; mkdir -p $L
tar -xJf /tmp/stash/s32fin.tar.xz -C /tmp; N=/tmp/fin3/fa-bench
cat /tmp/stash/site29.part.aa .exp/s29w2/site29.part.ab /tmp/stash/site29.part.ac | xz -d | tar -x -C /tmp || echo "site unpack failed"
python3 -c "import google.protobuf" 2>/dev/null && rm -rf /tmp/site29/google /tmp/site29/protobuf-*.dist-info
export PYTHONPATH=/tmp/site29:/tmp/site29/nvidia_cutlass_dsl/dsl_packages
python3 -c "import cutlass, cutlass.cute; print('cutlass dsl import ok')" 2>&1 | tail -1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$N --kernel mma --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
shapes=("--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64"
        "--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
        "--batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128")
fb() { timeout 100 $N $1 --kernel mma,warp_specialized --causal 0,1 --skip_ref_check --csv $L/mma.csv >> $L/fa.log 2>&1; }
cute() { timeout 150 python3 scripts/peers.py --fa-bench $N --backends cute --cute-example /tmp/stash/flash_attention_v2.py $1 \
    --causal 0,1 --csv $L/cute.csv >> $L/cute.log 2>&1; }
for round in 1 2 3; do
  for s in "${shapes[@]}"; do
    (( SECONDS > 420 )) && { echo "time guard at $SECONDS s"; break 2; }
    if (( round % 2 )); then fb "$s"; cute "$s"; else cute "$s"; fb "$s"; fi
  done
  echo "round $round at $SECONDS s"
done
python3 - $L <<'PY'
import csv, sys, statistics, collections, glob, os
L = sys.argv[1]
runs = collections.defaultdict(list)
for f in sorted(glob.glob(f'{L}/*.csv')):
    for r in csv.DictReader(open(f)):
        if r['tflops']:
            runs[(r['head_dim'], r['batch_size'], r['seqlen_q'], r['is_causal'], r['kernel'])].append(
                (float(r['tflops']), r['sm_clock_mean_mhz'][:4]))
for k in sorted(runs):
    v = runs[k]
    print(' '.join(k), f'med {statistics.median(t for t, _ in v):.1f}', ' '.join(f'{t:.1f}@{c}' for t, c in v))
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
