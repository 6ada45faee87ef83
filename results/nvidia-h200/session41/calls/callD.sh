#!/usr/bin/env bash
# Session 41 call D: three combines against main's (s40e), after call C's multi-warp combine measured a higher
# floor (ncu 4.2-4.5 us at every split count, against 3.2-3.4 at 16 splits before) and lost 3-10 % at 16 splits.
# Each stops its unrolled loops at the first step whose splits all lie past the end (warp-uniform), so few
# splits run no idle weight shuffles: s41j = call C's multi-warp combine (shared memory across warps);
# s41k = one warp a row, two lane groups at head_dim 64, 32 loads in flight (call A's s41g); s41m = the same
# with 16 loads in flight (call B's s41h). Decode GPU tests and memcheck on s41j and s41k, ncu durations,
# ab.py along B = 1 (8 and 32 K/V heads, head_dim 64 / 128, one head_dim-256 point), three rounds.
set -uo pipefail
tar -xJf .exp/d41.tar.xz -C /  # the four builds in one archive: s40e fa-bench, s41j and s41k with tests, s41m
mkdir -p $OUT/d
SAN="--kernel mma_decode --batch_size 1 --seqlen_q 1 --seqlen_k 5000 --num_head 8 --num_head_kv 2 --causal 0 --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1"
PROB="--batch_size 1 --seqlen_q 1 --seqlen_k 1024,16384,131072 --num_head 32 --num_head_kv 8 --head_dim 64,128"
for b in s41j s41k; do
  ( time timeout 100 /tmp/$b/fa_gpu_tests "[decode]" ) > $OUT/d/gpu_tests_$b.log 2>&1
  echo "$b decode tests rc=$? $(grep -E 'assertions|FAILED' $OUT/d/gpu_tests_$b.log | tail -2 | tr '\n' ' ') at $SECONDS s"
  timeout 60 compute-sanitizer --tool memcheck --error-exitcode 99 /tmp/$b/fa-bench $SAN --num_splits 2,7,13,37,70 --head_dim 64,128,256 > $OUT/d/memcheck_$b.log 2>&1
  echo "$b memcheck rc=$? $(grep -c PASS $OUT/d/memcheck_$b.log) PASS at $SECONDS s"
done
for b in s41j s41k s41m; do
  timeout 40 ncu --nvtx --nvtx-include "regex:fa-bench@.*/" --cache-control none --clock-control none \
      --metrics gpu__time_duration.sum --csv /tmp/$b/fa-bench --profile --kernel mma_decode $PROB > $OUT/d/ncu_$b.csv 2>&1
  echo "ncu $b rc=$?: $(grep combine_kernel $OUT/d/ncu_$b.csv | awk -F'","' '{print $NF}' | tr -d '"' | tr '\n' ' ')"
done
/tmp/s40e/fa-bench --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
probs=()
for s in 1024 4096 16384 131072; do
  probs+=(--problem "--batch_size 1 --seqlen_q 1 --seqlen_k $s --num_head 32 --num_head_kv 8,32 --head_dim 64,128")
done
probs+=(--problem "--batch_size 1 --seqlen_q 1 --seqlen_k 4096 --num_head 32 --num_head_kv 8 --head_dim 256")
timeout 330 python3 scripts/ab.py --build base=/tmp/s40e/fa-bench --build mw=/tmp/s41j/fa-bench --build one32=/tmp/s41k/fa-bench \
    --build one16=/tmp/s41m/fa-bench "${probs[@]}" --flags "--kernel mma_decode" --rounds 3 --check-rounds 1 --deadline 300 \
    --out $OUT/d/ab > $OUT/ab.txt 2>&1
echo "ab rc=$? at $SECONDS s"; grep -E "geometric" $OUT/ab.txt
cd $OUT && tar -czf d.tgz d && rm -rf d
