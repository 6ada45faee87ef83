#!/usr/bin/env bash
# Session 21 call 3: rung 8 with part of the softmax's exponentials on the FMA pipe (branch
# exp-poly, poly.patch: 2^x by rounding trick + degree-2 polynomial, P rounded to e4m3 anyway):
# one 8-column group in 8 (s21p8) or in 4 (s21p4) against s21a (all on MUFU). Steady state
# (3 s warm-up, >= 1 s timed), two rounds, order rotating, every row checked.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/a /tmp/p8 /tmp/p4
tar -xJf .exp/s21a.tar.xz -C /tmp/a; tar -xJf .exp/s21p8.tar.xz -C /tmp/p8; tar -xJf .exp/s21p4.tar.xz -C /tmp/p4
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
/tmp/a/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
W="--warmup_time 3 --gpu_warmup_time 3 --min_time 1"
for round in 1 2; do
  order="a p8 p4"; [[ $round == 2 ]] && order="p4 p8 a"
  for s in "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --causal 0,1" "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128 --causal 0,1" \
           "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256 --causal 0"; do
    (( SECONDS > 520 )) && { echo "time guard at $SECONDS s"; break 2; }
    for t in $order; do
      timeout 90 /tmp/$t/fa-bench $s --num_head 16 --kernel wgmma_fp8 --dtype Float8E4M3FN $W --csv $L/st_$t.csv >> $L/fa.log 2>&1
    done
  done
  echo "round $round done at $SECONDS s"
done
python3 - $L <<'PY'
import csv, sys, statistics, collections
L = sys.argv[1]
def load(f):
    runs = collections.defaultdict(list)
    for r in csv.DictReader(open(f)):
        if r['tflops']:
            k = (int(r['head_dim']), int(r['batch_size']), int(r['seqlen_q']), int(r['is_causal']))
            runs[k].append((float(r['tflops']), float(r['energy_mj'] or 0), float(r['sm_clock_mean_mhz'] or 0), r['check'], float(r['rel_l2_err'])))
    return runs
res = {t: load(f'{L}/st_{t}.csv') for t in ('a', 'p8', 'p4')}
med = lambda xs, i: statistics.median(x[i] for x in xs)
for k in sorted(res['a']):
    line = 'd%d %dx16x%d causal %d:' % k
    for t in ('a', 'p8', 'p4'):
        xs = res[t].get(k)
        if not xs: continue
        line += f' | {t} {med(xs, 0):.1f} ({med(xs, 2):.0f} MHz, {med(xs, 1):.0f} mJ, rel_l2 {med(xs, 4):.4f}, {"/".join(sorted({x[3] for x in xs}))}) x{med(xs, 0) / med(res["a"][k], 0):.3f}'
    print(line)
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
