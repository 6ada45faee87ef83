#!/usr/bin/env bash
# Session 26 call 5: two variants of the committed 192 x 64 row (m192): s6 = 6 ring stages with lookahead 4
# (was 4 / 2), tok = the issue token on (a ring over the three consumer warpgroups). Rung 8's default tile
# at 4x16x8192x128 and 1x16x16384x128, causal and not, default rule, two rounds, order rotated.
set -uo pipefail
L=$OUT/logs; mkdir -p $L
for t in m192 s6 tok; do tar -xJf .exp/s26$t.tar.xz -C /tmp; done
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
/tmp/m192/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
shapes=("--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
        "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128")
for round in 1 2; do
  order="m192 s6 tok"; [[ $round == 2 ]] && order="tok s6 m192"
  for s in "${shapes[@]}"; do
    for t in $order; do
      timeout 60 /tmp/$t/fa-bench $s --num_head 16 --causal 0,1 --kernel wgmma_fp8 --dtype Float8E4M3FN --csv $L/fp8_$t.csv >> $L/fa.log 2>&1
    done
  done
  echo "round $round done at $SECONDS s"
done
python3 - $L <<'PY'
import csv, sys, statistics, collections, os
L = sys.argv[1]
def load(f):
    runs = collections.defaultdict(list)
    for r in csv.DictReader(open(f)):
        if r['tflops']:
            runs[(int(r['batch_size']), int(r['is_causal']))].append((float(r['tflops']), float(r['sm_clock_mean_mhz'] or 0), r['check']))
    return runs
v = {t: load(f'{L}/fp8_{t}.csv') for t in ('m192', 's6', 'tok')}
for k in sorted(v['m192']):
    for t in ('m192', 's6', 'tok'):
        x = v[t][k]; m = statistics.median(y[0] for y in x)
        print(f'b{k[0]} causal {k[1]} {t:5s} {m:7.1f} vs m192 {m/statistics.median(y[0] for y in v["m192"][k]):.3f} {[round(y[0],1) for y in x]} MHz {[round(y[1]) for y in x]} {sorted({y[2] for y in x})}')
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
