#!/usr/bin/env bash
# Session 11 call 1: the consumer warpgroup index broadcast from lane 0 (hopper::warp_uniform), so
# ptxas keeps Q's wgmma descriptor in uniform registers (rung 7 d128 main loop: 16 R2UR -> 0,
# 19 IMAD -> 4, 729 -> 695 instructions; rungs 5, 6, 8, 9 alike). GPU tests; compute-sanitizer on
# rungs 7, 9 (bf16) and 8 (FP8); A/B against the session-10 binary (fa-bench-old) on rungs 6, 7, 9
# and FP8, three rounds, 5 + 30 launches.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/new
tar -xJf .deps/bin.tar.xz -C /tmp/new; N=/tmp/new/fa-bench
xz -dc .deps/fa-bench-old.xz > /tmp/new/fa-bench-old; chmod +x /tmp/new/fa-bench-old; O=/tmp/new/fa-bench-old
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 150 /tmp/new/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -2
DTYPES="BFloat16" timeout 100 scripts/sanitize.sh $N wgmma_overlap,wgmma_persistent > $L/sanitize.log 2>&1
DTYPES="Float8E4M3FN" HEAD_DIMS=128 timeout 30 scripts/sanitize.sh $N wgmma_fp8 >> $L/sanitize.log 2>&1
echo "sanitize clean=$(grep -c clean $L/sanitize.log) of $(wc -l < $L/sanitize.log)"; grep -v -E "clean|n/a" $L/sanitize.log | head -5
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1
SB="--iterations 30 --warmup_iterations 5 --warmup_time 0 --skip_ref_check"
ab() {
  $O $SB --csv $L/ab_old.csv "$@" >> $L/ab.log 2>&1
  $N $SB --csv $L/ab.csv "$@" >> $L/ab.log 2>&1
}
K="--kernel wgmma_ws,wgmma_overlap,wgmma_persistent --dtype BFloat16"
for round in 1 2 3; do
  ab $K --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --num_head 16 --head_dim 128 --causal 0,1
  ab $K --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --num_head 32 --num_head_kv 8 --head_dim 128 --causal 0,1
  ab $K --batch_size 32 --seqlen_q 512 --seqlen_k 512 --num_head 16 --head_dim 128 --causal 0,1
  ab $K --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --num_head 32 --head_dim 64 --causal 0,1
  ab $K --batch_size 32 --seqlen_q 512 --seqlen_k 512 --num_head 32 --head_dim 64 --causal 0,1
  ab $K --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --num_head 16 --head_dim 256 --causal 0,1
  ab --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --num_head 16 --head_dim 128 --causal 0,1
  ab --kernel wgmma_tma --dtype BFloat16 --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --num_head 16 --head_dim 128 --causal 0
done
echo "ab done"
timeout 30 compute-sanitizer --tool memcheck --error-exitcode 99 $N --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 \
    --head_dim 128 --batch_size 3 --num_head 16 --num_head_kv 2 --seqlen_q 5 --seqlen_k 1000 --causal 0,1 --num_splits 1,3 \
    --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > /tmp/san.log 2>&1
echo "memcheck packed GQA decode rc=$? $(grep -E 'ERROR SUMMARY' /tmp/san.log | tail -1)" | tee $L/sanitize_packed.log
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
