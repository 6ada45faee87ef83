#!/usr/bin/env bash
# Prepared in session 37, not run (no device time left): the token handed on after S(t+1)'s issue instead
# of after P(t)·V(t)'s (token_after_s.patch; overlap_schedule.cuh, rungs 7 and 9). Call E's ncu at
# 1x32x16384x64 put 8.6 % of rung 9's stall samples on the two token lines (FA4: 4.7 %); with the token
# passed before the P·V issue the next warpgroup's S may enter the tensor pipe ahead of this one's P·V.
# Build tok (.exp/s37t.tar.xz, fa-bench + fa_gpu_tests, HEAD 8266661 + the patch) against base
# (.exp/s36g.tar.xz, HEAD's device code); carry [".exp/s36g.tar.xz", ".exp/s37t.tar.xz"] on a fresh
# machine. GPU tests, sanitizers, then ab.py three rounds on the FA2 grid's misses and two causal rows.
set -uo pipefail
tar -xJf .exp/s36g.tar.xz -C /tmp; tar -xJf .exp/s37t.tar.xz -C /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $OUT/smi.txt
( time timeout 150 /tmp/s37t/tok/fa_gpu_tests "~[large]" ) > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(grep -E 'assertions|FAILED' $OUT/gpu_tests.log | tail -2 | tr '\n' ' ') at $SECONDS s"
DTYPES="BFloat16" HEAD_DIMS="64 128 256" timeout 90 scripts/sanitize.sh /tmp/s37t/tok/fa-bench wgmma_overlap,wgmma_persistent > $OUT/sanitize.log 2>&1
echo "sanitize rc=$? $(grep -c clean $OUT/sanitize.log) clean at $SECONDS s"
/tmp/s36g/fa-bench --kernel wgmma_overlap --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
s() { echo "--kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --batch_size $1 --num_head $2 --seqlen_q $3 --seqlen_k $3 --head_dim $4 --causal $5"; }
python3 scripts/ab.py --build base=/tmp/s36g/fa-bench --build tok=/tmp/s37t/tok/fa-bench --rounds 3 --deadline 330 --out $OUT/ab \
    --problem "$(s 2 16 8192 128 0,1)" --problem "$(s 1 16 16384 128 0)" --problem "$(s 4 16 4096 128 0)" \
    --problem "$(s 2 32 8192 64 0,1)" --problem "$(s 1 32 16384 64 0,1)" --problem "$(s 2 16 8192 256 0,1)" > $OUT/ab.txt 2>&1
echo "ab rc=$? at $SECONDS s"; grep -E "geometric|round" $OUT/ab.txt
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $OUT/smi.txt
