#!/usr/bin/env bash
# Session 11 call 3 (right after call 2, whose machine holds the CuTe DSL site's first half;
# binary of commit 23b4101): the fa2 grid with head_dim 256 (scripts/sweep.sh --grid fa2) for the upper ladder
# (mma .. rung 9) and all three peers (PyTorch FA2, cuDNN 9.19, FlashAttention-4 4.0.0b36), 5 + 30
# launches for everyone, clocks on every row (peers too, since session 10).
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/new /tmp/site
tar -xJf .deps/bin.tar.xz -C /tmp/new; N=/tmp/new/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
cat /tmp/stash/cute_site.part.aa .whl/p2/cute_site.part.ab | tar -xJ -C /tmp/site || echo "CuTe site unpack failed"
pip install --quiet --no-deps --no-index --target /tmp/site .whl/p2/fa4/*.whl > $L/pip.log 2>&1 || echo "fa4 install failed"
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
python3 -c "import flash_attn.cute, torch; print('fa4 import ok')" >> $L/pip.log 2>&1; tail -1 $L/pip.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
KERNELS=mma,warp_specialized,wgmma_tma,wgmma_ws,wgmma_overlap,wgmma_persistent PEERS=fa2,cudnn,fa4 \
    FA_BENCH_ARGS="--iterations 30 --warmup_iterations 5 --warmup_time 0" \
    PEERS_ARGS="--iterations 30 --warmup_iterations 5 --warmup_time 0" timeout 540 scripts/sweep.sh --grid fa2 $N $L/fa2 > $L/sweep.log 2>&1
echo "sweep rc=$?"; tail -n 3 $L/sweep.log
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
