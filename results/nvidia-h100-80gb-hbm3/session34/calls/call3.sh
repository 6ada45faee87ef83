#!/usr/bin/env bash
# Session 34 call 3 (issue #11): rung 8's 192 x 64 tile with the warpgroups whose rows are all past seqlen_q
# draining the ring instead of running the key loop (`drn`: drain_ring; 8,192 rows leave one of the last
# block's three warpgroups idle, 16,384 two), on top of `f8u` (call 1), against `fin4` and `f8u`; the
# FP8 points of the issue plus 2x16x8192 and a control whose rows fill every block (1x16x12288 = 64 x 192);
# the bf16 top rungs in the same rounds for the ratio. Then drn's GPU tests and the three sanitizers on the
# 192 x 64 tile at Sq 300 (its second and third warpgroups idle in the last block).
set -uo pipefail
L=$OUT/logs; mkdir -p $L
for t in s33fin s34f8u s34drn; do tar -xJf .exp/$t.tar.xz -C /tmp; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
/tmp/fin4/fa-bench --kernel wgmma_overlap --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
s() { echo "--batch_size $1 --num_head $2 --seqlen_q $3 --seqlen_k $3 --head_dim $4 --causal 0,1"; }
F8="--kernel wgmma_fp8 --dtype Float8E4M3FN"; BF="--kernel wgmma_overlap,wgmma_persistent --dtype BFloat16"
python3 scripts/ab.py --build fin4=/tmp/fin4/fa-bench --build f8u=/tmp/f8u2/fa-bench --build drn=/tmp/drn/fa-bench \
    --rounds 3 --deadline 380 --out $L/ab \
    --problem "$F8 $(s 4 16 8192 128)" --problem "$F8 $(s 1 16 16384 128)" --problem "$F8 $(s 2 16 8192 128)" \
    --problem "$F8 $(s 1 16 12288 128)" --problem "$BF $(s 4 16 8192 128)" --problem "$BF $(s 1 16 16384 128)"
echo "ab done at $SECONDS s"
( time timeout 90 /tmp/drn/fa_gpu_tests "~[large]" ) > $L/gpu_tests_drn.log 2>&1; echo "gpu tests drn rc=$? $(grep -E 'assertions|FAILED' $L/gpu_tests_drn.log | tail -2 | tr '\n' ' ') at $SECONDS s"
if (( SECONDS < 540 )); then
  DTYPES=Float8E4M3FN HEAD_DIMS=128 FA_ARGS="--m_block_size 192 --n_block_size 64 --num_threads 384" \
    timeout $(( 595 - SECONDS )) bash scripts/sanitize.sh /tmp/drn/fa-bench wgmma_fp8 > $L/sanitize_drn.log 2>&1
  echo "sanitize rc=$? $(grep -c clean $L/sanitize_drn.log) clean, $(grep -c FAILED $L/sanitize_drn.log) failed at $SECONDS s"
fi
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
