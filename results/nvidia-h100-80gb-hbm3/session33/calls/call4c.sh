#!/usr/bin/env bash
# Session 33 call 4c (after calls 4a-4b on the same machine stashed the build and the site's other two parts):
# issue #10's FA2 grid on the build to commit (head_dim 64's unmasked key loop on rungs 7 and 9),
# as session 31's call 5 (session 30's call 4): scripts/sweep.sh --grid fa2, interleaved
# (at each point fa-bench's call and peers.py's back to back, who goes first alternating), cuDNN 9.19
# (SDPA CUDNN_ATTENTION) and FA4 4.0.0b36 on the pipelined peers harness, the default timing rule
# everywhere, fa-bench without its reference check (call 4a's GPU tests cover the build).
set -uo pipefail
L=$OUT/logs; mkdir -p $L
tar -xJf /tmp/stash/s33fin.tar.xz -C /tmp; N=/tmp/fin4/fa-bench
cat /tmp/stash/site29.part.aa .exp/s29w2/site29.part.ab /tmp/stash/site29.part.ac | xz -d | tar -x -C /tmp || echo "site unpack failed"
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
