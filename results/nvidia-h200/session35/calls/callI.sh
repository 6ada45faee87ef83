#!/usr/bin/env bash
# Session 35 call I (a fresh H200, the session's last device minutes): the bf16 / fp16 steps' descriptor offsets
# as 32-bit adds to the low words (`desc_words.patch`: issue_qk / issue_pv, hopper::desc_from_words; rung 7's
# d128 loop: 17 UIADD3.64 -> 0, 709 -> 727 instructions) against the build without it (s35b), rungs 7 and 9
# at 2x16x8192x128 and 1x16x16384x128, causal and not, three rounds through ab.py (no reference check: the
# GPU tests after it check the build); files straight to $OUT (no tar), so a cut-off call still returns them.
set -uo pipefail
for t in s35b s35d; do tar -xJf .exp/$t.tar.xz -C /tmp; done
/tmp/s35/fa-bench --kernel wgmma_overlap --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
s() { echo "--kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --batch_size $1 --num_head 16 --seqlen_q $2 --seqlen_k $2 --head_dim 128 --causal 0,1"; }
python3 scripts/ab.py --build base=/tmp/s35/fa-bench --build words=/tmp/s35d/fa-bench --rounds 3 --check-rounds 0 \
    --deadline 95 --out $OUT/ab --problem "$(s 2 8192)" --problem "$(s 1 16384)" > $OUT/ab.txt 2>&1
echo "ab rc=$? at $SECONDS s"; grep -E "geometric|round" $OUT/ab.txt
( time timeout 75 /tmp/s35d/fa_gpu_tests "~[large]" ) > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(grep -E 'assertions|FAILED' $OUT/gpu_tests.log | tail -2 | tr '\n' ' ') at $SECONDS s"
