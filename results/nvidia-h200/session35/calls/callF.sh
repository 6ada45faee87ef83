#!/usr/bin/env bash
# Session 35 call F (a fresh one-chip H200): issue #11's ratio again on another machine, five rounds through ab.py
# (one build, --versus; the reference check in round 1): FP8 against the bf16 top rungs at 4x16x8192x128 and
# 1x16x16384x{128,256}, causal and not, as call A.
set -uo pipefail
L=$OUT/logs; mkdir -p $L
tar -xJf .exp/s35a.tar.xz -C /tmp; N=/tmp/s35/fa-bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$N --kernel wgmma_overlap --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
s() { echo "--batch_size $1 --num_head $2 --seqlen_q $3 --seqlen_k $3 --head_dim $4 --causal 0,1"; }
F8="--kernel wgmma_fp8 --dtype Float8E4M3FN"; BF="--kernel wgmma_overlap,wgmma_persistent --dtype BFloat16"
python3 scripts/ab.py --build s35=$N --rounds 5 --deadline 300 --out $L/ab --versus wgmma_fp8:wgmma_overlap,wgmma_persistent \
    --problem "$F8 $(s 4 16 8192 128)" --problem "$F8 $(s 1 16 16384 128)" --problem "$F8 $(s 1 16 16384 256)" \
    --problem "$BF $(s 4 16 8192 128)" --problem "$BF $(s 1 16 16384 128)" --problem "$BF $(s 1 16 16384 256)" > $L/ab.txt 2>&1
echo "ab rc=$? at $SECONDS s"; grep -E "versus|round" $L/ab.txt
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
