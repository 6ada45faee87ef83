#!/usr/bin/env bash
# Session 6 call 6: stash CuTe part 1; GPU tests and compute-sanitizer (mma, bf16 + fp16) of the final rung 3.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b /tmp/stash
cp .whl/p1/cute_site.part.aa /tmp/stash/ &
tar -xJf .deps/bin.tar.xz -C /tmp/b; B=/tmp/b
export PATH=/usr/local/cuda/bin:$PATH
timeout 200 $B/fa_gpu_tests "~[large]" > $L/gpu_tests.log 2>&1; tail -n 3 $L/gpu_tests.log
DTYPES="BFloat16 Float16" timeout 150 scripts/sanitize.sh $B/fa-bench mma > $L/sanitize.log 2>&1
wait
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
