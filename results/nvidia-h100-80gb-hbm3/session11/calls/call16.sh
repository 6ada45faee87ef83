#!/usr/bin/env bash
# Session 11 call 16 (right after call 15; the final binary, commit f0556c8): issue #9's decode grid
# (scripts/sweep.sh --grid decode: the copy calibrated first, the split-KV rungs 3, 5, 6, 7, 9 and
# FA2, cuDNN 9.19, FA4 4.0.0b36; fa-bench's default time rule on both sides; GQA prefill 4x32(kv 8
# and 32)x8192x128 causal and not is in the grid), as session 9's call 6 ran it.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/new /tmp/site
tar -xJf .deps/final.tar.xz -C /tmp/new; N=/tmp/new/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
cat /tmp/stash/cute_site.part.aa .whl/p2/cute_site.part.ab | tar -xJ -C /tmp/site || echo "CuTe site unpack failed"
pip install --quiet --no-deps --no-index --target /tmp/site .whl/p2/fa4/*.whl > $L/pip.log 2>&1 || echo "fa4 install failed"
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
python3 -c "import flash_attn.cute, torch; print('fa4 import ok')" >> $L/pip.log 2>&1; tail -1 $L/pip.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$N --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1
KERNELS=mma,wgmma_tma,wgmma_ws,wgmma_overlap,wgmma_persistent PEERS=fa2,cudnn,fa4 timeout 500 \
    scripts/sweep.sh --grid decode $N $L/decode > $L/sweep.log 2>&1
echo "sweep rc=$?"; tail -n 2 $L/sweep.log
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
