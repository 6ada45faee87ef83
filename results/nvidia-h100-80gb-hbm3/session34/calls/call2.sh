#!/usr/bin/env bash
# Session 34 call 2 (issue #11): rung 8's 192 x 64 tile with one exponential in 4 (`fx4`) or in 8 (`fx8`) of the
# speculative softmax on the FMA pipe (exp2_fma: a degree-2 polynomial and an exponent-field add) instead of
# MUFU.EX2, both on top of call 1's `f8u`; against `fin4` (committed) and `f8u`, through scripts/ab.py, three
# rounds. Then fx4's GPU tests and compute-sanitizer on the 192 x 64 tile.
set -uo pipefail
L=$OUT/logs; mkdir -p $L
for t in s33fin s34f8u s34fx4 s34fx8; do tar -xJf .exp/$t.tar.xz -C /tmp; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
/tmp/fin4/fa-bench --kernel wgmma_overlap --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
s() { echo "--batch_size $1 --num_head $2 --seqlen_q $3 --seqlen_k $3 --head_dim $4 --causal 0,1"; }
F8="--kernel wgmma_fp8 --dtype Float8E4M3FN"
python3 scripts/ab.py --build fin4=/tmp/fin4/fa-bench --build f8u=/tmp/f8u2/fa-bench --build fx4=/tmp/fx4/fa-bench \
    --build fx8=/tmp/fx8/fa-bench --rounds 3 --deadline 330 --out $L/ab \
    --problem "$F8 $(s 4 16 8192 128)" --problem "$F8 $(s 1 16 16384 128)" --problem "$F8 $(s 2 16 8192 128)"
echo "ab done at $SECONDS s"
( time timeout 90 /tmp/fx4/fa_gpu_tests "~[large]" ) > $L/gpu_tests_fx4.log 2>&1; echo "gpu tests fx4 rc=$? $(grep -E 'assertions|FAILED' $L/gpu_tests_fx4.log | tail -2 | tr '\n' ' ') at $SECONDS s"
if (( SECONDS < 520 )); then
  DTYPES=Float8E4M3FN HEAD_DIMS=128 FA_ARGS="--m_block_size 192 --n_block_size 64 --num_threads 384" \
    timeout $(( 590 - SECONDS )) bash scripts/sanitize.sh /tmp/fx4/fa-bench wgmma_fp8 > $L/sanitize_fx4.log 2>&1
  echo "sanitize rc=$? $(grep -c clean $L/sanitize_fx4.log) clean, $(grep -c FAILED $L/sanitize_fx4.log) failed at $SECONDS s"
fi
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
