#!/usr/bin/env bash
# Session 29 call 4d (right after 4c, same machine, the site 4c unpacked): issue #10's FA2 grid on the
# committed kernels (scripts/sweep.sh --grid fa2: the top rungs wgmma_overlap and wgmma_persistent; cuDNN 9.19
# = SDPA CUDNN_ATTENTION and FA4 4.0.0b36 on the pipelined peers harness), every row on the default timing
# rule (steady state at the 700 W cap), fa-bench without its reference check (the GPU tests cover it).
set -uo pipefail
L=$OUT/logs; mkdir -p $L
N=/tmp/base/fa-bench
export PYTHONPATH=/tmp/site29:/tmp/site29/nvidia_cutlass_dsl/dsl_packages
python3 -c "import flash_attn.cute; print('fa4 import ok')" 2>&1 | tail -1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
KERNELS=wgmma_overlap,wgmma_persistent PEERS=cudnn,fa4 FA_BENCH_ARGS="--skip_ref_check" PEERS_ARGS="" \
    timeout 560 scripts/sweep.sh --grid fa2 $N $L/fa2 > $L/sweep.log 2>&1
echo "sweep rc=$? at $SECONDS s"; tail -n 3 $L/sweep.log
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
