#!/usr/bin/env bash
# Session 12 call 1: rung 8 (FP8) templated on its tile, with a head_dim 256 instance (128x64,
# Vᵀ rows of 64 key bytes, 64-byte swizzled). GPU tests (the matrix now holds FP8 d256);
# compute-sanitizer on rung 8 at d128 and d256; then FP8 against the bf16 top rungs (7 and 9) on
# issue #11's shapes plus 2x16x8192x256, two rounds of 5 + 30 launches.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b
tar -xJf .deps/s12a.tar.xz -C /tmp/b
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 170 /tmp/b/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -2
DTYPES=Float8E4M3FN HEAD_DIMS="128 256" timeout 150 scripts/sanitize.sh /tmp/b/fa-bench wgmma_fp8 > $L/sanitize.log 2>&1; echo "sanitize rc=$?"; tail -7 $L/sanitize.log
/tmp/b/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1
SB="--iterations 30 --warmup_iterations 5 --warmup_time 0"
for round in 1 2; do
  for shape in "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128" \
               "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128" \
               "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256" \
               "--batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --head_dim 256"; do
    /tmp/b/fa-bench $SB --kernel wgmma_fp8 --dtype Float8E4M3FN --num_head 16 $shape --causal 0,1 --csv $L/fp8.csv >> $L/perf.log 2>&1
    /tmp/b/fa-bench $SB --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --num_head 16 $shape --causal 0,1 --csv $L/bf16.csv >> $L/perf.log 2>&1
  done
done
grep -E "^wgmma" $L/perf.log | cut -c1-200
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
