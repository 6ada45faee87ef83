#!/usr/bin/env bash
# Session 16 call 5: s16d = commit f6e4409 (s16c with rung 8's per-key mask back). Rung 8 FP8 causal
# 4x16x8192x128 against head and s16c (call 4's -10 %), two rounds; then ncu --set full SASS tables
# of rung 9 (s16d) and cuDNN at 32x16x512x128 and 32x16x512x256, causal 0 and 1 (what is left of
# the short-sequence gap).
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/x /tmp/c /tmp/d /tmp/r
tar -xJf .exp/s16a.tar.xz -C /tmp/x fa-bench-head; tar -xJf .exp/s16c.tar.xz -C /tmp/c; tar -xJf .exp/s16d.tar.xz -C /tmp/d
export PATH=/usr/local/cuda/bin:$PATH
H=/tmp/x/fa-bench-head; D=/tmp/d/fa-bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$H --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
R="--iterations 30 --warmup_iterations 5 --warmup_time 0 --gpu_warmup_time 0"
F="--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --dtype Float8E4M3FN --kernel wgmma_fp8 --is_causal"
for round in 1 2; do
  order="head c d"; [[ $round == 2 ]] && order="d c head"
  for t in $order; do
    b=$H; [[ $t == c ]] && b=/tmp/c/fa-bench; [[ $t == d ]] && b=$D
    timeout 60 $b $F $R --csv $L/fp8_$t.csv >> $L/fa.log 2>&1
  done
done
for t in head c d; do python3 -c "
import csv,sys; v=[float(r['tflops']) for r in csv.DictReader(open('$L/fp8_$t.csv')) if r['tflops']]; print('fp8 $t', v, r['check'] if 0 else '')"; done
CALLS=results/nvidia-h100-80gb-hbm3/session16/calls
prof() {  # name, B, H, S, D, causal
  timeout 120 ncu --nvtx --nvtx-include "regex:fa-bench@.*/" --set full --import-source no -o /tmp/r/r9_$1 \
    $D --profile --kernel wgmma_persistent --batch_size $2 --num_head $3 --seqlen_q $4 --seqlen_k $4 \
    --head_dim $5 --causal $6 > $L/ncu_r9_$1.out 2>&1
  timeout 120 ncu -k regex:"sdpa|fmha|flash|attn|fprop" --launch-skip 2 --launch-count 1 --set full -o /tmp/r/cudnn_$1 \
    python3 $CALLS/cudnn_one.py $2 $3 $4 $5 $6 > $L/ncu_cudnn_$1.out 2>&1
  for n in r9_$1 cudnn_$1; do
    ncu --import /tmp/r/$n.ncu-rep --page source --csv --print-source sass > $L/$n.sass.csv 2>&1
    ncu --import /tmp/r/$n.ncu-rep --page raw --csv > $L/$n.raw.csv 2>&1
  done
  echo "prof $1 done"
}
prof d128nc 32 16 512 128 0; prof d128c 32 16 512 128 1; prof d256nc 32 16 512 256 0; prof d256c 32 16 512 256 1
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
