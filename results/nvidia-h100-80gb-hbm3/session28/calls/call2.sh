#!/usr/bin/env bash
# Session 28 call 2: the clock64 timeline (DIAGNOSTIC) on base (tl: per CTA) and on p2 (tlp: per tile of
# the persistent kernel), three shapes without a tail split, after a warm-up.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s28b.tar.xz -C /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
/tmp/tl/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
tls=("--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --causal 0" "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --causal 1"
     "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --causal 1")
for b in tl tlp; do
  i=0
  for s in "${tls[@]}"; do
    FA_FP8_TIMELINE=$L/timeline_${b}_$i.bin timeout 60 /tmp/$b/fa-bench $s --num_head 16 --head_dim 128 --kernel wgmma_fp8 --dtype Float8E4M3FN \
      --warmup_iterations 3 --warmup_time 0 --iterations 5 > $L/timeline_${b}_$i.log 2>&1
    echo "timeline $b $i [$s] rc=$? $(ls -la $L/timeline_${b}_$i.bin 2>&1 | awk '{print $5}') bytes $(grep -cE ' PASS ' $L/timeline_${b}_$i.log) PASS"; i=$((i+1))
  done
done
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
