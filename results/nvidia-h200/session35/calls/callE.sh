#!/usr/bin/env bash
# Session 35 call E (right after D, same machine, the site already in /tmp/site29): issue #10's FA2 grid at
# head_dim 256 (sweep.sh HEAD_DIMS=256, as call D); then issue #13's comparison as session 32's call 6c: seed 001's
# kernel (CUTLASS main's flash_attention_v2.py, 128x64x128, peers.py --backends cute) against mma (128x64x128)
# and warp_specialized (default tile) at 2x32x8192x64, 4x16x8192x128, 1x16x16384x128, causal 0 and 1, each
# shape's two sides back to back, who goes first alternating by round, two rounds.
set -uo pipefail
L=$OUT/logs; mkdir -p $L
N=/tmp/s35/fa-bench
export PYTHONPATH=/tmp/site29:/tmp/site29/nvidia_cutlass_dsl/dsl_packages:/tmp/cfe
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$N --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
HEAD_DIMS=256 KERNELS=wgmma_overlap,wgmma_persistent PEERS=cudnn,fa4 FA_BENCH_ARGS="--skip_ref_check" PEERS_ARGS="" \
    timeout 230 scripts/sweep.sh --grid fa2 $N $L/fa2 > $L/sweep.log 2>&1
echo "sweep rc=$? at $SECONDS s"; tail -n 3 $L/sweep.log
shapes=("--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64"
        "--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
        "--batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128")
fb() { timeout 100 $N $1 --kernel mma,warp_specialized --causal 0,1 --skip_ref_check --csv $L/mma.csv >> $L/fa.log 2>&1; }
cute() { timeout 150 python3 scripts/peers.py --fa-bench $N --backends cute --cute-example /tmp/stash/flash_attention_v2.py $1 \
    --causal 0,1 --csv $L/cute.csv >> $L/cute.log 2>&1; }
for round in 1 2; do
  for s in "${shapes[@]}"; do
    (( SECONDS > 500 )) && { echo "time guard at $SECONDS s"; break 2; }
    if (( round % 2 )); then fb "$s"; cute "$s"; else cute "$s"; fb "$s"; fi
  done
  echo "round $round at $SECONDS s"
done
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
