#!/usr/bin/env bash
# Session 35 call D (after A-C on the same machine): issue #10's FA2 grid, head_dim 64 and 128 with the default
# problem (sweep.sh HEAD_DIMS=64,128; head_dim 256 in call E), as session 33's call 4c: interleaved, cuDNN 9.19
# (SDPA CUDNN_ATTENTION) and FA4 4.0.0b36 on the pipelined peers harness, the default timing rule everywhere,
# fa-bench without its reference check (call A's GPU tests cover the build); then issue #11's FP8 peer, cuDNN's
# FP8 SDPA (cudnn-frontend 1.26), at its six points with fa-bench's FP8 rung beside it, one round.
set -uo pipefail
L=$OUT/logs; mkdir -p $L
tar -xJf /tmp/stash/s35a.tar.xz -C /tmp; N=/tmp/s35/fa-bench
cat /tmp/stash/site29.part.aa .exp/s29w2/site29.part.ab /tmp/stash/site29.part.ac | xz -d | tar -x -C /tmp || echo "site unpack failed"
python3 -c "import google.protobuf" 2>/dev/null && rm -rf /tmp/site29/google /tmp/site29/protobuf-*.dist-info
mkdir -p /tmp/cfe && python3 -m pip install -q --no-deps --no-index --disable-pip-version-check --target /tmp/cfe /tmp/stash/nvidia_cudnn_frontend-*.whl
export PYTHONPATH=/tmp/site29:/tmp/site29/nvidia_cutlass_dsl/dsl_packages:/tmp/cfe
python3 -c "import flash_attn.cute; print('fa4 import ok')" 2>&1 | tail -1
echo "unpacked at $SECONDS s"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
HEAD_DIMS=64,128 KERNELS=wgmma_overlap,wgmma_persistent PEERS=cudnn,fa4 FA_BENCH_ARGS="--skip_ref_check" PEERS_ARGS="" \
    timeout 430 scripts/sweep.sh --grid fa2 $N $L/fa2 > $L/sweep.log 2>&1
echo "sweep rc=$? at $SECONDS s"; tail -n 3 $L/sweep.log
for sh in "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128" "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128" \
          "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256"; do
  (( SECONDS > 540 )) && { echo "time guard at $SECONDS s"; break; }
  timeout 60 python3 scripts/peers.py --backends cudnn_fp8 --dtype Float8E4M3FN --num_head 16 --causal 0,1 --fa-bench $N --csv $L/fp8_peers.csv $sh >> $L/fp8_peers.log 2>&1
  timeout 40 $N $sh --num_head 16 --causal 0,1 --kernel wgmma_fp8 --dtype Float8E4M3FN --skip_ref_check --csv $L/fp8_peers.csv >> $L/fp8_peers.log 2>&1
done
echo "fp8 peers at $SECONDS s"
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
