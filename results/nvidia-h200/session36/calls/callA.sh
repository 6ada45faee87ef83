#!/usr/bin/env bash
# Session 36 call A (prepared in session 35 as next_vt_stream.sh): `next_vt_stream.patch` (rung 8's Vᵀ streamed beside the attention kernel by
# 16 CTAs of 4 x 256 threads behind per-chunk ready flags, the attention kernel their programmatic dependent;
# on the 192 x 64 tile, WgmmaFp8D128M192::kVtOverlap) against the committed build, built here as
# .exp/s35ovl.tar.xz (dir s35ovl/, fa-bench + fa_gpu_tests, commit d850462 + the patch) and .exp/s35b.tar.xz
# (dir s35/, the committed device code). GPU tests first (a deadlock shows as their timeout), memcheck on the
# patched FP8 rung, then ab.py at issue #11's head_dim-128 points and 2x16x8192x128, three rounds.
set -uo pipefail
for t in s35b s35ovl; do tar -xJf .exp/$t.tar.xz -C /tmp; done
( time timeout 120 /tmp/s35ovl/fa_gpu_tests "~[large]" ) > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(grep -E 'assertions|FAILED' $OUT/gpu_tests.log | tail -2 | tr '\n' ' ') at $SECONDS s"
DTYPES=Float8E4M3FN HEAD_DIMS=128 FA_ARGS="--m_block_size 192 --n_block_size 64 --num_threads 384" \
    timeout 240 scripts/sanitize.sh /tmp/s35ovl/fa-bench wgmma_fp8 > $OUT/sanitize.log 2>&1
echo "sanitize rc=$? $(grep -c clean $OUT/sanitize.log) clean at $SECONDS s"
/tmp/s35/fa-bench --kernel wgmma_overlap --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
s() { echo "--kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size $1 --num_head 16 --seqlen_q $2 --seqlen_k $2 --head_dim 128 --causal 0,1"; }
python3 scripts/ab.py --build base=/tmp/s35/fa-bench --build stream=/tmp/s35ovl/fa-bench --rounds 3 --deadline 200 \
    --out $OUT/ab --problem "$(s 4 8192)" --problem "$(s 1 16384)" --problem "$(s 2 8192)" > $OUT/ab.txt 2>&1
echo "ab rc=$? at $SECONDS s"; grep -E "geometric|round" $OUT/ab.txt
