#!/usr/bin/env bash
# Session 32 call 2: the bf16 Hopper rungs' wgmma descriptors kept in registers (wgmma_steps.cuh's
# OperandDescs through ptx::opaque: ptxas had rebuilt K's and V's 64-bit descriptors from the shared
# base in every key-loop trip). SASS per trip: rung 7 551 -> 533 (head_dim 64), 592 -> 571 (128),
# 534 -> 528 (256); rung 9 562 -> 555 (64), 620 -> 619 (128), 631 (256, the key loop unchanged).
# GPU tests on the new build (`s32b`); base (`fin3` = d04aad1, session 31's committed build) / s32b
# A/B, default timing rule, no reference check (the tests cover s32b), two rounds, order alternating:
# rungs 7 and 9 at issue #10's head_dim 64 / 128 / 256 points.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s31c.tar.xz -C /tmp; tar -xJf .exp/s32b.tar.xz -C /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 200 /tmp/s32b/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$? $(grep -E 'assertions|FAILED' $L/gpu_tests.log | tail -2 | tr '\n' ' ') at $SECONDS s"
/tmp/fin3/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
K="--kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --skip_ref_check"
ab=("--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64 --causal 0,1"
    "--batch_size 1 --num_head 32 --seqlen_q 16384 --seqlen_k 16384 --head_dim 64 --causal 0"
    "--batch_size 4 --num_head 32 --seqlen_q 4096 --seqlen_k 4096 --head_dim 64 --causal 0"
    "--batch_size 32 --num_head 32 --seqlen_q 512 --seqlen_k 512 --head_dim 64 --causal 1"
    "--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --causal 0,1"
    "--batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128 --causal 0"
    "--batch_size 2 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 256 --causal 0,1")
for round in 1 2; do
  order="fin3 s32b"; [[ $round == 2 ]] && order="s32b fin3"
  for s in "${ab[@]}"; do
    (( SECONDS > 540 )) && { echo "time guard at $SECONDS s"; break 2; }
    for b in $order; do
      timeout 90 /tmp/$b/fa-bench $s $K --csv $L/ab_$b.csv >> $L/ab.log 2>&1
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
            runs[(r['batch_size'], r['num_head'], r['seqlen_q'], r['head_dim'], r['is_causal'], r['kernel'], tag)].append((float(r['tflops']), r['sm_clock_mean_mhz'][:4]))
med = {}
for k, v in sorted(runs.items()):
    med[k] = statistics.median(x[0] for x in v)
    print(' '.join(k), round(med[k], 1), [x[0] for x in v], [x[1] for x in v])
for k in sorted(med):
    if k[-1] == 'fin3' and k[:-1] + ('s32b',) in med:
        print('s32b/fin3', ' '.join(k[:-1]), f"{med[k[:-1] + ('s32b',)] / med[k]:.4f}")
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
