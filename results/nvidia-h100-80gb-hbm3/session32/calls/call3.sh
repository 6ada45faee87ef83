#!/usr/bin/env bash
# Session 32 call 3: where head_dim 64's 192 x 128 tile waits for P·V inside the softmax (WgmmaTileD64's
# kPvWaitColumn; overlap_schedule.cuh): before the exponentials (0, session 11's choice against after
# all of them, and the committed build `fin3` = d04aad1) against after 32 (`pv32`) and after 64 of the
# 128 columns (`pv64`). Rungs 7 and 9, default timing rule, the reference check in round 1, two rounds,
# order rotating.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s31c.tar.xz -C /tmp; tar -xJf .exp/s32pv.tar.xz -C /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
/tmp/fin3/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
K="--kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --head_dim 64"
ab=("--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --causal 0,1"
    "--batch_size 1 --num_head 32 --seqlen_q 16384 --seqlen_k 16384 --causal 0,1"
    "--batch_size 4 --num_head 32 --seqlen_q 4096 --seqlen_k 4096 --causal 0"
    "--batch_size 8 --num_head 32 --seqlen_q 2048 --seqlen_k 2048 --causal 0")
builds=(fin3 pv32 pv64)
for round in 1 2 3; do
  chk=""; (( round > 1 )) && chk="--skip_ref_check"
  for s in "${ab[@]}"; do
    (( SECONDS > 540 )) && { echo "time guard at $SECONDS s"; break 2; }
    for i in 0 1 2; do
      b=${builds[$(( (i + round) % 3 ))]}
      timeout 90 /tmp/$b/fa-bench $s $K $chk --csv $L/ab_$b.csv >> $L/ab.log 2>&1
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
        print(' '.join(k[:-1]), ' '.join(f"{t}/fin3 {med[k[:-1] + (t,)] / med[k]:.4f}" for t in ('pv32', 'pv64') if k[:-1] + (t,) in med))
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
