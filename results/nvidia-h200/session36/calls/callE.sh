#!/usr/bin/env bash
# Session 36 call E: FA4's split of the softmax (its SASS, session36/fa4_sass/d128_nc.trip.txt): every
# exponent's argument (the FFMA x·scale - max) computed before the P·V wait, only MUFU, the row sum, O's
# rescale and the packing after it. online_softmax_tile computes the arguments in place in one loop, then
# the exponentials (ffma_first.patch): in rung 7's 160-key trip all 80 FFMAs now precede the P·V wait (before:
# 30 after it), the same instructions. Builds (.exp/s36f.tar.xz): ffma (that; with fa_gpu_tests), ffpw
# (that and the 160-key tile's P·V wait after 32 columns), against base (.exp/s35b.tar.xz).
set -uo pipefail
tar -xJf .exp/s35b.tar.xz -C /tmp; tar -xJf .exp/s36f.tar.xz -C /tmp
( time timeout 150 /tmp/ffma/fa_gpu_tests "~[large]" ) > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(grep -E 'assertions|FAILED' $OUT/gpu_tests.log | tail -2 | tr '\n' ' ') at $SECONDS s"
DTYPES="BFloat16" HEAD_DIMS="64 128" timeout 60 scripts/sanitize.sh /tmp/ffma/fa-bench wgmma_overlap,wgmma_persistent > $OUT/sanitize.log 2>&1
echo "sanitize rc=$? $(grep -c clean $OUT/sanitize.log) clean at $SECONDS s"
/tmp/s35/fa-bench --kernel wgmma_overlap --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
s() { echo "--kernel $1 --dtype $2 --batch_size $3 --num_head $4 --seqlen_q $5 --seqlen_k $5 --head_dim $6 --causal 0,1"; }
B="wgmma_overlap,wgmma_persistent"
python3 scripts/ab.py --build base=/tmp/s35/fa-bench --build ffma=/tmp/ffma/fa-bench --build ffpw=/tmp/ffpw/fa-bench \
    --rounds 3 --deadline 330 --out $OUT/ab \
    --problem "$(s $B BFloat16 2 16 8192 128)" --problem "$(s $B BFloat16 1 16 16384 128)" \
    --problem "$(s $B BFloat16 4 16 4096 128)" --problem "$(s $B BFloat16 2 32 8192 64)" \
    --problem "$(s $B BFloat16 8 16 2048 128)" --problem "$(s wgmma_fp8 Float8E4M3FN 4 16 8192 128)" > $OUT/ab.txt 2>&1
echo "ab rc=$? at $SECONDS s"; grep -E "geometric|round" $OUT/ab.txt
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv
