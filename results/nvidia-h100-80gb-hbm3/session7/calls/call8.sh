#!/usr/bin/env bash
# Session 7 call 8: which cuBLASLt FP8 GEMM configurations this H100 / CUDA 13.0 runs (issue #11's
# --calibrate figure), and cuBLASLt's own log of fa-bench --calibrate's FP8 GEMM.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/base
tar -xJf .deps/bin.tar.xz -C /tmp/base
timeout 60 .deps/probe > $L/fp8_probe.log 2>&1; cat $L/fp8_probe.log
CUBLASLT_LOG_LEVEL=2 timeout 90 /tmp/base/fa-bench --calibrate --peaks_file $L/peaks.csv > $L/calibrate.log 2>&1
grep -v "^$" $L/calibrate.log | tail -n 8
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
