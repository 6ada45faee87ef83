#!/usr/bin/env bash
# Session 15 call 14: the final commit's binaries (s15f = 40d0802: plan_launch's review refactor,
# no kernel change since s15d): GPU tests on the whole matrix, and scripts/sanitize.sh's memcheck
# on rung 9 (its short causal groups: Sq 300 x Sk 777 x 2 heads) for bf16.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/f
tar -xJf .deps/s15f.tar.xz -C /tmp/f
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/smi.txt
( time timeout 240 /tmp/f/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -3
DTYPES=BFloat16 timeout 200 scripts/sanitize.sh /tmp/f/fa-bench wgmma_persistent > $L/sanitize.log 2>&1; echo "sanitize rc=$?"; tail -12 $L/sanitize.log
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
