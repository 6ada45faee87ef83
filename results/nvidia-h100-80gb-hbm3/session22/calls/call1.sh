#!/usr/bin/env bash
# Session 22 call 1: (a) session 21's final commit 475c1d1 (s22r = its fa-bench and GPU tests):
# the GPU tests (with the head_dim-256 pre-pass boundary cases, 1,027 / 1,023 and 2,051 / 2,047
# rows) and memcheck on rung 8 d256 straddling both thresholds; (b) s22q = 475c1d1 +
# d256_inkernel_qreg.patch (head_dim 256's in-kernel transpose way with Q in registers, 40 / 232):
# GPU tests and the three sanitizers on its in-kernel kernel; (c) s22qf = s22q with every d256
# problem on the in-kernel way, against s22r (its rule: pre-pass from 2,048 rows non-causal,
# 4,096 causal), steady (3 s warm-up, >= 1 s timed), two rounds, order alternating.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s22a.tar.xz -C /tmp
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
for b in r q; do
  ( time timeout 150 /tmp/$b/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests_$b.log 2>&1; echo "gpu tests $b rc=$?"; grep -E "passed|failed" $L/gpu_tests_$b.log | tail -2
done
san() {  # binary tool seqlen_q
  timeout 100 compute-sanitizer --tool $2 --error-exitcode 99 /tmp/$1/fa-bench --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size 1 --num_head 4 \
    --num_head_kv 2 --seqlen_q $3 --seqlen_k 777 --head_dim 256 --causal 0,1 \
    --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $L/san_$1_$2_$3.log 2>&1
  echo "$1 $2 sq=$3 rc=$? $(grep -E 'ERROR SUMMARY' $L/san_$1_$2_$3.log | tail -1) $(grep -cE ' PASS ' $L/san_$1_$2_$3.log) PASS rows"
}
for sq in 1023 1027 2047 2051; do san r memcheck $sq; done
for t in memcheck racecheck synccheck; do san q $t 601; done
/tmp/r/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
W="--warmup_time 3 --gpu_warmup_time 3 --min_time 1"
for round in 1 2; do
  order="r qf"; [[ $round == 2 ]] && order="qf r"
  for s in "--batch_size 32 --seqlen_q 512 --seqlen_k 512" "--batch_size 16 --seqlen_q 1024 --seqlen_k 1024" \
           "--batch_size 8 --seqlen_q 2048 --seqlen_k 2048" "--batch_size 4 --seqlen_q 4096 --seqlen_k 4096"; do
    (( SECONDS > 540 )) && { echo "time guard at $SECONDS s"; break 2; }
    for t in $order; do
      timeout 60 /tmp/$t/fa-bench $s --causal 0,1 --num_head 16 --head_dim 256 --kernel wgmma_fp8 --dtype Float8E4M3FN $W --csv $L/st_$t.csv >> $L/fa.log 2>&1
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
            k = (int(r['batch_size']), int(r['seqlen_q']), int(r['is_causal']))
            runs[k].append((float(r['tflops']), float(r['energy_mj'] or 0), float(r['sm_clock_mean_mhz'] or 0), r['check']))
    return runs
a, b = load(f'{L}/st_r.csv'), load(f'{L}/st_qf.csv')
med = lambda xs, i: statistics.median(x[i] for x in xs)
for k in sorted(a):
    if k not in b: continue
    print('d256 %dx16x%d causal %d' % k, f'main {med(a[k], 0):.1f} ({med(a[k], 1):.0f} mJ, {med(a[k], 2):.0f} MHz)',
          f'in-kernel+Q {med(b[k], 0):.1f} ({med(b[k], 1):.0f} mJ, {med(b[k], 2):.0f} MHz) x{med(b[k], 0) / med(a[k], 0):.3f}',
          [round(x[0]) for x in a[k]], [round(x[0]) for x in b[k]], {x[3] for x in a[k] + b[k]})
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
