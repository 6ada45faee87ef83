#!/usr/bin/env bash
# Session 10 call 10 (the final binary; first of a pair: stashes the CuTe DSL site's first half for
# call 11's FA4): GPU tests; compute-sanitizer on the fp16 rows of rungs 5, 6, 7, 9 (call 8 ran the
# bf16 rows of rungs 7 and 9).
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/new /tmp/stash
cp .whl/p1/cute_site.part.aa /tmp/stash/ &
tar -xJf .deps/bin.tar.xz -C /tmp/new; N=/tmp/new/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
( time timeout 150 /tmp/new/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -2
DTYPES=Float16 timeout 200 scripts/sanitize.sh $N wgmma_tma,wgmma_ws,wgmma_overlap,wgmma_persistent > $L/sanitize_fp16.log 2>&1
echo "sanitize rc=$? clean=$(grep -c clean $L/sanitize_fp16.log)"; grep -v -E "clean|n/a" $L/sanitize_fp16.log | head -5
wait
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
