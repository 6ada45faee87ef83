#!/usr/bin/env bash
# Session 42 call F: where rung 10's split kernel spends a short decode launch, against cuDNN's, for the
# next session: Nsight Compute's launch, occupancy, scheduler, warp-state and memory sections on one
# launch of each kernel (warm caches, clocks free) at 1x32x1x1024x64 and 1x32x1x2048x128, 8 K/V heads
# (the landed build s42h: 8 and 16 splits). Carry [".exp/s42e.tar.xz"] (holds s42h).
set -uo pipefail
tar -xJf .exp/s42e.tar.xz -C /
N=/tmp/s42h/fa-bench
mkdir -p $OUT/f
$N --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
SECT="--section LaunchStats --section Occupancy --section SchedulerStats --section WarpStateStats --section MemoryWorkloadAnalysis --section SpeedOfLight"
for prob in "--seqlen_k 1024 --head_dim 64" "--seqlen_k 2048 --head_dim 128"; do
  timeout 60 ncu --nvtx --nvtx-include "regex:fa-bench@.*/" --cache-control none --clock-control none $SECT --csv --page details \
      $N --profile --kernel mma_decode --batch_size 1 --seqlen_q 1 --num_head 32 --num_head_kv 8 $prob >> $OUT/f/ncu_fa.csv 2>> $OUT/f/ncu_fa.err
  echo "fa $prob rc=$? at $SECONDS s"
done
timeout 90 ncu --nvtx --nvtx-include "regex:sdpa.*/" --cache-control none --clock-control none $SECT --csv --page details \
    python3 results/nvidia-h200/session42/calls/f_short_decode_ncu.py > $OUT/f/ncu_cudnn.csv 2> $OUT/f/ncu_cudnn.err
echo "cudnn rc=$? at $SECONDS s"
cd $OUT && tar -czf f.tgz f && rm -rf f
