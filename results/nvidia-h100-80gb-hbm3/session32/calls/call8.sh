#!/usr/bin/env bash
# Session 32 call 8: head_dim 64's 192 x 128 tile on rungs 7 and 9 with V(t) waited before batch t+1's
# token, beside K(t+1), as FA4's sm90 loop waits for it before its P·V issue (call 7c's SASS), instead
# of inside softmax(t+1) (overlap_schedule.cuh's midpoint), where its spin-wait splits the softmax's
# basic block; the P·V wait (wait_group 0) at column 0 (`vw0`) or after all the exponentials in source
# (`vw128`; ptxas hoists it to the block's start in both). v_wait_at_issue.patch (FA_EXP_VWAIT).
# GPU tests on vw0; fin3 / vw0 / vw128, two rounds, order rotating, the reference check in round 1.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s32fin.tar.xz -C /tmp; tar -xJf .exp/s32e.tar.xz -C /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 120 /tmp/vw0/fa_gpu_tests "~[large]" ) > $L/gpu_tests_vw0.log 2>&1; echo "gpu tests vw0 rc=$? $(grep -E 'assertions|FAILED' $L/gpu_tests_vw0.log | tail -2 | tr '\n' ' ') at $SECONDS s"
/tmp/fin3/fa-bench --kernel wgmma_ws --head_dim 64 --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
K="--kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --head_dim 64"
ab=("--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --causal 0,1"
    "--batch_size 1 --num_head 32 --seqlen_q 16384 --seqlen_k 16384 --causal 0"
    "--batch_size 4 --num_head 32 --seqlen_q 4096 --seqlen_k 4096 --causal 0")
builds=(fin3 vw0 vw128)
for round in 1 2; do
  chk=""; (( round > 1 )) && chk="--skip_ref_check"
  for s in "${ab[@]}"; do
    (( SECONDS > 230 )) && { echo "time guard at $SECONDS s"; break 2; }
    for i in 0 1 2; do
      b=${builds[$(( (i + round) % 3 ))]}
      timeout 60 /tmp/$b/fa-bench $s $K $chk --csv $L/ab_$b.csv >> $L/ab.log 2>&1
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
            runs[(r['batch_size'], r['seqlen_q'], r['is_causal'], r['kernel'], tag)].append((float(r['tflops']), r['sm_clock_mean_mhz'][:4], r['check']))
med = {}
for k, v in sorted(runs.items()):
    med[k] = statistics.median(x[0] for x in v)
    print(' '.join(k), round(med[k], 1), [x[0] for x in v], [x[1] for x in v], sorted({x[2] for x in v}))
for k in sorted(med):
    if k[-1] == 'fin3':
        print(' '.join(k[:-1]), ' '.join(f"{t}/fin3 {med[k[:-1] + (t,)] / med[k]:.4f}" for t in ('vw0', 'vw128') if k[:-1] + (t,) in med))
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
