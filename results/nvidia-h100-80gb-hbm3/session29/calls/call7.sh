#!/usr/bin/env bash
# Session 29 call 7: lazy64 = HEAD with the lazy row max at head_dim 64 on the bf16 Hopper rungs
# (WgmmaTileD64::kLazyMax = true, EXPERIMENT: as head_dim 256's since session 22; the warp vote skips O's
# rescale). GPU tests on lazy64; base / lazy64 A/B of rungs 7 and 9 on the FA2 grid's head_dim-64 points from
# 4,096 keys (causal and not) and the short causal tile's 32x32x512 / 16x32x1024, two rounds, order alternating.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s29d.tar.xz -C /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 150 /tmp/lazy64/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests_lazy64.log 2>&1; echo "gpu tests rc=$? $(grep -E 'assertions|FAILED' $L/gpu_tests_lazy64.log | tail -2 | tr '\n' ' ') at $SECONDS s"
/tmp/base/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
ab=("--batch_size 4 --seqlen_q 4096 --seqlen_k 4096 --causal 0,1"
    "--batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --causal 0,1"
    "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --causal 0,1"
    "--batch_size 32 --seqlen_q 512 --seqlen_k 512 --causal 1"
    "--batch_size 16 --seqlen_q 1024 --seqlen_k 1024 --causal 1")
for round in 1 2; do
  order="base lazy64"; [[ $round == 2 ]] && order="lazy64 base"
  for s in "${ab[@]}"; do
    for b in $order; do
      timeout 60 /tmp/$b/fa-bench $s --num_head 32 --head_dim 64 --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --csv $L/ab_$b.csv >> $L/ab.log 2>&1
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
for k, v in sorted(runs.items()):
    print(' '.join(k), round(statistics.median(x[0] for x in v), 1), [x[0] for x in v], [x[1] for x in v], sorted({x[2] for x in v}))
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
