#!/usr/bin/env bash
# Session 34 call 6 (issue #13; the session's last 320 s of device time): rung 3 (`mma`) counting its masked key
# tiles with mask.cuh's unmasked_key_tiles (closed form, unit-tested equal to the tile_needs_mask loop) instead of
# the loop (`r3`), against the committed build (`fin5`): two rounds at issue #13's head_dim-64 point and
# 4x16x8192x128, causal and not; then r3's GPU tests.
set -uo pipefail
L=$OUT/logs; mkdir -p $L
for t in s34f8u s34r3; do tar -xJf .exp/$t.tar.xz -C /tmp; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
/tmp/f8u2/fa-bench --kernel mma --iterations 200 --skip_ref_check > /dev/null 2>&1  # warm-up
s() { echo "--batch_size $1 --num_head $2 --seqlen_q $3 --seqlen_k $3 --head_dim $4 --causal 0,1"; }
python3 scripts/ab.py --build fin5=/tmp/f8u2/fa-bench --build r3=/tmp/r3/fa-bench --flags "--kernel mma" --rounds 3 \
    --deadline 110 --timeout 60 --out $L/ab --problem "$(s 2 32 8192 64)" --problem "$(s 4 16 8192 128)"
echo "ab done at $SECONDS s"
( time timeout 75 /tmp/r3/fa_gpu_tests "~[large]" ) > $L/gpu_tests_r3.log 2>&1; echo "gpu tests r3 rc=$? $(grep -E 'assertions|FAILED' $L/gpu_tests_r3.log | tail -2 | tr '\n' ' ') at $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
