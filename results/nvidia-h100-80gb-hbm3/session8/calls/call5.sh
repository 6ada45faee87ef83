#!/usr/bin/env bash
# Session 8 call 5: rung 9 with the work index kept in a register (no epilogue re-read of the work
# slot, which racecheck flagged at d256 in call 4a): compute-sanitizer at d256 and d128, then the
# GPU tests of this final binary.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/new
tar -xJf .deps/bin.tar.xz -C /tmp/new; N=/tmp/new/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
DTYPES="BFloat16 Float16" HEAD_DIMS="256 128" timeout 150 scripts/sanitize.sh $N wgmma_persistent > $L/sanitize_rung9.log 2>&1
echo "rung 9 rc=$?"; grep -c clean $L/sanitize_rung9.log; grep FAILED $L/sanitize_rung9.log | head -3
timeout 200 /tmp/new/fa_gpu_tests "~[large]" > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; tail -n 3 $L/gpu_tests.log
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
