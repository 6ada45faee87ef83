#!/usr/bin/env bash
# Session 34 call 1 (issue #11): rung 8's 192 x 64 tile with the key tiles that need no mask in a loop of
# their own (`f8u`: session 33's next_fp8_unmasked_loop.patch) against the committed build (`fin4`),
# through scripts/ab.py on the FP8 points, causal and not, with the bf16 top rungs (identical code
# in both builds) in the same rounds for the ratio. Then f8u's GPU tests and compute-sanitizer on the
# 192 x 64 tile (forced: sanitize.sh's Sq 300 would otherwise take the 128 x 128 in-kernel way).
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s33fin.tar.xz -C /tmp; tar -xJf .exp/s34f8u.tar.xz -C /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
/tmp/fin4/fa-bench --kernel wgmma_overlap --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
s() { echo "--batch_size $1 --num_head $2 --seqlen_q $3 --seqlen_k $3 --head_dim $4 --causal 0,1"; }
F8="--kernel wgmma_fp8 --dtype Float8E4M3FN"; BF="--kernel wgmma_overlap,wgmma_persistent --dtype BFloat16"
python3 scripts/ab.py --build fin4=/tmp/fin4/fa-bench --build f8u=/tmp/f8u2/fa-bench --rounds 3 --deadline 330 --out $L/ab \
    --problem "$F8 $(s 4 16 8192 128)" --problem "$F8 $(s 1 16 16384 128)" --problem "$F8 $(s 1 16 16384 256)" \
    --problem "$BF $(s 4 16 8192 128)" --problem "$BF $(s 1 16 16384 128)" --problem "$BF $(s 1 16 16384 256)"
echo "ab done at $SECONDS s"
( time timeout 90 /tmp/f8u2/fa_gpu_tests "~[large]" ) > $L/gpu_tests_f8u.log 2>&1; echo "gpu tests f8u rc=$? $(grep -E 'assertions|FAILED' $L/gpu_tests_f8u.log | tail -2 | tr '\n' ' ') at $SECONDS s"
if (( SECONDS < 500 )); then
  DTYPES=Float8E4M3FN HEAD_DIMS=128 FA_ARGS="--m_block_size 192 --n_block_size 64 --num_threads 384" \
    timeout $(( 590 - SECONDS )) bash scripts/sanitize.sh /tmp/f8u2/fa-bench wgmma_fp8 > $L/sanitize_f8u.log 2>&1
  echo "sanitize rc=$? $(grep -c clean $L/sanitize_f8u.log) clean, $(grep -c FAILED $L/sanitize_f8u.log) failed at $SECONDS s"
fi
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
