#!/usr/bin/env bash
# Session 5 call 5: stash CuTe part 1; GPU tests + sanitizers of the final tree; ncu validation (crossbar L2->SM) for #14.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b /tmp/stash
cp .whl/p1/cute_site.part.aa /tmp/stash/ && echo stashed
tar -xJf .deps/bin.tar.xz -C /tmp/b; B=/tmp/b
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s)
timeout 200 $B/fa_gpu_tests "~[large]" > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$? t=$(( $(date +%s)-t0 ))"; tail -n 3 $L/gpu_tests.log
DTYPES="BFloat16 Float16" timeout 120 scripts/sanitize.sh $B/fa-bench mma > $L/sanitize_mma.log 2>&1; echo "sanitize rc=$? t=$(( $(date +%s)-t0 ))"; grep -c " clean" $L/sanitize_mma.log; grep -i fail $L/sanitize_mma.log | head
timeout 200 python3 scripts/ncu_profile.py --fa-bench $B/fa-bench --preset validation --out $L/ncu_validation.csv > $L/ncu_validation.log 2>&1; echo "ncu validation rc=$? t=$(( $(date +%s)-t0 ))"
tail -n 40 $L/ncu_validation.log | cut -c1-300
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
