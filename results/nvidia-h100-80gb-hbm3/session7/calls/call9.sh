#!/usr/bin/env bash
# Session 7 call 9: fa-bench --calibrate with the FP8 GEMM without scale pointers (call 8's probe),
# then an FP8 row against that measured peak (--explain).
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/base
tar -xJf .deps/bin.tar.xz -C /tmp/base; B=/tmp/base/fa-bench
timeout 90 $B --calibrate --peaks_file $L/peaks.csv > $L/calibrate.log 2>&1; cat $L/calibrate.log
timeout 60 $B --dtype Float8E4M3FN --kernel wgmma_fp8 --batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 \
  --head_dim 128 --causal 0,1 --peaks_file $L/peaks.csv --explain --csv $L/fp8_row.csv > $L/fp8_row.log 2>&1; tail -n 30 $L/fp8_row.log
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
