#!/usr/bin/env bash
# Session 20 call 13: the pre-pass threshold's unmeasured middle: 4,096 query rows per K/V head
# (4x16x4096 and, with 2 query heads per K/V head, 8x16(kv 8)x2048 = 4,096 rows too), FP8 head_dim
# 128 and 256, causal 0 / 1, the pre-pass (s20e) against the in-kernel transpose (s20h), steady
# state (3 s warm-up, >= 1 s timed), two rounds, order alternating.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/e /tmp/h
tar -xJf .exp/s20e.tar.xz -C /tmp/e; tar -xJf .exp/s20h.tar.xz -C /tmp/h
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
/tmp/h/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
W="--warmup_time 3 --gpu_warmup_time 3 --min_time 1"
run() {
  b=/tmp/h/fa-bench; [[ $1 == e ]] && b=/tmp/e/fa-bench
  timeout 60 $b --causal 0,1 --kernel wgmma_fp8 --dtype Float8E4M3FN $W --skip_ref_check --csv $L/st_$1.csv $2 >> $L/fa.log 2>&1
}
for round in 1 2; do
  order="h e"; [[ $round == 2 ]] && order="e h"
  for d in 128 256; do
    for s in "--batch_size 4 --num_head 16 --seqlen_q 4096 --seqlen_k 4096" "--batch_size 8 --num_head 16 --num_head_kv 8 --seqlen_q 2048 --seqlen_k 2048"; do
      (( SECONDS > 420 )) && { echo "time guard at $SECONDS s"; break 3; }
      for t in $order; do run $t "$s --head_dim $d"; done
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
            k = (int(r['head_dim']), int(r['batch_size']), int(r['num_head_kv']), int(r['seqlen_q']), int(r['is_causal']))
            runs[k].append((float(r['tflops']), float(r['energy_mj'] or 0)))
    return runs
h, e = load(f'{L}/st_h.csv'), load(f'{L}/st_e.csv')
med = lambda xs, i: statistics.median(x[i] for x in xs)
for k in sorted(e):
    print('d%d b%d hkv%d sq%d causal %d' % k, f'in-kernel {med(h[k], 0):.1f} ({med(h[k], 1):.0f} mJ)',
          f'prepass {med(e[k], 0):.1f} ({med(e[k], 1):.0f} mJ) x{med(e[k], 0) / med(h[k], 0):.3f}', [round(x[0]) for x in h[k]], [round(x[0]) for x in e[k]])
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
