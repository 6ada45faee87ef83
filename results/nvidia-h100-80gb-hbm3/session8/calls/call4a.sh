#!/usr/bin/env bash
# Session 8 call 4a: stash the CuTe DSL site's first half for call 4b (FA4 needs it); compute-
# sanitizer on the final binary: rung 9 at d64/d128/d256 (and with 7 splits at d128), and the
# 80-key d256 tile on rungs 5-7.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/new /tmp/stash
cp .whl/p1/cute_site.part.aa /tmp/stash/ &
tar -xJf .deps/bin.tar.xz -C /tmp/new; N=/tmp/new/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
DTYPES=BFloat16 HEAD_DIMS="64 128 256" timeout 200 scripts/sanitize.sh $N wgmma_persistent > $L/sanitize_rung9.log 2>&1
echo "rung 9 rc=$?"
DTYPES=BFloat16 HEAD_DIMS=128 FA_ARGS="--num_splits 7" timeout 100 scripts/sanitize.sh $N wgmma_persistent \
    > $L/sanitize_rung9_splits.log 2>&1; echo "rung 9 splits rc=$?"
DTYPES="BFloat16 Float16" HEAD_DIMS=256 timeout 200 scripts/sanitize.sh $N wgmma_tma,wgmma_ws,wgmma_overlap \
    > $L/sanitize_d256.log 2>&1; echo "d256 rc=$?"
grep -c clean $L/sanitize_*.log; grep -h "FAILED" $L/sanitize_*.log | head
wait
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
