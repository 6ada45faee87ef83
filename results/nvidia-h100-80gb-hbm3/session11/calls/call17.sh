#!/usr/bin/env bash
# Session 11 call 17 (the final binary, commit f0556c8): compute-sanitizer on the decode paths the
# P·V-wait change touched: the 64-row decode tile of rungs 6 and 7 forced on sanitize.sh's odd
# shape (bf16, head_dim 128, memcheck / racecheck / synccheck), and packed GQA decode with splits
# on rungs 7 and 9 under all three tools.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/new
tar -xJf .deps/final.tar.xz -C /tmp/new; N=/tmp/new/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
HEAD_DIMS=128 DTYPES=BFloat16 FA_ARGS="--m_block_size 64 --n_block_size 128 --num_threads 128" timeout 120 \
    scripts/sanitize.sh $N wgmma_ws,wgmma_overlap > $L/sanitize_decode_tile.log 2>&1
echo "decode tile: clean=$(grep -c clean $L/sanitize_decode_tile.log) of $(wc -l < $L/sanitize_decode_tile.log)"
for tool in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 99 $N --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 \
    --head_dim 128 --batch_size 3 --num_head 16 --num_head_kv 2 --seqlen_q 5 --seqlen_k 1000 --causal 0,1 --num_splits 1,3 \
    --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > /tmp/san.log 2>&1
  echo "$tool packed GQA decode rc=$? $(grep -E 'ERROR SUMMARY' /tmp/san.log | tail -1)"
done | tee $L/sanitize_packed.log
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
