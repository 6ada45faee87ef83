#!/usr/bin/env bash
# Session 10 call 6 (first of a pair: stashes the CuTe DSL site's first half for call 7's FA4):
# Nsight Compute at ncu's base clock (--clock-control base, so cycles compare across kernels) on
# rungs 7 and 9 and on cuDNN, 2x16x8192x128 bf16 non-causal and causal, one launch each: cycles,
# instructions, pipe utilization, shared-memory wavefronts, instructions per opcode and the
# warp stall reasons (calls/ncu_metrics.txt).
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/new /tmp/stash
cp .whl/p1/cute_site.part.aa /tmp/stash/ &
tar -xJf .deps/bin.tar.xz -C /tmp/new; N=/tmp/new/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
M=$(cat results/nvidia-h100-80gb-hbm3/session10/calls/ncu_metrics.txt)
for c in 0 1; do
  timeout 150 ncu --metrics "$M" --print-metric-instances values --clock-control base --nvtx \
    --nvtx-include "regex:fa-bench@.*/" $N --profile --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 \
    --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --num_head 16 --head_dim 128 --causal $c > $L/ncu_fabench_c$c.txt 2>&1
  echo "ncu fa-bench c$c rc=$?"
  timeout 150 ncu --metrics "$M" --print-metric-instances values --clock-control base --nvtx --nvtx-include "peer/" \
    python3 results/nvidia-h100-80gb-hbm3/session10/calls/peer_once.py cudnn $c > $L/ncu_cudnn_c$c.txt 2>&1
  echo "ncu cudnn c$c rc=$?"
done
wait
ls -la /tmp/stash
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
