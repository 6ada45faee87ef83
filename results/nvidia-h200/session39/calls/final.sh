#!/usr/bin/env bash
# Session 39 call H (H200): main's final build (.exp/s39d.tar.xz; device SASS identical to the
# prototype's of call A, md5 f108ca35..., host split rules final): the GPU tests, and memcheck /
# synccheck on rung 10 at decode shapes whose split count the final rules choose (8, 33 packed, 4,
# 3 packed).
set -uo pipefail
tar -xJf .exp/s39d.tar.xz -C /; N=/tmp/s39d/fa-bench
( time timeout 150 /tmp/s39d/fa_gpu_tests "~[large]" ) > $OUT/gpu_tests.log 2>&1; echo "gpu tests rc=$? $(grep -E 'assertions|FAILED' $OUT/gpu_tests.log | tail -2 | tr '\n' ' ')"
for tool in memcheck synccheck; do timeout 60 compute-sanitizer --tool $tool --error-exitcode 99 $N --kernel mma_decode --batch_size 1,64 --seqlen_q 1 --seqlen_k 8197 --num_head 32 --num_head_kv 32,8 --head_dim 128 --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $OUT/decode_$tool.log 2>&1; echo "$tool rc=$? $(grep -c PASS $OUT/decode_$tool.log) PASS; splits $(grep -E '^mma_decode' $OUT/decode_$tool.log | awk '{print $11}' | tr '\n' ' ')"; done
