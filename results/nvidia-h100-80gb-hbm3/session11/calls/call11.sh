#!/usr/bin/env bash
# Session 11 call 11 (first of a pair: stashes the CuTe DSL site's first half for call 12's FA4;
# the final binary, commit f0556c8): GPU tests; compute-sanitizer bf16 on rungs 7 and 9 at every
# head_dim (rung 9's causal head_dim-64 rows run the short causal tile at these sizes) and fp16
# at head_dim 64.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/new /tmp/stash
cp .whl/p1/cute_site.part.aa /tmp/stash/ &
tar -xJf .deps/bin.tar.xz -C /tmp/new; N=/tmp/new/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
( time timeout 150 /tmp/new/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -2
DTYPES="BFloat16" timeout 110 scripts/sanitize.sh $N wgmma_overlap,wgmma_persistent > $L/sanitize.log 2>&1
DTYPES="Float16" HEAD_DIMS=64 timeout 40 scripts/sanitize.sh $N wgmma_overlap,wgmma_persistent >> $L/sanitize.log 2>&1
echo "sanitize clean=$(grep -c clean $L/sanitize.log) of $(wc -l < $L/sanitize.log)"; grep -v -E "clean|n/a" $L/sanitize.log | head -5
wait
ls -la /tmp/stash
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
