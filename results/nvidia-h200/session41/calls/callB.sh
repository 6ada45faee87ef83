#!/usr/bin/env bash
# Session 41 call B (diagnostic): where the B = 1, 8-K/V-head decode time goes, fa-bench (main's build s40e)
# against cuDNN. ncu on each kernel of one launch / SDPA call (warm caches, clocks free: durations only),
# the same shapes' event-timed medians, a forced split-count scan, and scripts/ab.py of s40e against s41h
# (combine_groups.patch's lane groups with 16 loads in flight; call A ran them with 32: +1.6-7.6 % at
# 4k-131k keys but -11 % at 1k, and -1 to -11 % with 32 K/V heads).
set -uo pipefail
for b in s40e s41h; do tar -xJf .exp/$b.tar.xz -C /; done
N=/tmp/s40e/fa-bench
PROB="--batch_size 1 --seqlen_q 1 --seqlen_k 1024,16384,131072 --num_head 32 --num_head_kv 8 --head_dim 64,128"
mkdir -p $OUT/diag
$N --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
timeout 120 ncu --nvtx --nvtx-include "regex:fa-bench@.*/" --cache-control none --clock-control none \
    --metrics gpu__time_duration.sum,sm__cycles_elapsed.max --csv $N --profile --kernel mma_decode $PROB \
    > $OUT/diag/ncu_fa.csv 2> $OUT/diag/ncu_fa.err
echo "ncu fa rc=$? at $SECONDS s"
timeout 150 ncu --nvtx --nvtx-include "regex:sdpa.*/" --cache-control none --clock-control none \
    --metrics gpu__time_duration.sum,sm__cycles_elapsed.max,launch__grid_size,launch__block_size --csv \
    python3 results/nvidia-h200/session41/calls/cudnn_kernels.py > $OUT/diag/ncu_cudnn.csv 2> $OUT/diag/ncu_cudnn.err
echo "ncu cudnn rc=$? at $SECONDS s"
$N --kernel mma_decode $PROB --skip_ref_check --csv $OUT/diag/timed.csv > $OUT/diag/timed.txt 2>&1
for s in 4096 8192 32768 131072; do
  $N --kernel mma_decode --batch_size 1 --seqlen_q 1 --seqlen_k $s --num_head 32 --num_head_kv 8 --head_dim 64,128 \
      --num_splits 0,8,16,32,64 --skip_ref_check --csv $OUT/diag/splits_$s.csv > /dev/null 2>&1
done
echo "splits at $SECONDS s"
probs=()
for s in 1024 4096 16384 65536; do
  probs+=(--problem "--batch_size 1 --seqlen_q 1 --seqlen_k $s --num_head 32 --num_head_kv 8,32 --head_dim 64")
done
timeout 200 python3 scripts/ab.py --build base=$N --build groups16=/tmp/s41h/fa-bench "${probs[@]}" \
    --flags "--kernel mma_decode" --rounds 3 --check-rounds 1 --deadline 180 --out $OUT/diag/ab > $OUT/ab.txt 2>&1
echo "ab rc=$? at $SECONDS s"; grep -E "groups16:|geometric" $OUT/ab.txt
cd $OUT && tar -czf diag.tgz diag && rm -rf diag
