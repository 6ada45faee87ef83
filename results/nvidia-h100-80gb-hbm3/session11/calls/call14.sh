#!/usr/bin/env bash
# Session 11 call 14 (the final binary, commit f0556c8): Nsight Compute at the base clock
# (calls/ncu_metrics.txt) on rungs 7 and 9 at call 5's shapes, for the FA4 numbers of call 6.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/new /tmp/stash
tar -xJf .deps/final.tar.xz -C /tmp/new; N=/tmp/new/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
M=$(cat results/nvidia-h100-80gb-hbm3/session11/calls/ncu_metrics.txt)
prof() {  # tag, fa-bench shape flags
  local tag=$1; shift
  timeout 120 ncu --metrics "$M" --print-metric-instances values --clock-control base --nvtx \
    --nvtx-include "regex:fa-bench@.*/" $N --profile --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 "$@" > $L/ncu_fabench_$tag.txt 2>&1
  echo "ncu fa-bench $tag rc=$?"
}
prof d64_c0 --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --num_head 32 --head_dim 64 --causal 0
prof d64_c1 --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --num_head 32 --head_dim 64 --causal 1
prof d128_c0 --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --num_head 16 --head_dim 128 --causal 0
prof d128_c1 --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --num_head 16 --head_dim 128 --causal 1

cd $OUT && tar -czf logs.tgz logs && rm -rf logs
