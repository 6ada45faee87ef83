#!/usr/bin/env bash
# Session 27 call 1 (exploration, the committed kernels = base): where 1x16x16384x128's FP8 time goes.
# rung 8's default (192 x 64) at 1x16x16384 (10.4 waves of row blocks), 2x16x16384 (20.8 waves, the same
# per-CTA length) and 4x16x8192 (20.8 waves, half the length), causal and not, two rounds; then ncu's
# duration of the V pre-pass and of the attention kernel at 1x16x16384 (base clock), both causal ways.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s27base.tar.xz -C /tmp; N=/tmp/base/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
for round in 1 2; do
  for s in "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384" "--batch_size 2 --seqlen_q 16384 --seqlen_k 16384" "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192"; do
    timeout 60 $N $s --head_dim 128 --num_head 16 --causal 0,1 --kernel wgmma_fp8 --dtype Float8E4M3FN --skip_ref_check --csv $L/fp8.csv >> $L/fa.log 2>&1
  done
  echo "round $round at $SECONDS s"
done
for c in 0 1; do
  timeout 120 ncu --metrics gpu__time_duration.sum,launch__grid_size -c 6 $N --batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128 \
    --num_head 16 --causal $c --kernel wgmma_fp8 --dtype Float8E4M3FN --skip_ref_check --warmup_iterations 1 --warmup_time 0 --gpu_warmup_time 0 \
    --iterations 2 > $L/ncu_c$c.log 2>&1
  echo "ncu causal $c rc=$? at $SECONDS s"
done
grep -E "prepass|fwd_kernel|gpu__time_duration|grid_size" $L/ncu_c*.log | head -40
python3 - $L <<'PY'
import csv, sys, statistics, collections
runs = collections.defaultdict(list)
for r in csv.DictReader(open(f'{sys.argv[1]}/fp8.csv')):
    if r['tflops']: runs[(r['batch_size'], r['seqlen_q'], r['is_causal'], r['m_block_size'])].append((float(r['tflops']), r['sm_clock_mean_mhz']))
for k, v in sorted(runs.items()): print(k, round(statistics.median(x[0] for x in v), 1), v)
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
