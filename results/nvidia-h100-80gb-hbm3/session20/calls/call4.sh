#!/usr/bin/env bash
# Session 20 call 4: where rung 8's (FP8) time and energy go, as call 1 did for rung 9. Diagnostic
# builds (session20/fp8_diag.patch; outputs wrong by design, no reference check): f8 = the producer
# transposes V only into each Vᵀ slot's first use (later tiles read those, stale: the transpose's
# cost gone, its loads kept), f1 = each K / raw-V slot loaded only on its first use (the K/V traffic
# gone), f9 = both. Steady state (3 s warm-up, >= 1 s timed: energy_mj), two rounds, order
# alternating, with cuDNN 9.19's FP8 attention (cudnn-frontend 1.26.0) as the reference.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/d /tmp/cfe
tar -xJf .exp/s20fdiag.tar.xz -C /tmp/d
export PATH=/usr/local/cuda/bin:$PATH
python3 -m pip install -q --no-deps --no-index --disable-pip-version-check --target /tmp/cfe .whl/cudnn_fe/nvidia_cudnn_frontend-1.26.0-*.whl
export PYTHONPATH=/tmp/cfe${PYTHONPATH:+:$PYTHONPATH}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
B=/tmp/d/fa-bench-base
$B --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
W="--warmup_time 3 --gpu_warmup_time 3 --min_time 1"
S128="--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
S256="--batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256"
run() { timeout 60 /tmp/d/fa-bench-$1 $2 --kernel wgmma_fp8 --dtype Float8E4M3FN --causal 0 $W --skip_ref_check --csv $L/v_$1.csv >> $L/fa.log 2>&1; }
for round in 1 2; do
  order="base f8 f1 f9"; [[ $round == 2 ]] && order="f9 f1 f8 base"
  for v in $order; do run $v "$S128"; done
  timeout 100 python3 scripts/peers.py --backends cudnn_fp8 --dtype Float8E4M3FN $S128 --causal 0 $W --fa-bench $B --csv $L/v_cudnn.csv >> $L/peers.log 2>&1
  for v in base f8; do run $v "$S256"; done
  timeout 100 python3 scripts/peers.py --backends cudnn_fp8 --dtype Float8E4M3FN $S256 --causal 0 $W --fa-bench $B --csv $L/v_cudnn.csv >> $L/peers.log 2>&1
  echo "round $round done at $SECONDS s"
done
python3 - $L <<'PY'
import csv, sys, statistics, os
L = sys.argv[1]
for d in ('128', '256'):
    for v in ('base', 'f8', 'f1', 'f9', 'cudnn'):
        f = f'{L}/v_{v}.csv'
        if not os.path.exists(f): continue
        rs = [r for r in csv.DictReader(open(f)) if r['head_dim'] == d and r['tflops']]
        if not rs: continue
        m = lambda c: statistics.median(float(r[c]) for r in rs if r[c])
        print(f"d{d} {v:6s} n={len(rs)} {m('tflops'):7.1f} TF {m('sm_clock_mean_mhz'):6.0f} MHz {m('power_w_mean'):5.0f} W "
              f"{m('energy_mj'):8.1f} mJ {m('gflop_per_j'):6.0f} GF/J  rounds {[round(float(r['tflops']), 1) for r in rs]}")
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
