#!/usr/bin/env bash
# Session 21 call 6: s21s = s21r with the one-thread producer's registers given to the consumers
# at head_dim 128 too (24 / 240 on the pre-pass way; session 20 call 9 measured that -1 to -2.4 %
# before Q moved into registers). GPU tests and the three sanitizers on s21s's new d128 pre-pass
# kernel, then steady state (3 s warm-up, >= 1 s timed) against s21r, two rounds, order alternating.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/r /tmp/s
tar -xJf .exp/s21r1.tar.xz -C /tmp/r; tar -xJf .exp/s21s.tar.xz -C /tmp/s
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 200 /tmp/s/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -3
for tool in memcheck racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 99 /tmp/s/fa-bench --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size 1 --num_head 4 \
    --num_head_kv 2 --seqlen_q 4099 --seqlen_k 777 --head_dim 128 --causal 0,1 --skip_ref_check \
    --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $L/san_$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/san_$tool.log | tail -1)"
done
/tmp/r/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
W="--warmup_time 3 --gpu_warmup_time 3 --min_time 1"
for round in 1 2; do
  order="r s"; [[ $round == 2 ]] && order="s r"
  for sh in "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --causal 0,1" "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --causal 0,1" \
            "--batch_size 4 --seqlen_q 4096 --seqlen_k 4096 --causal 0"; do
    (( SECONDS > 500 )) && { echo "time guard at $SECONDS s"; break 2; }
    for t in $order; do
      timeout 90 /tmp/$t/fa-bench $sh --num_head 16 --head_dim 128 --kernel wgmma_fp8 --dtype Float8E4M3FN $W --csv $L/st_$t.csv >> $L/fa.log 2>&1
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
a, b = load(f'{L}/st_r.csv'), load(f'{L}/st_s.csv')
med = lambda xs, i: statistics.median(x[i] for x in xs)
for k in sorted(a):
    if k not in b: continue
    print('%dx16x%d causal %d' % k, f'72/216 {med(a[k], 0):.1f} ({med(a[k], 2):.0f} MHz, {med(a[k], 1):.0f} mJ)',
          f'24/240 {med(b[k], 0):.1f} ({med(b[k], 2):.0f} MHz, {med(b[k], 1):.0f} mJ) x{med(b[k], 0) / med(a[k], 0):.3f}',
          [round(x[0]) for x in a[k]], [round(x[0]) for x in b[k]], {x[3] for x in a[k] + b[k]})
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
