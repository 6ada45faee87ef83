#!/usr/bin/env bash
# Session 38 call D: the decode grid on the H200 (never run there; results/nvidia-h100-80gb-hbm3/session11
# call 16 ran it on the H100): scripts/sweep.sh --grid decode (the copy calibrated first; 64x1x8192,
# 8x1x32768, 16x16x8192, the B = 1 series 1k..256k and GQA prefill 4x8192x8192 causal 0/1; 32 heads,
# K/V heads 32 and 8, head_dim 128) with the top rungs (7, 9) and FA2, cuDNN 9.19, FA4 4.0.0b36 from
# session 35's site, interleaved point by point, fa-bench's default time rule and reference checks on
# both sides. HEAD's device code (.exp/s36g.tar.xz, SASS md5 631947ec...). After session 37's
# calls/stash.sh three times on the same machine (carry [".exp/s36g.tar.xz", ".exp/s35site/p1"], then
# p2, then p3); this call carries .exp/s35site/p4.
set -uo pipefail
L=$OUT/logs; mkdir -p $L
tar -xJf /tmp/stash/s36g.tar.xz -C /tmp; N=/tmp/s36g/fa-bench
[[ -d /tmp/site29 ]] || { cat /tmp/stash/site29.q00 /tmp/stash/site29.q01 /tmp/stash/site29.q02 .exp/s35site/p4/site29.q03 | xz -d | tar -x -C /tmp || echo "site unpack failed"; }
python3 -c "import google.protobuf" 2>/dev/null && rm -rf /tmp/site29/google /tmp/site29/protobuf-*.dist-info
export PYTHONPATH=/tmp/site29:/tmp/site29/nvidia_cutlass_dsl/dsl_packages
python3 -c "import flash_attn.cute; print('fa4 import ok')" 2>&1 | tail -1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
KERNELS=wgmma_overlap,wgmma_persistent PEERS=fa2,cudnn,fa4 timeout 560 \
    scripts/sweep.sh --grid decode $N $L/decode > $L/sweep.log 2>&1
echo "sweep rc=$? at $SECONDS s"; tail -n 3 $L/sweep.log
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
