#!/usr/bin/env bash
# Session 34 call 4 (issue #11): what rung 8's V pre-pass (fp8_vt_prepass_kernel, one read and one write of V)
# costs against its attention kernel: ncu's gpu__time_duration of each kernel of one launch (ncu locks the
# clocks to base, so the fraction is what carries over, not the microseconds), the committed build (`fin5`,
# call 1's f8u: SASS-identical), FP8 head_dim 128 and 256 at the issue's shapes, causal and not.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s34f8u.tar.xz -C /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
for shape in "4 16 8192 128" "1 16 16384 128" "1 16 16384 256"; do
  set -- $shape
  for causal in 0 1; do
    timeout 150 ncu --nvtx --nvtx-include "regex:fa-bench@.*/" --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg,dram__bytes_read.sum,dram__bytes_write.sum \
      --csv /tmp/f8u2/fa-bench --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size $1 --num_head $2 --seqlen_q $3 --seqlen_k $3 \
      --head_dim $4 --causal $causal --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 2 --skip_ref_check \
      > $L/ncu_${1}x${2}x${3}x${4}_c${causal}.csv 2> $L/ncu_${1}x${2}x${3}x${4}_c${causal}.err
    echo "$shape causal=$causal rc=$? at $SECONDS s"
  done
done
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
