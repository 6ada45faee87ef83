#!/usr/bin/env bash
# Session 42 call G: the one-warp combine with 1 or 2 output rows a CTA instead of 4 (kRowsPerBlock; builds
# s42r1, s42r2 against s42h = the landed build): call F timed it at 3.55 µs in 8 CTAs against cuDNN's
# reduction at 2.82-3.04 in 32. ab.py three rounds on the short decode rows, then the decode GPU test
# case on s42r2 as far as the budget goes. Carry [".exp/s42r.tar.xz"].
set -uo pipefail
tar -xJf .exp/s42r.tar.xz -C /
mkdir -p $OUT/g
/tmp/s42h/fa-bench --kernel wgmma_ws --iterations 200 --skip_ref_check > /dev/null 2>&1  # warm-up
probs=(--problem "--kernel mma_decode --batch_size 1 --seqlen_q 1 --seqlen_k 1024,2048 --num_head 32 --num_head_kv 8 --head_dim 64,128")
probs+=(--problem "--kernel mma_decode --batch_size 1 --seqlen_q 1 --seqlen_k 1024 --num_head 32 --num_head_kv 32 --head_dim 64,128")
timeout 110 python3 scripts/ab.py --build rows4=/tmp/s42h/fa-bench --build rows1=/tmp/s42r1/fa-bench --build rows2=/tmp/s42r2/fa-bench \
    "${probs[@]}" --rounds 3 --check-rounds 1 --deadline 100 --out $OUT/g/ab > $OUT/ab.txt 2>&1
echo "ab rc=$? at $SECONDS s"; grep -E "rows[12]:|geometric" $OUT/ab.txt | cut -c12-150
( time timeout 60 /tmp/s42r2/fa_gpu_tests "[decode]" ) > $OUT/g/gpu_tests.log 2>&1
echo "gpu decode tests (s42r2) rc=$? $(grep -E 'assertions|FAILED' $OUT/g/gpu_tests.log | tail -2 | tr '\n' ' ') at $SECONDS s"
cd $OUT && tar -czf g.tgz g && rm -rf g
