#!/usr/bin/env bash
# Session 17 call 11: where rung 9's warps wait at 32x16x512x128 non-causal (0.93x cuDNN): ncu
# source counters (warp stall samples per SASS line) of one launch of s17x (b429d1a's kernels).
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/x
tar -xJf .exp/s17x.tar.xz -C /tmp/x
export PATH=/usr/local/cuda/bin:$PATH
N=/tmp/x/fa-bench
timeout 200 ncu --nvtx --nvtx-include "regex:fa-bench@.*/" --section SourceCounters --section WarpStateStats \
  --import-source no -o /tmp/r9 $N --profile --kernel wgmma_persistent --batch_size 32 --num_head 16 \
  --seqlen_q 512 --seqlen_k 512 --head_dim 128 --causal 0 > $L/ncu.out 2>&1; echo "ncu rc=$?"
ncu --import /tmp/r9.ncu-rep --page source --csv --print-source sass > $L/sass.csv 2>&1
ncu --import /tmp/r9.ncu-rep --page details > $L/details.txt 2>&1
wc -l $L/sass.csv; head -c 600 $L/sass.csv
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
