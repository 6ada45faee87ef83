#!/usr/bin/env bash
# Session 30 call 1: the tail split on rungs 7 and 9 (bf16 / fp16; rung 8's merge moved to
# device/tail_merge.cuh, SASS identical). GPU tests on the new build; compute-sanitizer on tail-split
# launches (1x2x300x2100: 6 tiles, 2 key chunks each); base (d4ecfce) / tail A/B of rungs 7 and 9 at
# the FA2-grid points the split reaches (4x16x8192x128, 4x32x4096x64, 8x32x2048x64, non-causal) and a
# control without a split (2x16x8192x128), default timing rule, two rounds, order alternating.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s30a.tar.xz -C /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 200 /tmp/tail/fa_gpu_tests "~[large]" ) > $L/gpu_tests_tail.log 2>&1; echo "gpu tests rc=$? $(grep -E 'assertions|FAILED' $L/gpu_tests_tail.log | tail -2 | tr '\n' ' ') at $SECONDS s"
for tool in memcheck racecheck synccheck; do
  for kd in "wgmma_overlap 64" "wgmma_overlap 128" "wgmma_persistent 64" "wgmma_persistent 128" "wgmma_persistent 256"; do
    set -- $kd
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 99 /tmp/tail/fa-bench --kernel $1 --dtype BFloat16 \
      --batch_size 1 --num_head 2 --seqlen_q 300 --seqlen_k 2100 --head_dim $2 --causal 0 \
      --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $L/san_${tool}_$1_$2.log 2>&1
    echo "$tool $1 d$2 rc=$? $(grep -c 'tail split' $L/san_${tool}_$1_$2.log) tail rows, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/san_${tool}_$1_$2.log | head -1)"
  done
done
echo "sanitizer done at $SECONDS s"
/tmp/base/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
ab=("--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
    "--batch_size 4 --num_head 32 --seqlen_q 4096 --seqlen_k 4096 --head_dim 64"
    "--batch_size 8 --num_head 32 --seqlen_q 2048 --seqlen_k 2048 --head_dim 64"
    "--batch_size 2 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128")
for round in 1 2; do
  order="base tail"; [[ $round == 2 ]] && order="tail base"
  for s in "${ab[@]}"; do
    for b in $order; do
      timeout 60 /tmp/$b/fa-bench $s --causal 0 --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --csv $L/ab_$b.csv >> $L/ab.log 2>&1
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
            runs[(r['batch_size'], r['num_head'], r['seqlen_q'], r['head_dim'], r['kernel'], tag)].append((float(r['tflops']), r['sm_clock_mean_mhz'][:4], r['check'], r['note'][:50]))
for k, v in sorted(runs.items()):
    print(' '.join(k), round(statistics.median(x[0] for x in v), 1), [x[0] for x in v], [x[1] for x in v], sorted({x[2] for x in v}), v[0][3])
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
