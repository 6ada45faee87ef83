#!/usr/bin/env bash
# Session 7 call 6: stash the CuTe site's first half for call 7; GPU tests of the final binary
# (bin: rung 3 as committed, the one-round-trip combine launched as a programmatic dependent).
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/base /tmp/stash
cp .whl/p1/cute_site.part.aa /tmp/stash/ &
tar -xJf .deps/bin.tar.xz -C /tmp/base
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/smi.txt
timeout 240 /tmp/base/fa_gpu_tests "~[large]" > $L/gpu_tests_final.log 2>&1; echo "gpu tests rc=$?"; tail -n 2 $L/gpu_tests_final.log
DTYPES="BFloat16 Float16" FA_ARGS="--num_splits 7" timeout 150 scripts/sanitize.sh /tmp/base/fa-bench mma,wgmma_tma,wgmma_overlap > $L/sanitize_splits_final.log 2>&1; echo "sanitize splits rc=$?"
wait
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
