#!/usr/bin/env bash
# Session 25 call 1: s25a = 3bb602c (session 24's final kernels). The GPU tests, first the test
# written after session 24's budget was spent (inputs whose row max rises from tile to tile), then
# the whole matrix; and, from session 24 call 2's profile of rung 8 at d128 (4x16x8192, base
# clock), the per-instruction SASS view with its stall samples and the raw metrics, to see where
# a consumer warp's ~2,000 cycles a tile go.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s25a.tar.xz -C /tmp
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 150 /tmp/a/tests/fa_gpu_tests "every kernel matches the reference when the row max rises from tile to tile" ) > $L/gpu_tests_rising.log 2>&1
echo "rising-max test rc=$?"; grep -E "passed|failed|FAILED" $L/gpu_tests_rising.log | tail -5
( time timeout 200 /tmp/a/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests_a.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests_a.log | tail -2
R=results/nvidia-h100-80gb-hbm3/session24/call2/ncu_fp8_d128.ncu-rep
timeout 60 ncu --import $R --page source --csv --print-source sass > $L/ncu_source_sass.csv 2> $L/ncu_source.err; echo "source rc=$? $(wc -l < $L/ncu_source_sass.csv) lines"
timeout 60 ncu --import $R --page raw --csv > $L/ncu_raw.csv 2>&1; echo "raw rc=$?"
timeout 60 ncu --import $R --page details --print-details all > $L/ncu_details_all.txt 2>&1; echo "details rc=$?"
echo "done at $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
