#!/usr/bin/env bash
# Session 8 call 6: rung 9 with every consumer thread arriving on q_empty (call 5's racecheck
# hazards were the 31 non-arriving lanes per warp): compute-sanitizer on rung 9, d256 and d128.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/new
tar -xJf .deps/bin.tar.xz -C /tmp/new; N=/tmp/new/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
DTYPES=BFloat16 HEAD_DIMS="256 128 64" timeout 150 scripts/sanitize.sh $N wgmma_persistent > $L/sanitize_rung9.log 2>&1
echo "rung 9 rc=$?"; grep -c clean $L/sanitize_rung9.log; grep FAILED $L/sanitize_rung9.log | head -3
$N --kernel wgmma_persistent --head_dim 64,128,256 --seqlen_q 300,2048 --seqlen_k 777,2048 --causal 0,1 --iterations 5 \
    --batch_size 2 --num_head 4 > $L/check.log 2>&1; echo "check rc=$?"; grep -c PASS $L/check.log
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
