#!/usr/bin/env bash
# Session 18 call 6: where rung 9's time goes at 512 (issue #10's short points): s18t = 14645a0
# built with FA_RUNG9_TRACE=1 (call6/trace.patch): clock64 stamps per CTA, tile and phase, one
# launch's (the last of 10) written to a file after it; trace_report.py summarizes. Shapes: 32x16x512
# d128 non-causal / causal, d256 non-causal, d64 non-causal, and 4x16x8192x128 for contrast.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/t
tar -xJf .exp/s18t.tar.xz -C /tmp/t
T=/tmp/t/fa-bench; P=results/nvidia-h100-80gb-hbm3/session18/call6/trace_report.py
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$T --kernel wgmma_persistent --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up (traced launches, no file)
run() {  # name, fa-bench shape flags
  local name=$1; shift
  FA_RUNG9_TRACE_FILE=$L/$name.bin timeout 60 $T --kernel wgmma_persistent "$@" --iterations 10 --warmup_iterations 3 \
    --warmup_time 0 --gpu_warmup_time 0 --skip_ref_check >> $L/fa.log 2>&1
  echo "== $name"; python3 $P $L/$name.bin | tee $L/$name.txt
}
run d128_512_nc --batch_size 32 --num_head 16 --seqlen_q 512 --seqlen_k 512 --head_dim 128 --causal 0
run d128_512_c --batch_size 32 --num_head 16 --seqlen_q 512 --seqlen_k 512 --head_dim 128 --causal 1
run d256_512_nc --batch_size 32 --num_head 16 --seqlen_q 512 --seqlen_k 512 --head_dim 256 --causal 0
run d64_512_nc --batch_size 32 --num_head 32 --seqlen_q 512 --seqlen_k 512 --head_dim 64 --causal 0
run d128_8192_nc --batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --causal 0
grep -E "^wgmma" $L/fa.log | cut -c1-140
cd $OUT && xz -T4 logs/*.bin && tar -cf logs.tar logs && rm -rf logs
