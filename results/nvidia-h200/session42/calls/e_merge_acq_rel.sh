#!/usr/bin/env bash
# Session 42 call E: call C's in-kernel merge with one acq_rel atomic by thread 0 (cuda::atomic_ref;
# SASS MEMBAR.ALL.GPU + ATOM + CCTL.IVALL in one thread) instead of every thread's __threadfence (two
# MEMBAR.SC.GPU): build s42e against s42h (main with the chunk rule). Call D timed the merging kernel
# at +3.6 us over the unmerged one. The decode GPU test case, ab.py three rounds on the rows call C
# merged in the kernel, ncu durations at 1x32x1x4096x64 (8 K/V heads). Carry [".exp/s42e.tar.xz"].
set -uo pipefail
tar -xJf .exp/s42e.tar.xz -C /
N=/tmp/s42e/fa-bench
mkdir -p $OUT/e
( time timeout 100 /tmp/s42e/fa_gpu_tests "[decode]" ) > $OUT/e/gpu_tests.log 2>&1
echo "gpu decode tests rc=$? $(grep -E 'assertions|FAILED' $OUT/e/gpu_tests.log | tail -2 | tr '\n' ' ') at $SECONDS s"
/tmp/s42h/fa-bench --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
probs=()
for s in 1024 2048 4096; do
  probs+=(--problem "--kernel mma_decode --batch_size 1 --seqlen_q 1 --seqlen_k $s --num_head 32 --num_head_kv 8,32 --head_dim 64,128")
done
probs+=(--problem "--kernel mma_decode --batch_size 2 --seqlen_q 1 --seqlen_k 2048,4096 --num_head 32 --num_head_kv 8 --head_dim 64,128")
timeout 150 python3 scripts/ab.py --build chunk=/tmp/s42h/fa-bench --build acqrel=$N "${probs[@]}" \
    --rounds 3 --check-rounds 1 --deadline 140 --out $OUT/e/ab > $OUT/ab.txt 2>&1
echo "ab rc=$? at $SECONDS s"; grep -E "acqrel:|geometric" $OUT/ab.txt | cut -c12-150
for b in s42h s42e; do
  timeout 40 ncu --nvtx --nvtx-include "regex:fa-bench@.*/" --cache-control none --clock-control none \
      --metrics gpu__time_duration.sum --csv /tmp/$b/fa-bench --profile --kernel mma_decode --batch_size 1 \
      --seqlen_q 1 --seqlen_k 4096 --num_head 32 --num_head_kv 8 --head_dim 64 > $OUT/e/ncu_$b.csv 2> $OUT/e/ncu_$b.err
  echo "ncu $b rc=$? $(grep -o 'gpu__time_duration.sum","[^"]*","[0-9,.]*' $OUT/e/ncu_$b.csv | tr '\n' ' ')"
done
cd $OUT && tar -czf e.tgz e && rm -rf e
