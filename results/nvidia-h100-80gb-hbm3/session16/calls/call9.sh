#!/usr/bin/env bash
# Session 16 call 9: the review's build s16f (visible_keys and the rung 3-4 fragment mask call
# mask.cuh's visible_key_bound instead of writing the rule again; PTX of rungs 2-9 equal to call 8's
# build up to the operand order of one compare): GPU tests on the whole matrix but [large].
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/f
tar -xJf .exp/s16f.tar.xz -C /tmp/f
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/smi.txt
( time timeout 150 /tmp/f/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -3
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
