#!/usr/bin/env bash
# Session 11 call 10: the P·V wait at a per-tile column of the softmax's exponentials
# (kPvWaitColumn: head_dim 64 before them, 128 after 64 columns, 256 after all) = binary f. GPU
# tests; compute-sanitizer bf16 on rungs 7 and 9 (all head_dims) and fp16 at head_dim 128; A/B/C
# against commit 23b4101 (base) and call 9's o1 (the wait after the whole softmax, which ptxas
# hoisted above the row max) on rungs 7 and 9, three rounds of 5 + 30 launches, the order of the
# binaries rotating; packed GQA decode.
set -uo pipefail
L=$OUT/logs; mkdir -p $L
for b in base o1 f; do mkdir -p /tmp/$b && tar -xJf .deps/$b.tar.xz -C /tmp/$b; done
N=/tmp/f/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 150 /tmp/f/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -2
DTYPES="BFloat16" timeout 110 scripts/sanitize.sh $N wgmma_overlap,wgmma_persistent > $L/sanitize.log 2>&1
DTYPES="Float16" HEAD_DIMS=128 timeout 40 scripts/sanitize.sh $N wgmma_overlap,wgmma_persistent >> $L/sanitize.log 2>&1
echo "sanitize clean=$(grep -c clean $L/sanitize.log) of $(wc -l < $L/sanitize.log)"; grep -v -E "clean|n/a" $L/sanitize.log | head -5
timeout 30 compute-sanitizer --tool memcheck --error-exitcode 99 $N --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 \
    --head_dim 128 --batch_size 3 --num_head 16 --num_head_kv 2 --seqlen_q 5 --seqlen_k 1000 --causal 0,1 --num_splits 1,3 \
    --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > /tmp/san.log 2>&1
echo "memcheck packed GQA decode rc=$? $(grep -E 'ERROR SUMMARY' /tmp/san.log | tail -1)" | tee $L/sanitize_packed.log
/tmp/base/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1
SB="--iterations 30 --warmup_iterations 5 --warmup_time 0 --skip_ref_check --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16"
abc() {
  case $round in 1) order="base o1 f";; 2) order="o1 f base";; 3) order="f base o1";; esac
  for b in $order; do /tmp/$b/fa-bench $SB --csv $L/ab_$b.csv "$@" >> $L/ab.log 2>&1; done
}
for round in 1 2 3; do
  abc --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --num_head 32 --head_dim 64 --causal 0,1
  abc --batch_size 8 --seqlen_q 2048 --seqlen_k 2048 --num_head 32 --head_dim 64 --causal 0,1
  abc --batch_size 32 --seqlen_q 512 --seqlen_k 512 --num_head 32 --head_dim 64 --causal 0,1
  abc --batch_size 16 --seqlen_q 1024 --seqlen_k 1024 --num_head 32 --head_dim 64 --causal 1
  abc --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --num_head 16 --head_dim 128 --causal 0,1
  abc --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --num_head 32 --num_head_kv 8 --head_dim 128 --causal 0,1
  abc --batch_size 32 --seqlen_q 512 --seqlen_k 512 --num_head 16 --head_dim 128 --causal 0,1
  abc --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --num_head 16 --head_dim 256 --causal 0,1
  abc --batch_size 16 --seqlen_q 16 --seqlen_k 8192 --num_head 32 --num_head_kv 8 --head_dim 128
  abc --batch_size 1 --seqlen_q 1 --seqlen_k 131072 --num_head 32 --num_head_kv 8 --head_dim 128
done
echo "abc done"
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
