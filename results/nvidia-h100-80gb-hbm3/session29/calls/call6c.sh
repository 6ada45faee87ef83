#!/usr/bin/env bash
# Session 29 call 6c (right after 6a / 6b = call4a.sh, same machine): call 5c again on a fresh machine (does the grid repeat?): issue #10's FA2 grid again, now with
# scripts/sweep.sh's INTERLEAVE (default): at each point fa-bench's call (rungs 7 and 9) and peers.py's (cuDNN
# 9.19 = SDPA CUDNN_ATTENTION, FA4 4.0.0b36) back to back, who goes first alternating, so both sides of a point
# run in the same thermal state (call 4d ran every fa-bench row first: 78-80 C and sw_thermal on fa-bench's
# rows, 68-76 C on the peers'). Default timing rule everywhere, the pipelined peers harness, fa-bench without its
# reference check (the GPU tests cover it).
set -uo pipefail
L=$OUT/logs; mkdir -p $L
tar -xJf .exp/s29c.tar.xz -C /tmp; N=/tmp/base/fa-bench
cat /tmp/stash/site29.part.aa /tmp/stash/site29.part.ab .exp/s29w3/site29.part.ac | xz -d | tar -x -C /tmp || echo "site unpack failed"
python3 -c "import google.protobuf" 2>/dev/null && rm -rf /tmp/site29/google /tmp/site29/protobuf-*.dist-info
export PYTHONPATH=/tmp/site29:/tmp/site29/nvidia_cutlass_dsl/dsl_packages
python3 -c "import flash_attn.cute; print('fa4 import ok')" 2>&1 | tail -1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
KERNELS=wgmma_overlap,wgmma_persistent PEERS=cudnn,fa4 FA_BENCH_ARGS="--skip_ref_check" PEERS_ARGS="" \
    timeout 570 scripts/sweep.sh --grid fa2 $N $L/fa2 > $L/sweep.log 2>&1
echo "sweep rc=$? at $SECONDS s"; tail -n 3 $L/sweep.log
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
