#!/usr/bin/env bash
# Session 33 call 1: session 32's lead for issue #13, the L2::128B hint on every cp.async (seed 001's example
# carries it: LDGSTS.E.BYPASS.LTC128B.128 in its SASS, call 7c). `fin3` = the committed build (SASS md5
# c65e7bcc), `l2h` = the same with next_l2_128b_hint.patch (session32/; 2,240 LDGSTS, all now LTC128B).
# mma (128x64x128, the example's tile) and warp_specialized (default) at issue #13's three shapes, causal
# and not, three rounds, order alternating, the reference check in round 1; then l2h's GPU tests.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s32fin.tar.xz -C /tmp; tar -xJf .exp/s33l2h.tar.xz -C /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
/tmp/fin3/fa-bench --kernel mma --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
shapes=("--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64"
        "--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
        "--batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128")
builds=(fin3 l2h)
for round in 1 2 3; do
  chk=""; (( round > 1 )) && chk="--skip_ref_check"
  for s in "${shapes[@]}"; do
    (( SECONDS > 470 )) && { echo "time guard at $SECONDS s"; break 2; }
    for i in 0 1; do
      b=${builds[$(( (i + round) % 2 ))]}
      timeout 90 /tmp/$b/fa-bench $s --kernel mma,warp_specialized --causal 0,1 $chk --csv $L/ab_$b.csv >> $L/ab.log 2>&1
    done
  done
  echo "ab round $round at $SECONDS s"
done
python3 - $L <<'PY'
import csv, sys, statistics, collections, glob, os
L = sys.argv[1]
runs = collections.defaultdict(list)
for f in sorted(glob.glob(f'{L}/ab_*.csv')):
    tag = os.path.basename(f)[3:-4]
    for r in csv.DictReader(open(f)):
        if r['tflops']:
            runs[(r['head_dim'], r['batch_size'], r['seqlen_q'], r['is_causal'], r['kernel'], tag)].append((float(r['tflops']), r['sm_clock_mean_mhz'][:4], r['check']))
med = {}
for k, v in sorted(runs.items()):
    med[k] = statistics.median(x[0] for x in v)
    print(' '.join(k), round(med[k], 1), [x[0] for x in v], [x[1] for x in v], sorted({x[2] for x in v}))
for k in sorted(med):
    if k[-1] == 'fin3' and k[:-1] + ('l2h',) in med:
        print(' '.join(k[:-1]), f"l2h/fin3 {med[k[:-1] + ('l2h',)] / med[k]:.4f}")
PY
if (( SECONDS < 520 )); then
  ( time timeout 75 /tmp/l2h/fa_gpu_tests "~[large]" ) > $L/gpu_tests_l2h.log 2>&1; echo "gpu tests l2h rc=$? $(grep -E 'assertions|FAILED' $L/gpu_tests_l2h.log | tail -2 | tr '\n' ' ') at $SECONDS s"
fi
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
