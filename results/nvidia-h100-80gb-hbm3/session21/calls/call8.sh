#!/usr/bin/env bash
# Session 21 call 8: with Q in registers only on the pre-pass way at head_dim 256 (calls 4-5), does
# the pre-pass now win below the 4,096 / 8,192-row thresholds there? s21u = main with head_dim 256
# always on the pre-pass way, against s21r1 (main's rule: in-kernel transpose below the thresholds).
# GPU tests and memcheck on s21u (every FP8 d256 case now takes the pre-pass), then steady state
# (3 s warm-up, >= 1 s timed), two rounds, order alternating.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/r /tmp/u
tar -xJf .exp/s21r1.tar.xz -C /tmp/r; tar -xJf .exp/s21u.tar.xz -C /tmp/u
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 200 /tmp/u/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -3
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 99 /tmp/u/fa-bench --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size 2 --num_head 4 \
  --num_head_kv 2 --seqlen_q 600 --seqlen_k 777 --head_dim 256 --causal 0,1 --skip_ref_check \
  --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $L/san_memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $L/san_memcheck.log | tail -1)"
/tmp/r/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
W="--warmup_time 3 --gpu_warmup_time 3 --min_time 1"
for round in 1 2; do
  order="r u"; [[ $round == 2 ]] && order="u r"
  for s in "--batch_size 32 --seqlen_q 512 --seqlen_k 512 --causal 0,1" "--batch_size 16 --seqlen_q 1024 --seqlen_k 1024 --causal 0,1" \
           "--batch_size 8 --seqlen_q 2048 --seqlen_k 2048 --causal 0,1" "--batch_size 4 --seqlen_q 4096 --seqlen_k 4096 --causal 1"; do
    (( SECONDS > 330 )) && { echo "time guard at $SECONDS s"; break 2; }
    for t in $order; do
      timeout 60 /tmp/$t/fa-bench $s --num_head 16 --head_dim 256 --kernel wgmma_fp8 --dtype Float8E4M3FN $W --csv $L/st_$t.csv >> $L/fa.log 2>&1
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
            runs[k].append((float(r['tflops']), float(r['energy_mj'] or 0), r['check']))
    return runs
a, b = load(f'{L}/st_r.csv'), load(f'{L}/st_u.csv')
med = lambda xs, i: statistics.median(x[i] for x in xs)
for k in sorted(a):
    if k not in b: continue
    print('d256 %dx16x%d causal %d' % k, f'main rule {med(a[k], 0):.1f} ({med(a[k], 1):.0f} mJ)',
          f'pre-pass {med(b[k], 0):.1f} ({med(b[k], 1):.0f} mJ) x{med(b[k], 0) / med(a[k], 0):.3f}',
          [round(x[0]) for x in a[k]], [round(x[0]) for x in b[k]], {x[2] for x in a[k] + b[k]})
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
