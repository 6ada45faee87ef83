#!/usr/bin/env bash
# Session 25 call 4c (right after 4a / 4b, same machine): s25fin (the committed kernels) on the FA2
# grid (scripts/sweep.sh --grid fa2: rungs 3-9, FA2 = SDPA FLASH_ATTENTION, cuDNN 9.19, FA4
# 4.0.0b36 on CuTe DSL 4.8.1), 5 + 30 launches for everyone, no idle warm-up (bursts), clocks on
# every row: session 19 call 2's script, so the README's Hopper table comes from current kernels.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/x /tmp/site
tar -xJf /tmp/stash/s25fin.tar.xz -C /tmp/x; N=/tmp/x/fin/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
cat /tmp/stash/cute_site.q.aa /tmp/stash/cute_site.q.ab .whl/cute/q3/cute_site.q.ac | xz -d | tar -x -C /tmp/site || echo "CuTe site unpack failed"
python3 -c "import google.protobuf" 2>/dev/null && rm -rf /tmp/site/google /tmp/site/protobuf-*.dist-info
pip install --quiet --no-deps --no-index --target /tmp/site .whl/fa4/*.whl > $L/pip.log 2>&1 || echo "fa4 install failed"
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
python3 -c "import flash_attn.cute, torch; print('fa4 import ok')" >> $L/pip.log 2>&1; tail -3 $L/pip.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
KERNELS=mma,warp_specialized,wgmma_tma,wgmma_ws,wgmma_overlap,wgmma_persistent PEERS=fa2,cudnn,fa4 \
    FA_BENCH_ARGS="--iterations 30 --warmup_iterations 5 --warmup_time 0 --gpu_warmup_time 0" \
    PEERS_ARGS="--iterations 30 --warmup_iterations 5 --warmup_time 0 --gpu_warmup_time 0" timeout 540 scripts/sweep.sh --grid fa2 $N $L/fa2 > $L/sweep.log 2>&1
echo "sweep rc=$? at $SECONDS s"; tail -n 2 $L/sweep.log
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
