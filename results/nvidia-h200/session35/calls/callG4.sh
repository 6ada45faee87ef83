#!/usr/bin/env bash
# Session 35 call G4 (after G1-G3 on the same machine, carrying the site's fourth part): where issue #10's head_dim-128 gap to FA4 is, per clock.
# Nsight Compute (session 11's metric list, calls/ncu_metrics.txt there; clocks left alone, --clock-control
# none, as the device notes ask: cycles and instructions do not depend on the clock) on one launch of FA4
# 4.0.0b36 (session 11's peer_once.py, after two untimed launches) and of rungs 7 and 9 at 2x16x8192x128
# non-causal (the grid's worst point, 0.971x in call D) and 1x16x16384x128 non-causal.
set -uo pipefail
L=$OUT/logs; mkdir -p $L
tar -xJf /tmp/stash/s35b.tar.xz -C /tmp; N=/tmp/s35/fa-bench
cat /tmp/stash/site29.q00 /tmp/stash/site29.q01 /tmp/stash/site29.q02 .exp/s35site/p4/site29.q03 | xz -d | tar -x -C /tmp || echo "site unpack failed"
python3 -c "import google.protobuf" 2>/dev/null && rm -rf /tmp/site29/google /tmp/site29/protobuf-*.dist-info
export PYTHONPATH=/tmp/site29:/tmp/site29/nvidia_cutlass_dsl/dsl_packages
export PATH=/usr/local/cuda/bin:$PATH
C=results/nvidia-h100-80gb-hbm3/session11/calls
M=$(cat $C/ncu_metrics.txt)
echo "unpacked at $SECONDS s"
for args in "2 16 8192 s8k" "1 16 16384 s16k"; do
  set -- $args
  timeout 100 ncu --metrics "$M" --print-metric-instances values --clock-control none --nvtx --nvtx-include "peer/" \
    python3 $C/peer_once.py fa4 0 $1 $2 $3 128 > $L/ncu_fa4_$4.txt 2>&1
  echo "ncu fa4 $4 rc=$? at $SECONDS s"
  timeout 100 ncu --metrics "$M" --print-metric-instances values --clock-control none --nvtx --nvtx-include "regex:fa-bench@.*/" \
    $N --profile --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --batch_size $1 --num_head $2 --seqlen_q $3 \
    --seqlen_k $3 --head_dim 128 --causal 0 > $L/ncu_fabench_$4.txt 2>&1
  echo "ncu fa-bench $4 rc=$? at $SECONDS s"
done
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
