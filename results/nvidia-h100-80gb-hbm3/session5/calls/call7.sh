#!/usr/bin/env bash
# Session 5 call 7: stash CuTe part 1; GPU tests + mma sanitizers of the candidate tree (two-chain softmax reductions, d64 always rescales).
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b /tmp/stash
cp .whl/p1/cute_site.part.aa /tmp/stash/ && echo stashed
tar -xJf .deps/bin.tar.xz -C /tmp/b; B=/tmp/b
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s)
timeout 200 $B/fa_gpu_tests "~[large]" > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$? t=$(( $(date +%s)-t0 ))"; tail -n 3 $L/gpu_tests.log
DTYPES="BFloat16 Float16" timeout 120 scripts/sanitize.sh $B/fa-bench mma,warp_specialized > $L/sanitize.log 2>&1; echo "sanitize rc=$? t=$(( $(date +%s)-t0 ))"; grep -c " clean" $L/sanitize.log; grep -i fail $L/sanitize.log | head
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
