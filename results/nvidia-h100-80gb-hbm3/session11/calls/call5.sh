#!/usr/bin/env bash
# Session 11 call 5 (first of a pair: stashes the CuTe DSL site's first half for call 6's FA4;
# binary of commit 23b4101): Nsight Compute at the base clock (calls/ncu_metrics.txt: session 10's
# list plus L2 throughput) on rungs 7 and 9, 2x32x8192x64 causal and not and 2x16x8192x128 non-causal.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/new /tmp/stash
cp .whl/p1/cute_site.part.aa /tmp/stash/ &
tar -xJf .deps/bin.tar.xz -C /tmp/new; N=/tmp/new/fa-bench
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
wait
ls -la /tmp/stash
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
