#!/usr/bin/env bash
# Session 41 call C: the split-KV combine with several warps a row (build s41i = main 4837347 +
# combine_groups.patch's two commits, 16 loads in flight, and the multi-warp combine: each output row read by
# 1-8 warps, fa/splitkv.h combine_warps_per_row). Call B's ncu put fa-bench's combine at 3.2-6.1 us
# against cuDNN's reduction at 2.6-3.9 us. GPU tests (the decode matrix now also 13 splits),
# compute-sanitizer on the combine's layouts, ncu durations of both kernels, ab.py against main (s40e)
# along B = 1 and at B = 64, a split scan at 8 K/V heads, cuDNN once.
set -uo pipefail
for b in s40e s41i; do tar -xJf .exp/$b.tar.xz -C /; done
N=/tmp/s41i/fa-bench
mkdir -p $OUT/c
( time timeout 200 /tmp/s41i/fa_gpu_tests "~[large]" ) > $OUT/c/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(grep -E 'assertions|FAILED' $OUT/c/gpu_tests.log | tail -2 | tr '\n' ' ') at $SECONDS s"
SAN="--kernel mma_decode --batch_size 1 --seqlen_q 1 --seqlen_k 5000 --num_head 8 --num_head_kv 2 --causal 0 --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1"
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 99 $N $SAN --num_splits 2,7,13,37,70 --head_dim 64,128,256 > $OUT/c/memcheck.log 2>&1
echo "memcheck rc=$? $(grep -c PASS $OUT/c/memcheck.log) PASS at $SECONDS s"
timeout 90 compute-sanitizer --tool racecheck --error-exitcode 99 $N $SAN --num_splits 13,70 --head_dim 64,128,256 > $OUT/c/racecheck.log 2>&1
echo "racecheck rc=$? $(grep -c PASS $OUT/c/racecheck.log) PASS at $SECONDS s"
timeout 60 compute-sanitizer --tool synccheck --error-exitcode 99 $N $SAN --num_splits 13,70 --head_dim 64,128 > $OUT/c/synccheck.log 2>&1
echo "synccheck rc=$? $(grep -c PASS $OUT/c/synccheck.log) PASS at $SECONDS s"
PROB="--batch_size 1 --seqlen_q 1 --seqlen_k 1024,16384,131072 --num_head 32 --num_head_kv 8 --head_dim 64,128"
timeout 60 ncu --nvtx --nvtx-include "regex:fa-bench@.*/" --cache-control none --clock-control none \
    --metrics gpu__time_duration.sum --csv $N --profile --kernel mma_decode $PROB > $OUT/c/ncu.csv 2> $OUT/c/ncu.err
echo "ncu rc=$? at $SECONDS s"
$N --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
probs=()
for s in 1024 4096 16384 65536 131072; do
  probs+=(--problem "--batch_size 1 --seqlen_q 1 --seqlen_k $s --num_head 32 --num_head_kv 8,32 --head_dim 64,128")
done
probs+=(--problem "--batch_size 1 --seqlen_q 1 --seqlen_k 4096,65536 --num_head 32 --num_head_kv 8 --head_dim 256")
probs+=(--problem "--batch_size 64 --seqlen_q 1 --seqlen_k 8192 --num_head 32 --num_head_kv 8,32 --head_dim 64,128")
timeout 260 python3 scripts/ab.py --build base=/tmp/s40e/fa-bench --build warps=$N "${probs[@]}" \
    --flags "--kernel mma_decode" --rounds 3 --check-rounds 1 --deadline 240 --out $OUT/c/ab > $OUT/ab.txt 2>&1
echo "ab rc=$? at $SECONDS s"; grep -E "warps:|geometric" $OUT/ab.txt | cut -c1-150
for s in 4096 8192 32768; do
  $N --kernel mma_decode --batch_size 1 --seqlen_q 1 --seqlen_k $s --num_head 32 --num_head_kv 8 --head_dim 64,128 \
      --num_splits 0,16,32,64 --skip_ref_check --csv $OUT/c/splits_$s.csv > /dev/null 2>&1
done
echo "splits at $SECONDS s"
timeout 60 python3 scripts/peers.py --backends cudnn --batch_size 1 --seqlen_q 1 --seqlen_k 1024,4096,8192,16384,32768,65536,131072 \
    --num_head 32 --num_head_kv 8,32 --head_dim 64,128 --fa-bench $N --csv $OUT/c/cudnn.csv > /dev/null 2>&1; echo "cudnn rc=$? at $SECONDS s"
cd $OUT && tar -czf c.tgz c && rm -rf c
