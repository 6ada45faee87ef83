#!/usr/bin/env bash
# Session 37 call D (a fresh machine; fa-bench builds only). The lazy row max (FA4's conditional
# rescale, head_dim 256's kLazyMax since session 22) on the head_dim-128 and head_dim-64 tiles
# (WgmmaTileD128 with the 160-key and rung 9's 128-key tiles that derive from it, WgmmaTileD64 with the
# short causal one): a row's max rises only when a tile's exceeds it by more than 8 base-2 logits, and
# rescale_o's warp vote skips O's rescale (64 FMUL a thread and tile at head_dim 128, 32 at 64) when
# no row of the warp moved. At the 700 W cap instructions cost power even where they cost no issue
# slot (the reason the tile kept the eager max). Build lazy (.exp/s37d.tar.xz; lazy_max.patch) against
# base (HEAD's device code, .exp/s36g.tar.xz): its GPU tests, compute-sanitizer on rungs 7 and 9 at
# head_dim 64 and 128, then ab.py, three rounds (one with the reference check).
set -uo pipefail
tar -xJf .exp/s36g.tar.xz -C /tmp; tar -xJf .exp/s37d.tar.xz -C /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $OUT/smi.txt
( time timeout 150 /tmp/s37d/lazy/fa_gpu_tests "~[large]" ) > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(grep -E 'assertions|FAILED' $OUT/gpu_tests.log | tail -2 | tr '\n' ' ') at $SECONDS s"
DTYPES="BFloat16" HEAD_DIMS="64 128" timeout 90 scripts/sanitize.sh /tmp/s37d/lazy/fa-bench wgmma_overlap,wgmma_persistent > $OUT/sanitize.log 2>&1
echo "sanitize rc=$? $(grep -c clean $OUT/sanitize.log) clean at $SECONDS s"
/tmp/s36g/fa-bench --kernel wgmma_overlap --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
s() { echo "--kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --batch_size $1 --num_head $2 --seqlen_q $3 --seqlen_k $3 --head_dim $4 --causal $5"; }
python3 scripts/ab.py --build base=/tmp/s36g/fa-bench --build lazy=/tmp/s37d/lazy/fa-bench \
    --rounds 3 --deadline 300 --out $OUT/ab \
    --problem "$(s 2 16 8192 128 0,1)" --problem "$(s 1 16 16384 128 0)" --problem "$(s 4 16 4096 128 0)" \
    --problem "$(s 2 32 8192 64 0,1)" --problem "$(s 1 32 16384 64 0,1)" > $OUT/ab.txt 2>&1
echo "ab rc=$? at $SECONDS s"; grep -E "geometric|round" $OUT/ab.txt
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $OUT/smi.txt
