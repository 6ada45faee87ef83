#!/usr/bin/env bash
# Session 10 call 7 (right after call 6, whose machine holds the CuTe DSL site's first half):
# the same Nsight Compute metrics on FA4 4.0.0b36's sm90 kernel, 2x16x8192x128 bf16, causal 0 and 1.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/site
export PATH=/usr/local/cuda/bin:$PATH
cat /tmp/stash/cute_site.part.aa .whl/p2/cute_site.part.ab | tar -xJ -C /tmp/site || echo "CuTe site unpack failed"
pip install --quiet --no-deps --no-index --target /tmp/site .whl/p2/fa4/*.whl > $L/pip.log 2>&1 || echo "fa4 install failed"
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
M=$(cat results/nvidia-h100-80gb-hbm3/session10/calls/ncu_metrics.txt)
for c in 0 1; do
  timeout 200 ncu --metrics "$M" --print-metric-instances values --clock-control base --nvtx --nvtx-include "peer/" \
    python3 results/nvidia-h100-80gb-hbm3/session10/calls/peer_once.py fa4 $c > $L/ncu_fa4_c$c.txt 2>&1
  echo "ncu fa4 c$c rc=$?"
done
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
