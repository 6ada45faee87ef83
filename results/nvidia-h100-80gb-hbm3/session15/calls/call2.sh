#!/usr/bin/env bash
# Session 15 call 2: binary s15b (the causal tile order from 2,048 keys on: kLptMinKeys, after call
# 1's short-sequence losses; the long-key-rows GPU test with 3 causal heads, so that a group of 2
# head slots and a last group of 1 run on every instance). GPU tests; then the first half of the
# CuTe DSL site is kept in /tmp/stash for call 3 (a 64 MiB carry limit per call).
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b /tmp/stash
tar -xJf .deps/s15b.tar.xz -C /tmp/b
cp .whl/cute/p1/cute_site.part.aa /tmp/stash/
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 300 /tmp/b/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -3
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
