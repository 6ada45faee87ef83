#!/usr/bin/env bash
# Session 42 call B: the split rule's minimum chunk (fa/splitkv.h SplitChunkRule: two key blocks, past
# the splits one combine warp merges 64 KB of K/V) with the combine's weighted sum as one helper
# (add_weighted; the six one-chunk several-warps kernels' SASS differs from main's only in which
# registers four zero-inits take). Build s42b against main (s42): full GPU tests, compute-sanitizer
# on the combine's layouts, scripts/ab.py three rounds on the points whose counts move (rung 10 along
# B = 1 and 2, rungs 3 / 7 / 9 at 1k-2k keys) and on 16k / 4k rows whose counts stay (the helper's
# several-warps merges), cuDNN on the B = 1 points. Carry [".exp/s42b.tar.xz"].
set -uo pipefail
tar -xJf .exp/s42b.tar.xz -C /
N=/tmp/s42b/fa-bench
mkdir -p $OUT/b
( time timeout 150 /tmp/s42b/fa_gpu_tests "~[large]" ) > $OUT/b/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(grep -E 'assertions|FAILED' $OUT/b/gpu_tests.log | tail -2 | tr '\n' ' ') at $SECONDS s"
SAN="--kernel mma_decode --batch_size 1 --seqlen_q 1 --seqlen_k 5000 --num_head 8 --num_head_kv 2 --causal 0 --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1"
timeout 40 compute-sanitizer --tool memcheck --error-exitcode 99 $N $SAN --num_splits 0,2,13,20,37,70 --head_dim 64,128,256 > $OUT/b/memcheck.log 2>&1
echo "memcheck rc=$? $(grep -c PASS $OUT/b/memcheck.log) PASS at $SECONDS s"
timeout 40 compute-sanitizer --tool racecheck --error-exitcode 99 $N $SAN --num_splits 20,70 --head_dim 64,128 > $OUT/b/racecheck.log 2>&1
echo "racecheck rc=$? $(grep -c PASS $OUT/b/racecheck.log) PASS at $SECONDS s"
timeout 30 compute-sanitizer --tool synccheck --error-exitcode 99 $N $SAN --num_splits 20,70 --head_dim 64,128 > $OUT/b/synccheck.log 2>&1
echo "synccheck rc=$? $(grep -c PASS $OUT/b/synccheck.log) PASS at $SECONDS s"
/tmp/s42/fa-bench --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
probs=()
for s in 1024 2048 4096 8192; do
  probs+=(--problem "--kernel mma_decode --batch_size 1 --seqlen_q 1 --seqlen_k $s --num_head 32 --num_head_kv 8,32 --head_dim 64,128")
done
probs+=(--problem "--kernel mma_decode --batch_size 1 --seqlen_q 1 --seqlen_k 16384 --num_head 32 --num_head_kv 8 --head_dim 64,128")
for s in 1024 2048 4096; do
  probs+=(--problem "--kernel mma_decode --batch_size 1 --seqlen_q 1 --seqlen_k $s --num_head 32 --num_head_kv 8 --head_dim 256")
done
for s in 2048 4096; do
  probs+=(--problem "--kernel mma_decode --batch_size 2 --seqlen_q 1 --seqlen_k $s --num_head 32 --num_head_kv 8 --head_dim 64,128")
done
for s in 1024 2048; do
  probs+=(--problem "--kernel mma,wgmma_overlap,wgmma_persistent --batch_size 1 --seqlen_q 1 --seqlen_k $s --num_head 32 --num_head_kv 8 --head_dim 128")
done
timeout 260 python3 scripts/ab.py --build main=/tmp/s42/fa-bench --build chunk=$N "${probs[@]}" \
    --rounds 3 --check-rounds 1 --deadline 250 --out $OUT/b/ab > $OUT/ab.txt 2>&1
echo "ab rc=$? at $SECONDS s"; grep -E "chunk:|geometric" $OUT/ab.txt | cut -c12-150
timeout 60 python3 scripts/peers.py --backends cudnn --batch_size 1 --seqlen_q 1 --seqlen_k 1024,2048,4096,8192,16384 \
    --num_head 32 --num_head_kv 8,32 --head_dim 64,128 --fa-bench $N --csv $OUT/b/cudnn.csv > /dev/null 2>&1
echo "cudnn rc=$? at $SECONDS s"
cd $OUT && tar -czf b.tgz b && rm -rf b
