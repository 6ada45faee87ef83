#!/usr/bin/env bash
# Session 16 call 3: the SASS-level view behind call 2's counters (issue #10, short sequences):
# ncu --set full reports (base clock, one launch) of rung 9 (head = c730582) and cuDNN 9.19 at
# 32x16x512x128 non-causal, 32x32x512x64 causal and 32x16x512x256 non-causal, exported as per-
# instruction SASS tables (--page source --print-source sass) and details pages.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/x /tmp/r
tar -xJf .exp/s16a.tar.xz -C /tmp/x fa-bench-head
export PATH=/usr/local/cuda/bin:$PATH
H=/tmp/x/fa-bench-head
CALLS=results/nvidia-h100-80gb-hbm3/session16/calls
prof() {  # name, B, H, S, D, causal
  timeout 120 ncu --nvtx --nvtx-include "regex:fa-bench@.*/" --set full --import-source no -o /tmp/r/r9_$1 \
    $H --profile --kernel wgmma_persistent --batch_size $2 --num_head $3 --seqlen_q $4 --seqlen_k $4 \
    --head_dim $5 --causal $6 > $L/ncu_r9_$1.out 2>&1
  timeout 120 ncu -k regex:"sdpa|fmha|flash|attn|fprop" --launch-skip 2 --launch-count 1 --set full -o /tmp/r/cudnn_$1 \
    python3 $CALLS/cudnn_one.py $2 $3 $4 $5 $6 > $L/ncu_cudnn_$1.out 2>&1
  for n in r9_$1 cudnn_$1; do
    ncu --import /tmp/r/$n.ncu-rep --page source --csv --print-source sass > $L/$n.sass.csv 2>&1
    ncu --import /tmp/r/$n.ncu-rep --page details --print-details all > $L/$n.details.txt 2>&1
  done
  echo "prof $1 done"
}
prof d128nc 32 16 512 128 0; prof d64c 32 32 512 64 1; prof d256nc 32 16 512 256 0
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
