#!/usr/bin/env bash
# Session 21 call 4: rung 8 head_dim 128 with Q's A fragments in registers (s21q, branch exp-qreg,
# qreg.patch: S = Q·Kᵀ as wgmma RS, 16 registers loaded once per CTA; halves the S GEMM's
# shared-memory reads) against s21a. GPU tests and memcheck / racecheck on s21q's d128 kernels
# (both ways), then steady state (3 s warm-up, >= 1 s timed), two rounds, every row checked.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/a /tmp/q
tar -xJf .exp/s21a.tar.xz -C /tmp/a; tar -xJf .exp/s21q.tar.xz -C /tmp/q
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 240 /tmp/q/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -3
for sq in 4099 600; do
  for tool in memcheck racecheck; do
    timeout 100 compute-sanitizer --tool $tool --error-exitcode 99 /tmp/q/fa-bench --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size 1 --num_head 4 \
      --num_head_kv 2 --seqlen_q $sq --seqlen_k 777 --head_dim 128 --causal 0,1 --skip_ref_check \
      --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $L/san_${tool}_$sq.log 2>&1
    echo "$tool sq$sq rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/san_${tool}_$sq.log | tail -1)"
  done
done
/tmp/a/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
W="--warmup_time 3 --gpu_warmup_time 3 --min_time 1"
for round in 1 2; do
  order="a q"; [[ $round == 2 ]] && order="q a"
  for s in "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --causal 0,1" "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --causal 0,1" \
           "--batch_size 32 --seqlen_q 512 --seqlen_k 512 --causal 0"; do
    (( SECONDS > 520 )) && { echo "time guard at $SECONDS s"; break 2; }
    for t in $order; do
      timeout 90 /tmp/$t/fa-bench $s --num_head 16 --head_dim 128 --kernel wgmma_fp8 --dtype Float8E4M3FN $W --csv $L/st_$t.csv >> $L/fa.log 2>&1
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
            runs[k].append((float(r['tflops']), float(r['energy_mj'] or 0), float(r['sm_clock_mean_mhz'] or 0), r['check'], float(r['rel_l2_err'])))
    return runs
a, q = load(f'{L}/st_a.csv'), load(f'{L}/st_q.csv')
med = lambda xs, i: statistics.median(x[i] for x in xs)
for k in sorted(a):
    if k not in q: continue
    print('%dx16x%d causal %d' % k, f'smem Q {med(a[k], 0):.1f} ({med(a[k], 2):.0f} MHz, {med(a[k], 1):.0f} mJ)',
          f'register Q {med(q[k], 0):.1f} ({med(q[k], 2):.0f} MHz, {med(q[k], 1):.0f} mJ) x{med(q[k], 0) / med(a[k], 0):.3f}',
          [round(x[0]) for x in a[k]], [round(x[0]) for x in q[k]], {x[3] for x in a[k] + q[k]}, sorted({round(x[4], 4) for x in q[k]}))
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
