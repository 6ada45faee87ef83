#!/usr/bin/env bash
# Session 30 call 5: the tail split also where the last wave is more than half full (choose_tail_split:
# the k whose ceil(k·tail / SMs) / k tile times are fewest; the 2,048 tiles of 128 rows of every 16-head,
# 16k-token problem are 15 waves + 68 tiles, now 3 chunks each). A/B of the plan alone (kernels identical):
# tail = calls 1-4's build (split only a last wave at most half full), tail3 = this rule; rungs 7 and 9 at the
# FA2 grid's non-causal d128 / d256 points it reaches, rung 8 FP8 at 1x16x16384x256; default timing rule, two
# rounds, order alternating.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s30b.tar.xz -C /tmp; tar -xJf .exp/s30c.tar.xz -C /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
/tmp/tail/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
ab=("--batch_size 4 --seqlen_q 4096 --seqlen_k 4096 --head_dim 128 --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16"
    "--batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16"
    "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128 --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16"
    "--batch_size 8 --seqlen_q 2048 --seqlen_k 2048 --head_dim 256 --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16"
    "--batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --head_dim 256 --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16"
    "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256 --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16"
    "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256 --kernel wgmma_fp8 --dtype Float8E4M3FN")
for round in 1 2; do
  order="tail tail3"; [[ $round == 2 ]] && order="tail3 tail"
  for s in "${ab[@]}"; do
    for b in $order; do
      timeout 60 /tmp/$b/fa-bench $s --num_head 16 --causal 0 --csv $L/ab_$b.csv >> $L/ab.log 2>&1
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
            runs[(r['batch_size'], r['seqlen_q'], r['head_dim'], r['kernel'], tag)].append((float(r['tflops']), r['sm_clock_mean_mhz'][:4], r['check'], r['note'][:50]))
for k, v in sorted(runs.items()):
    print(' '.join(k), round(statistics.median(x[0] for x in v), 1), [x[0] for x in v], [x[1] for x in v], sorted({x[2] for x in v}), v[0][3])
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
