#!/usr/bin/env bash
# Session 22 call 5a:
# s22L = caf94e0 + the lazy row max on rung 3 (`mma`: a row's max rises only
# past 8 base-2 logits of slack, so the warp vote skips O's rescale on nearly every key tile, now
# at head_dim 64 too): GPU tests, and issue #13's three shapes, mma only, s22f (= caf94e0, mma as
# session 16) against s22L, fa-bench's default timing rule, two rounds, order alternating.
set -uo pipefail

L=$OUT/logs; mkdir -p $L /tmp/b; tar -xJf .exp/s22d.tar.xz -C /tmp/b
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 150 /tmp/b/L/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests_L.log 2>&1; echo "gpu tests L rc=$?"; grep -E "passed|failed" $L/gpu_tests_L.log | tail -2
/tmp/b/f/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
D64="--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64"
A="--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
C="--batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
for round in 1 2; do
  order="f L"; [[ $round == 2 ]] && order="L f"
  for s in "$D64" "$A" "$C"; do for t in $order; do
    timeout 90 /tmp/b/$t/fa-bench $s --kernel mma --causal 0,1 --csv $L/mma_$t.csv >> $L/fa.log 2>&1
  done; done
  echo "round $round done at $SECONDS s"
done
python3 - $L <<'PY'
import csv, sys, statistics, collections
L = sys.argv[1]
def load(f):
    runs = collections.defaultdict(list)
    for r in csv.DictReader(open(f)):
        if r['tflops']: runs[(int(r['head_dim']), int(r['batch_size']), int(r['is_causal']))].append((float(r['tflops']), float(r['sm_clock_mean_mhz'] or 0), float(r['energy_mj'] or 0), r['check']))
    return runs
a, b = load(f'{L}/mma_f.csv'), load(f'{L}/mma_L.csv')
med = lambda xs, i: statistics.median(x[i] for x in xs)
for k in sorted(a):
    print('d%d b%d causal %d' % k, f'f {med(a[k],0):.1f} ({med(a[k],1):.0f} MHz, {med(a[k],2):.0f} mJ)', f'L {med(b[k],0):.1f} ({med(b[k],1):.0f} MHz, {med(b[k],2):.0f} mJ) x{med(b[k],0)/med(a[k],0):.3f}',
          [round(x[0]) for x in a[k]], [round(x[0]) for x in b[k]], {x[3] for x in a[k] + b[k]})
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
