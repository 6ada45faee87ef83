#!/usr/bin/env bash
# Session 15 call 8 (right after call 7, same machine): binary s15d (the commit). The FA2 grid (scripts/sweep.sh
# --grid fa2: rungs 3-9, FA2 = SDPA FLASH_ATTENTION, cuDNN 9.19, FA4 4.0.0b36 on CuTe DSL 4.8.1 with
# quack-kernels 0.6.5, apache-tvm-ffi 0.1.15.post2, torch-c-dlpack-ext 0.1.5), 5 + 30 launches for
# everyone, no idle warm-up on either side (--gpu_warmup_time 0: bursts), clocks on every row; then
# issue #13's comparison as call 4 (default timing rule on both sides).
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b /tmp/site
tar -xJf /tmp/stash/s15d-bench.tar.xz -C /tmp/b; N=/tmp/b/fa-bench  # stashed by call 7b (carry limit)
export PATH=/usr/local/cuda/bin:$PATH
cat /tmp/stash/cute_site.part.aa .whl/cute/p2/cute_site.part.ab | xz -d | tar -x -C /tmp/site || echo "CuTe site unpack failed"
python3 -c "import google.protobuf" 2>/dev/null && rm -rf /tmp/site/google /tmp/site/protobuf-*.dist-info
pip install --quiet --no-deps --no-index --target /tmp/site .whl/fa4/*.whl > $L/pip.log 2>&1 || echo "fa4 install failed"
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
python3 -c "import flash_attn.cute, torch; print('fa4 import ok')" >> $L/pip.log 2>&1; tail -3 $L/pip.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
KERNELS=mma,warp_specialized,wgmma_tma,wgmma_ws,wgmma_overlap,wgmma_persistent PEERS=fa2,cudnn,fa4 \
    FA_BENCH_ARGS="--iterations 30 --warmup_iterations 5 --warmup_time 0 --gpu_warmup_time 0" \
    PEERS_ARGS="--iterations 30 --warmup_iterations 5 --warmup_time 0 --gpu_warmup_time 0" timeout 420 scripts/sweep.sh --grid fa2 $N $L/fa2 > $L/sweep.log 2>&1
echo "sweep rc=$?"; tail -n 2 $L/sweep.log
# Issue #13's comparison (call 4's): seed 001's CuTe DSL example against the mma.sync rungs, default rule.
D64="--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64"
A="--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
C="--batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
fb() { for s in "$D64" "$A" "$C"; do timeout 90 $N $s --kernel mma,warp_specialized --causal 0,1 --csv $L/mma.csv >> $L/fa.log 2>&1; done; }
cute() { for s in "$D64" "$A" "$C"; do
  timeout 120 python3 scripts/peers.py --fa-bench $N --backends cute --cute-example .whl/cute/flash_attention_v2.py $s --causal 0,1 \
    --csv $L/mma.csv >> $L/cute.log 2>&1; echo "cute rc=$?"; done; }
fb; cute; cute; fb
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
