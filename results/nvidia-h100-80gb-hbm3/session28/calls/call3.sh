#!/usr/bin/env bash
# Session 28 call 3: two persistent variants with S's scale from one FwdParams field (qk_scale_log2, so
# that ptxas keeps it in a uniform register as in base's loop): p4 = tiles from the global counter
# (p2 + the field), p5 = a static snake order (session 27's p1 + the field). Timelines (tl, tlp4, tlp5:
# DIAGNOSTIC stamps) at three shapes, then base / p4 / p5 A/B, two rounds.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s28c.tar.xz -C /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
/tmp/base/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
tls=("--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --causal 0" "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --causal 1"
     "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --causal 1")
for b in tl tlp4 tlp5; do
  i=0
  for s in "${tls[@]}"; do
    FA_FP8_TIMELINE=$L/timeline_${b}_$i.bin timeout 60 /tmp/$b/fa-bench $s --num_head 16 --head_dim 128 --kernel wgmma_fp8 --dtype Float8E4M3FN \
      --warmup_iterations 3 --warmup_time 0 --iterations 5 > $L/timeline_${b}_$i.log 2>&1
    echo "timeline $b $i rc=$? $(grep -cE ' PASS ' $L/timeline_${b}_$i.log) PASS"; i=$((i+1))
  done
done
ab=("--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128 --causal 0"
    "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128 --causal 1"
    "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --causal 0"
    "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --causal 1")
for round in 1 2; do
  order="base p4 p5"; [[ $round == 2 ]] && order="p5 p4 base"
  for s in "${ab[@]}"; do
    for b in $order; do
      timeout 60 /tmp/$b/fa-bench $s --num_head 16 --kernel wgmma_fp8 --dtype Float8E4M3FN --csv $L/ab_$b.csv >> $L/ab.log 2>&1
    done
  done
  echo "ab round $round at $SECONDS s"
done
python3 - $L <<'PY'
import csv, sys, statistics, collections, glob, os
L = sys.argv[1]
runs = collections.defaultdict(list)
for f in sorted(glob.glob(f'{L}/ab_*.csv')):
    tag = os.path.basename(f)[:-4]
    for r in csv.DictReader(open(f)):
        if r['tflops']:
            runs[(r['batch_size'], r['seqlen_q'], r['is_causal'], tag)].append((float(r['tflops']), r['sm_clock_mean_mhz'], r['check']))
for k, v in sorted(runs.items()):
    print(' '.join(k), round(statistics.median(x[0] for x in v), 1), [x[0] for x in v], [x[1] for x in v], v[0][2:])
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
