#!/usr/bin/env bash
# Session 20 call 1: where rung 9's energy goes at 32x16x512x128 (session 19: 110.6 mJ a launch
# against cuDNN's 76.0, 693 W at 1,534 MHz against 612 W at 1,955). Diagnostic builds of rung 9
# (session20/diag.patch, FA_DIAG bits; outputs wrong by design, so no reference check):
#   d1 = each ring slot loaded from global memory only on its first use (the K/V L2 traffic gone,
#   the data still real), d2 = Q loaded only into each Q buffer's first use, d4 = no TMA store of
#   O, d7 = all three (the tensor-core / softmax / shared-memory work alone). Steady state (3 s
#   warm-up, >= 1 s timed: energy_mj measured), two rounds, order alternating; cuDNN and rung 7 as
#   references; d128 1x16x16384 as the long-row control. Then ncu on cuDNN's d128 512 kernel: its
#   launch configuration (cluster), L2 read sectors and TMA instructions.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/d
tar -xJf .exp/s20diag.tar.xz -C /tmp/d
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
B=/tmp/d/fa-bench-base
$B --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
W="--warmup_time 3 --gpu_warmup_time 3 --min_time 1"
S512="--batch_size 32 --num_head 16 --seqlen_q 512 --seqlen_k 512 --head_dim 128"
S16K="--batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
run() {  # variant, shape
  timeout 60 /tmp/d/fa-bench-$1 $2 --kernel wgmma_persistent $W --skip_ref_check --csv $L/v_$1.csv >> $L/fa.log 2>&1
}
for round in 1 2; do
  order="base d1 d2 d4 d7"; [[ $round == 2 ]] && order="d7 d4 d2 d1 base"
  for v in $order; do run $v "$S512"; done
  timeout 60 $B $S512 --kernel wgmma_overlap $W --skip_ref_check --csv $L/v_rung7.csv >> $L/fa.log 2>&1
  timeout 90 python3 scripts/peers.py --backends cudnn $S512 --causal 0 $W --fa-bench $B --csv $L/cudnn.csv >> $L/peers.log 2>&1
  for v in base d1 d7; do run $v "$S16K"; done
  timeout 90 python3 scripts/peers.py --backends cudnn $S16K --causal 0 $W --fa-bench $B --csv $L/cudnn.csv >> $L/peers.log 2>&1
  echo "round $round done at $SECONDS s" >> $L/fa.log
done
timeout 150 ncu -k regex:"sdpa|fmha|flash|attn|fprop" --launch-skip 2 --launch-count 1 --section LaunchStats \
  --section SourceCounters --metrics lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,gpu__time_duration.sum \
  -o /tmp/cudnn512 python3 results/nvidia-h100-80gb-hbm3/session16/calls/cudnn_one.py 32 16 512 128 0 > $L/ncu_cudnn.out 2>&1
ncu --import /tmp/cudnn512.ncu-rep --print-details all > $L/ncu_cudnn_details.txt 2>&1
ncu --import /tmp/cudnn512.ncu-rep --page source --csv --print-source sass 2>/dev/null | grep -i -E "UTMA|UBLKCP|SYNCS|MULTICAST" > $L/ncu_cudnn_tma.csv
python3 - $L <<'PY'
import csv, sys, statistics
L = sys.argv[1]
import os
rows = [dict(r, note=v) for v in ('base', 'd1', 'd2', 'd4', 'd7', 'rung7', 'cudnn')
        for r in (csv.DictReader(open(f'{L}/v_{v}.csv' if v != 'cudnn' else f'{L}/cudnn.csv'))
                  if os.path.exists(f'{L}/v_{v}.csv' if v != 'cudnn' else f'{L}/cudnn.csv') else [])]
for sq in ('512', '16384'):
    for v in ('base', 'd1', 'd2', 'd4', 'd7', 'rung7', 'cudnn'):
        rs = [r for r in rows if r['seqlen_q'] == sq and r['note'] == v and r['tflops']]
        if not rs: continue
        m = lambda c: statistics.median(float(r[c]) for r in rs if r[c])
        print(f"S={sq} {v:6s} n={len(rs)} {m('tflops'):7.1f} TF {m('sm_clock_mean_mhz'):6.0f} MHz {m('power_w_mean'):5.0f} W "
              f"{m('energy_mj'):8.1f} mJ {m('gflop_per_j'):6.0f} GF/J  rounds {[round(float(r['energy_mj']),1) for r in rs if r['energy_mj']]}")
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
