#!/usr/bin/env bash
# Session 42 call C: rung 10 merges its splits in the kernel where one combine warp merges a row in one
# round (<= 16 splits, 8 at head_dim 256): the last split of a row band to finish merges the band's rows
# (build s42c) instead of a combine launch; base s42h = main with the chunk rule (commit after call B).
# Full GPU tests, compute-sanitizer on rung 10's split shapes (in-kernel merge at 2 / 13 splits, the
# combine at 20), scripts/ab.py three rounds against s42h along B = 1 / 2 and at the decode anchors,
# cuDNN on the B = 1 points. Carry [".exp/s42c.tar.xz"].
set -uo pipefail
tar -xJf .exp/s42c.tar.xz -C /
N=/tmp/s42c/fa-bench
mkdir -p $OUT/c
( time timeout 150 /tmp/s42c/fa_gpu_tests "~[large]" ) > $OUT/c/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(grep -E 'assertions|FAILED' $OUT/c/gpu_tests.log | tail -2 | tr '\n' ' ') at $SECONDS s"
SAN="--kernel mma_decode --batch_size 1 --seqlen_q 1,5 --seqlen_k 5000 --num_head 8 --num_head_kv 2 --causal 0,1 --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 2"
timeout 50 compute-sanitizer --tool memcheck --error-exitcode 99 $N $SAN --num_splits 0,2,13,20 --head_dim 64,128,256 > $OUT/c/memcheck.log 2>&1
echo "memcheck rc=$? $(grep -c PASS $OUT/c/memcheck.log) PASS at $SECONDS s"
timeout 50 compute-sanitizer --tool racecheck --error-exitcode 99 $N $SAN --num_splits 2,13 --head_dim 64,256 > $OUT/c/racecheck.log 2>&1
echo "racecheck rc=$? $(grep -c PASS $OUT/c/racecheck.log) PASS at $SECONDS s"
timeout 30 compute-sanitizer --tool synccheck --error-exitcode 99 $N $SAN --num_splits 2,13 --head_dim 64,128,256 > $OUT/c/synccheck.log 2>&1
echo "synccheck rc=$? $(grep -c PASS $OUT/c/synccheck.log) PASS at $SECONDS s"
/tmp/s42h/fa-bench --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
probs=()
for s in 1024 2048 4096 8192 16384; do
  probs+=(--problem "--kernel mma_decode --batch_size 1 --seqlen_q 1 --seqlen_k $s --num_head 32 --num_head_kv 8,32 --head_dim 64,128")
done
probs+=(--problem "--kernel mma_decode --batch_size 1 --seqlen_q 1 --seqlen_k 1024,2048,4096 --num_head 32 --num_head_kv 8 --head_dim 256")
probs+=(--problem "--kernel mma_decode --batch_size 2 --seqlen_q 1 --seqlen_k 2048,4096 --num_head 32 --num_head_kv 8 --head_dim 64,128")
probs+=(--problem "--kernel mma_decode --batch_size 64 --seqlen_q 1 --seqlen_k 8192 --num_head 32 --num_head_kv 8,32 --head_dim 128")
probs+=(--problem "--kernel mma_decode --batch_size 8 --seqlen_q 1 --seqlen_k 32768 --num_head 32 --num_head_kv 8 --head_dim 128")
timeout 250 python3 scripts/ab.py --build chunk=/tmp/s42h/fa-bench --build merge=$N "${probs[@]}" \
    --rounds 3 --check-rounds 1 --deadline 240 --out $OUT/c/ab > $OUT/ab.txt 2>&1
echo "ab rc=$? at $SECONDS s"; grep -E "merge:|geometric" $OUT/ab.txt | cut -c12-150
timeout 60 python3 scripts/peers.py --backends cudnn --batch_size 1 --seqlen_q 1 --seqlen_k 1024,2048,4096,8192,16384 \
    --num_head 32 --num_head_kv 8,32 --head_dim 64,128 --fa-bench $N --csv $OUT/c/cudnn.csv > /dev/null 2>&1
echo "cudnn rc=$? at $SECONDS s"
cd $OUT && tar -czf c.tgz c && rm -rf c
