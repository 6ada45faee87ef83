#!/usr/bin/env bash
# Session 10 call 3 (first of a pair: stashes the CuTe DSL site's first half for call 4's FA4):
# Nsight Compute on rung 9 and on cuDNN at 2x16x8192x128 bf16, non-causal and causal, one launch
# each, the card's own clocks (--clock-control none): speed of light, warp states, scheduler,
# instruction mix, so the head_dim-128 gap is looked at per clock.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/new /tmp/stash
cp .whl/p1/cute_site.part.aa /tmp/stash/ &
tar -xJf .deps/bin.tar.xz -C /tmp/new; N=/tmp/new/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
SEC="--section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy"
$N --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1
for c in 0 1; do
  timeout 120 ncu $SEC --clock-control none --nvtx --nvtx-include "regex:fa-bench@.*/" -k regex:wgmma_persistent \
    $N --profile --kernel wgmma_persistent --dtype BFloat16 --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 \
    --num_head 16 --head_dim 128 --causal $c > $L/ncu_rung9_c$c.txt 2>&1; echo "ncu rung9 c$c rc=$?"
done
cat > /tmp/cudnn_one.py <<'PY'
import sys, torch
from torch.nn.attention import sdpa_kernel, SDPBackend
causal = bool(int(sys.argv[1]))
q, k, v = (torch.randn(2, 16, 8192, 128, device="cuda", dtype=torch.bfloat16) for _ in range(3))
with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
    for _ in range(3):
        torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
torch.cuda.synchronize()
PY
for c in 0 1; do
  timeout 150 ncu $SEC --clock-control none -k regex:"sdpa|fmha|flash|attn" --launch-skip 2 -c 1 \
    python3 /tmp/cudnn_one.py $c > $L/ncu_cudnn_c$c.txt 2>&1; echo "ncu cudnn c$c rc=$?"
done
wait
ls -la /tmp/stash
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
