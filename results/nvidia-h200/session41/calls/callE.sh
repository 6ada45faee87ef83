#!/usr/bin/env bash
# Session 41 call E: the combine to land (build s41n = main + combine_groups.patch + the two-layout combine:
# one warp a row up to one round of loads, 16 splits (8 at head_dim 256), else 4 or 8 warps a row with lane
# groups; loops stop past the last split). Full GPU tests (the decode matrix now 2/7/13/20/37/70 splits),
# compute-sanitizer memcheck / racecheck / synccheck on every combine layout, ab.py against main (s40e).
set -uo pipefail
tar -xJf .exp/d41b.tar.xz -C /  # s40e fa-bench, s41n fa-bench and tests
N=/tmp/s41n/fa-bench
mkdir -p $OUT/e
( time timeout 120 /tmp/s41n/fa_gpu_tests "~[large]" ) > $OUT/e/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(grep -E 'assertions|FAILED' $OUT/e/gpu_tests.log | tail -2 | tr '\n' ' ') at $SECONDS s"
SAN="--kernel mma_decode --batch_size 1 --seqlen_q 1 --seqlen_k 5000 --num_head 8 --num_head_kv 2 --causal 0 --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1"
timeout 40 compute-sanitizer --tool memcheck --error-exitcode 99 $N $SAN --num_splits 2,13,20,37,70 --head_dim 64,128,256 > $OUT/e/memcheck.log 2>&1
echo "memcheck rc=$? $(grep -c PASS $OUT/e/memcheck.log) PASS at $SECONDS s"
timeout 45 compute-sanitizer --tool racecheck --error-exitcode 99 $N $SAN --num_splits 13,20,70 --head_dim 64,128 > $OUT/e/racecheck.log 2>&1
echo "racecheck rc=$? $(grep -c PASS $OUT/e/racecheck.log) PASS at $SECONDS s"
timeout 30 compute-sanitizer --tool synccheck --error-exitcode 99 $N $SAN --num_splits 13,20,70 --head_dim 64,128 > $OUT/e/synccheck.log 2>&1
echo "synccheck rc=$? $(grep -c PASS $OUT/e/synccheck.log) PASS at $SECONDS s"
/tmp/s40e/fa-bench --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
probs=()
for s in 1024 4096 16384 131072; do
  probs+=(--problem "--batch_size 1 --seqlen_q 1 --seqlen_k $s --num_head 32 --num_head_kv 8,32 --head_dim 64,128")
done
probs+=(--problem "--batch_size 1 --seqlen_q 1 --seqlen_k 4096 --num_head 32 --num_head_kv 8 --head_dim 256")
timeout 130 python3 scripts/ab.py --build base=/tmp/s40e/fa-bench --build final=$N "${probs[@]}" \
    --flags "--kernel mma_decode" --rounds 3 --check-rounds 1 --deadline 120 --out $OUT/e/ab > $OUT/ab.txt 2>&1
echo "ab rc=$? at $SECONDS s"; grep -E "final:|geometric" $OUT/ab.txt | cut -c12-140
cd $OUT && tar -czf e.tgz e && rm -rf e
