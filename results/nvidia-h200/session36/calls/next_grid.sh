#!/usr/bin/env bash
# Prepared in session 36, not run: issue #10's FA2 grid on HEAD 29ecfd5 (rung 9's 128-key tile with the
# exponent arguments first, session 36 call E) with FA4 and cuDNN, after next_stash.sh ran three times on
# the same machine; carries .exp/s35site/p4. HEAD_DIMS=128 first (the rows the change moves: head_dim 128
# causal), then the same script with HEAD_DIMS=64 and HEAD_DIMS=256 on the same machine (session 33's call
# 4c and session 35's calls D-E took the whole grid in two calls). As session 35 call D otherwise.
set -uo pipefail
L=$OUT/logs; mkdir -p $L
tar -xJf /tmp/stash/s36g.tar.xz -C /tmp; N=/tmp/s36g/fa-bench
[[ -d /tmp/site29 ]] || { cat /tmp/stash/site29.q00 /tmp/stash/site29.q01 /tmp/stash/site29.q02 .exp/s35site/p4/site29.q03 | xz -d | tar -x -C /tmp || echo "site unpack failed"; }
python3 -c "import google.protobuf" 2>/dev/null && rm -rf /tmp/site29/google /tmp/site29/protobuf-*.dist-info
export PYTHONPATH=/tmp/site29:/tmp/site29/nvidia_cutlass_dsl/dsl_packages
python3 -c "import flash_attn.cute; print('fa4 import ok')" 2>&1 | tail -1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
HEAD_DIMS=${HEAD_DIMS:-128} KERNELS=wgmma_overlap,wgmma_persistent PEERS=cudnn,fa4 FA_BENCH_ARGS="--skip_ref_check" PEERS_ARGS="" \
    timeout 540 scripts/sweep.sh --grid fa2 $N $L/fa2 > $L/sweep.log 2>&1
echo "sweep rc=$? at $SECONDS s"; tail -n 3 $L/sweep.log
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
