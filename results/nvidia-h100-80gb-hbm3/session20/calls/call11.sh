#!/usr/bin/env bash
# Session 20 call 11: rung 8's pre-pass (s20e) against the in-kernel transpose (s20h = eed2954) on
# short and medium rows, where the pre-pass's extra read and write of V is a larger share of the
# traffic (at 32x16x512x128 +40 % of the compulsory bytes): 16k tokens, 512 / 1,024 / 2,048 keys,
# head_dim 128 and 256, causal 0 / 1, steady state with energy (3 s warm-up, >= 1 s timed), two
# rounds, order alternating.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/e /tmp/h
tar -xJf .exp/s20e.tar.xz -C /tmp/e; tar -xJf .exp/s20h.tar.xz -C /tmp/h
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
/tmp/h/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
W="--warmup_time 3 --gpu_warmup_time 3 --min_time 1"
run() {  # binary tag, shape
  b=/tmp/h/fa-bench; [[ $1 == e ]] && b=/tmp/e/fa-bench
  timeout 60 $b --num_head 16 --causal 0,1 --kernel wgmma_fp8 --dtype Float8E4M3FN $W --skip_ref_check --csv $L/st_$1.csv $2 >> $L/fa.log 2>&1
}
for round in 1 2; do
  order="h e"; [[ $round == 2 ]] && order="e h"
  for d in 128 256; do
    for s in 512 1024 2048; do
      (( SECONDS > 520 )) && { echo "time guard at $SECONDS s"; break 3; }
      for t in $order; do run $t "--batch_size $((16384 / s)) --seqlen_q $s --seqlen_k $s --head_dim $d"; done
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
            k = (int(r['head_dim']), int(r['batch_size']), int(r['seqlen_q']), int(r['is_causal']))
            runs[k].append((float(r['tflops']), float(r['sm_clock_mean_mhz'] or 0), float(r['energy_mj'] or 0)))
    return runs
h, e = load(f'{L}/st_h.csv'), load(f'{L}/st_e.csv')
med = lambda xs, i: statistics.median(x[i] for x in xs) if xs else float('nan')
for k in sorted(e):
    print('d%d %dx%d causal %d' % k, f'in-kernel {med(h.get(k), 0):.1f} ({med(h.get(k), 1):.0f} MHz, {med(h.get(k), 2):.1f} mJ)',
          f'prepass {med(e[k], 0):.1f} ({med(e[k], 1):.0f} MHz, {med(e[k], 2):.1f} mJ) x{med(e[k], 0) / med(h.get(k), 0):.3f}',
          [round(x[0]) for x in h.get(k, [])], [round(x[0]) for x in e[k]])
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
