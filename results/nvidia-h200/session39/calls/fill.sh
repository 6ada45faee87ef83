#!/usr/bin/env bash
# Session 39 call G (H200): the one-wave split rule filling at most two CTAs an SM (kMaxSplitFillPerSm,
# build s39c) against filling every resident slot (s39b: rung 10 fills three), rung 10 along the
# decode grid's B = 1 series with 8 and 32 K/V heads (the only decode points whose split count
# changes), scripts/ab.py: three rounds, the first with the reference check, order rotating, medians.
set -uo pipefail
for b in s39b s39c; do tar -xJf .exp/$b.tar.xz -C /; done
/tmp/s39b/fa-bench --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
probs=()
for s in 1024 2048 4096 8192 16384 32768 65536 131072 262144; do
  probs+=(--problem "--batch_size 1 --seqlen_q 1 --seqlen_k $s --num_head 32 --num_head_kv 8,32 --head_dim 128")
done
timeout 560 python3 scripts/ab.py --build base=/tmp/s39b/fa-bench --build fill2=/tmp/s39c/fa-bench "${probs[@]}" \
    --flags "--kernel mma_decode" --rounds 3 --check-rounds 1 --deadline 420 --out $OUT/ab > $OUT/ab.txt 2>&1
echo "ab rc=$? at $SECONDS s"; tail -n 30 $OUT/ab.txt
cd $OUT && tar -czf ab.tgz ab && rm -rf ab
