#!/usr/bin/env bash
# Session 6 call 8: stash CuTe part 1; GPU tests and compute-sanitizer (mma, bf16 + fp16) of rung 3 with
# branch-free K/V copies at d64 (one basic block from the barrier to the end of P.V).
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b /tmp/stash
cp .whl/p1/cute_site.part.aa /tmp/stash/ &
tar -xJf .deps/bin.tar.xz -C /tmp/b; B=/tmp/b
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s)
timeout 120 $B/fa_gpu_tests "~[large]" > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$? t=$(( $(date +%s)-t0 ))"; tail -n 3 $L/gpu_tests.log
DTYPES="BFloat16 Float16" timeout 100 scripts/sanitize.sh $B/fa-bench mma > $L/sanitize.log 2>&1; echo "sanitize rc=$? t=$(( $(date +%s)-t0 ))"; grep -c " clean" $L/sanitize.log; grep -iv " clean" $L/sanitize.log | head
wait; ls -la /tmp/stash
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
