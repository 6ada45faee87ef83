#!/usr/bin/env bash
# Session 10 call 8: query positions by a shift instead of an integer division in the Hopper rungs' softmax
# (block_info.cuh position_of_row) and each ring slot's wgmma descriptor computed once per batch
# (wgmma_steps.cuh), which took ptxas's integer division out of the window between the issue
# token's bar.sync and the last wgmma of a batch. GPU tests; compute-sanitizer on rungs 7 and 9
# (and packed GQA decode); A/B against the session-9 binary (fa-bench-old) on rungs 6, 7, 9, three
# rounds, 5 + 30 launches; packed decode.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/new
tar -xJf .deps/bin.tar.xz -C /tmp/new; N=/tmp/new/fa-bench
xz -dc .deps/fa-bench-old.xz > /tmp/new/fa-bench-old; chmod +x /tmp/new/fa-bench-old; O=/tmp/new/fa-bench-old
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 150 /tmp/new/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -2
DTYPES="BFloat16" timeout 120 scripts/sanitize.sh $N wgmma_overlap,wgmma_persistent > $L/sanitize.log 2>&1
echo "sanitize rc=$? clean=$(grep -c clean $L/sanitize.log)"; grep -v -E "clean|n/a" $L/sanitize.log | head -5
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1
SB="--iterations 30 --warmup_iterations 5 --warmup_time 0 --skip_ref_check --dtype BFloat16"
ab() {
  $O --kernel wgmma_ws,wgmma_overlap,wgmma_persistent $SB --csv $L/ab_old.csv "$@" >> $L/ab.log 2>&1
  $N --kernel wgmma_ws,wgmma_overlap,wgmma_persistent $SB --csv $L/ab.csv "$@" >> $L/ab.log 2>&1
}
for round in 1 2 3; do
  ab --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --num_head 16 --head_dim 128 --causal 0,1
  ab --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --num_head 32 --num_head_kv 8 --head_dim 128 --causal 0,1
  ab --batch_size 8 --seqlen_q 2048 --seqlen_k 2048 --num_head 16 --head_dim 128 --causal 0,1
  ab --batch_size 32 --seqlen_q 512 --seqlen_k 512 --num_head 16 --head_dim 128 --causal 0,1
  ab --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --num_head 32 --head_dim 64 --causal 0,1
  ab --batch_size 32 --seqlen_q 512 --seqlen_k 512 --num_head 32 --head_dim 64 --causal 0,1
  ab --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --num_head 16 --head_dim 256 --causal 0,1
  ab --batch_size 8 --seqlen_q 2048 --seqlen_k 2048 --num_head 16 --head_dim 256 --causal 0,1
done
echo "ab rc=$?"
for tool in memcheck synccheck; do
  timeout 40 compute-sanitizer --tool $tool --error-exitcode 99 $N --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 \
    --head_dim 128 --batch_size 3 --num_head 16 --num_head_kv 2 --seqlen_q 5 --seqlen_k 1000 --causal 0,1 --num_splits 1,3 \
    --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > /tmp/san.log 2>&1
  echo "$tool packed GQA decode rc=$? $(grep -E 'ERROR SUMMARY' /tmp/san.log | tail -1)"
done | tee $L/sanitize_packed.log
for round in 1 2; do
  ab --batch_size 16 --seqlen_q 16 --seqlen_k 8192 --num_head 32 --num_head_kv 8 --head_dim 128
  ab --batch_size 64 --seqlen_q 1 --seqlen_k 8192 --num_head 32 --num_head_kv 8 --head_dim 128
done
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
