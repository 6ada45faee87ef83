#!/usr/bin/env bash
# Session 36 call D: every mbarrier wait with a suspend-time hint (ptx::mbarrier_try_wait_parity's
# try_wait with 10 ms: ptxas then sleeps a failed wait on NANOSLEEP.SYNCS until the phase completes,
# as FA4's waits do) against the committed device code (.exp/s35b.tar.xz). Call C4's ncu found rung 7's
# producer polling its empty-slot barriers 22 M times at 2x16x8192x128 (15 M + 7 M TRYWAIT, each with
# its BRA), FA4's 0.6 M. Binaries: .exp/s36h.tar.xz (dir hint/: fa-bench, fa_gpu_tests).
# GPU tests and compute-sanitizer on the hint build, then ab.py, three rounds.
set -uo pipefail
tar -xJf .exp/s35b.tar.xz -C /tmp; tar -xJf .exp/s36h.tar.xz -C /tmp
( time timeout 150 /tmp/hint/fa_gpu_tests "~[large]" ) > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(grep -E 'assertions|FAILED' $OUT/gpu_tests.log | tail -2 | tr '\n' ' ') at $SECONDS s"
DTYPES="BFloat16 Float8E4M3FN" HEAD_DIMS=128 timeout 100 scripts/sanitize.sh /tmp/hint/fa-bench wgmma_overlap,wgmma_persistent,wgmma_fp8 > $OUT/sanitize.log 2>&1
echo "sanitize rc=$? $(grep -c clean $OUT/sanitize.log) clean at $SECONDS s"
/tmp/s35/fa-bench --kernel wgmma_overlap --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
s() { echo "--kernel $1 --dtype $2 --batch_size $3 --num_head $4 --seqlen_q $5 --seqlen_k $5 --head_dim $6 --causal 0,1"; }
B="wgmma_overlap,wgmma_persistent"
python3 scripts/ab.py --build base=/tmp/s35/fa-bench --build hint=/tmp/hint/fa-bench --rounds 3 --deadline 300 --out $OUT/ab \
    --problem "$(s $B BFloat16 2 16 8192 128)" --problem "$(s $B BFloat16 1 16 16384 128)" \
    --problem "$(s $B BFloat16 4 16 4096 128)" --problem "$(s $B BFloat16 4 16 8192 128)" \
    --problem "$(s $B BFloat16 2 32 8192 64)" --problem "$(s $B BFloat16 2 16 8192 256)" \
    --problem "$(s wgmma_fp8 Float8E4M3FN 4 16 8192 128)" --problem "$(s wgmma_fp8 Float8E4M3FN 1 16 16384 128)" > $OUT/ab.txt 2>&1
echo "ab rc=$? at $SECONDS s"; grep -E "geometric|round" $OUT/ab.txt
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv
