#!/usr/bin/env bash
# Session 23 call 4 (the last 7 minutes of device time): s23a7 = 671d90e with rung 8's P offset 2^7
# and lazy slack 1.75 (fa/fp8.h; P <= 2^8.75 as before, the offset a whole power of two so the row
# max's P stays exact in e4m3: call 1's 2^7.25 and 2^6.75 raised causal rel_l2 from 0.022 to
# 0.029-0.036): GPU tests, then issue #11's shapes, s23a against s23a7 with the bf16 rungs 7 and 9,
# default timing rule, two rounds, order alternating (time guard at 235 s).
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s23a.tar.xz -C /tmp; tar -xJf .exp/s23d.tar.xz -C /tmp
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 120 /tmp/a7/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests_a7.log 2>&1; echo "gpu tests a7 rc=$?"; grep -E "passed|failed" $L/gpu_tests_a7.log | tail -2
/tmp/a/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
shapes=("--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256"
        "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
        "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128")
for round in 1 2; do
  order="a a7"; [[ $round == 2 ]] && order="a7 a"
  for s in "${shapes[@]}"; do
    (( SECONDS > 235 )) && { echo "time guard at $SECONDS s"; break 2; }
    for t in $order; do
      timeout 60 /tmp/$t/fa-bench $s --num_head 16 --causal 0,1 --kernel wgmma_fp8 --dtype Float8E4M3FN --csv $L/fp8_$t.csv >> $L/fa.log 2>&1
    done
    timeout 60 /tmp/a/fa-bench $s --num_head 16 --causal 0,1 --skip_ref_check --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --csv $L/bf16.csv >> $L/fa.log 2>&1
  done
  echo "round $round done at $SECONDS s"
done
python3 - $L <<'PY'
import csv, sys, statistics, collections, os
L = sys.argv[1]
def load(f):
    runs = collections.defaultdict(list)
    if not os.path.exists(f): return runs
    for r in csv.DictReader(open(f)):
        if r['tflops']:
            runs[(int(r['head_dim']), int(r['batch_size']), int(r['is_causal']), r['kernel'])].append(
                (float(r['tflops']), float(r['sm_clock_mean_mhz'] or 0), r['check'], r['rel_l2_err']))
    return runs
med = lambda xs, i=0: statistics.median(x[i] for x in xs)
bf = load(f'{L}/bf16.csv'); v = {t: load(f'{L}/fp8_{t}.csv') for t in ('a', 'a7')}
for k in sorted(v['a']):
    best = max((med(bf[kk]) for kk in bf if kk[:3] == k[:3]), default=float('nan'))
    line = f'd{k[0]} b{k[1]} causal {k[2]}: best bf16 {best:.1f}'
    for t in ('a', 'a7'):
        if k in v[t]:
            x = v[t][k]
            line += f' | {t} {med(x):.1f} ({med(x,1):.0f} MHz) x{med(x)/best:.3f} {[round(y[0]) for y in x]} {sorted({y[2] for y in x})} l2 {x[0][3][:6]}'
    print(line)
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
