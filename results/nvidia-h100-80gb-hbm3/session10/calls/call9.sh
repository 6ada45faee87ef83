#!/usr/bin/env bash
# Session 10 call 9 (the final binary): issue #9's GQA prefill (4x32(kv 8)x8192x128 bf16, causal
# 0 and 1) against cuDNN 9.19, rungs 7 and 9, three interleaved rounds of 5 + 30 launches for
# everyone, then one round with both sides on their default time-based rule, clocks on every row;
# then the FA2 grid's head_dim-128 and 64 points from 2048 with cuDNN, default rule.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/new
tar -xJf .deps/bin.tar.xz -C /tmp/new; N=/tmp/new/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1
GQA="--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --num_head 32 --num_head_kv 8,32 --head_dim 128 --causal 0,1"
SB="--iterations 30 --warmup_iterations 5 --warmup_time 0"
for round in 1 2 3; do
  $N --dtype BFloat16 --kernel wgmma_overlap,wgmma_persistent --skip_ref_check $SB --csv $L/gqa_burst.csv $GQA >> $L/fa.log 2>&1
  timeout 100 python3 scripts/peers.py --backends cudnn --fa-bench $N --csv $L/gqa_burst.csv $GQA $SB >> $L/peers.log 2>&1
done
$N --dtype BFloat16 --kernel wgmma_overlap,wgmma_persistent --skip_ref_check --csv $L/gqa_default.csv $GQA >> $L/fa.log 2>&1
timeout 100 python3 scripts/peers.py --backends cudnn --fa-bench $N --csv $L/gqa_default.csv $GQA >> $L/peers.log 2>&1
echo "gqa rc=$?"
for S in 2048 4096 8192 16384; do
  for D in 128 64; do
    H=$((D == 64 ? 32 : 16))
    P="--batch_size $((16384 / S)) --seqlen_q $S --seqlen_k $S --num_head $H --head_dim $D --causal 0,1"
    $N --dtype BFloat16 --kernel wgmma_overlap,wgmma_persistent --skip_ref_check --csv $L/grid_default.csv $P >> $L/fa.log 2>&1
    timeout 100 python3 scripts/peers.py --backends cudnn --fa-bench $N --csv $L/grid_default.csv $P >> $L/peers.log 2>&1
  done
done
echo "grid rc=$?"
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
