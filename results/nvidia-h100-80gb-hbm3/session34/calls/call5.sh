#!/usr/bin/env bash
# Session 34 call 5 (issue #11's standing): the committed build (`fin5` = call 1's f8u, SASS md5 5876ab89) against
# session 33's (`fin4`), five rounds through scripts/ab.py: FP8 and the bf16 top rungs (identical code in both
# builds, so ten samples each) at 4x16x8192x128, 1x16x16384x128 and 1x16x16384x256, causal and not.
set -uo pipefail
L=$OUT/logs; mkdir -p $L
for t in s33fin s34f8u; do tar -xJf .exp/$t.tar.xz -C /tmp; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
/tmp/fin4/fa-bench --kernel wgmma_overlap --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
s() { echo "--batch_size $1 --num_head $2 --seqlen_q $3 --seqlen_k $3 --head_dim $4 --causal 0,1"; }
F8="--kernel wgmma_fp8 --dtype Float8E4M3FN"; BF="--kernel wgmma_overlap,wgmma_persistent --dtype BFloat16"
python3 scripts/ab.py --build fin4=/tmp/fin4/fa-bench --build fin5=/tmp/f8u2/fa-bench --rounds 5 --deadline 420 --out $L/ab \
    --problem "$F8 $(s 4 16 8192 128)" --problem "$F8 $(s 1 16 16384 128)" --problem "$F8 $(s 1 16 16384 256)" \
    --problem "$BF $(s 4 16 8192 128)" --problem "$BF $(s 1 16 16384 128)" --problem "$BF $(s 1 16 16384 256)"
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
