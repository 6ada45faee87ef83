#!/usr/bin/env bash
# Session 20 call 6: the same pre-pass at head_dim 128 (s20d: WgmmaFp8D128 with kVtPrepass) against
# the in-kernel transpose (s20c2: call 5's build, d128 unchanged), steady state with energy (3 s
# warm-up, >= 1 s timed), 4x16x8192x128 and 1x16x16384x128, causal 0 / 1, two rounds, order
# alternating; memcheck and one reference-checked row per shape on s20d.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/n /tmp/h
tar -xJf .exp/s20d.tar.xz -C /tmp/n; tar -xJf .exp/s20c2.tar.xz -C /tmp/h
export PATH=/usr/local/cuda/bin:$PATH
N=/tmp/n/fa-bench; H=/tmp/h/fa-bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 99 $N --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size 2 --num_head 4 \
  --seqlen_q 600 --seqlen_k 777 --head_dim 128 --causal 0,1 --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $L/san_memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $L/san_memcheck.log | tail -1) $(grep -c PASS $L/san_memcheck.log) PASS rows"
$H --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
W="--warmup_time 3 --gpu_warmup_time 3 --min_time 1"
shapes=("--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
        "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128")
fa() { timeout 60 $1 --num_head 16 --causal 0,1 --kernel wgmma_fp8 --dtype Float8E4M3FN $W --skip_ref_check --csv $L/st_$2.csv $3 >> $L/fa.log 2>&1; }
for round in 1 2; do
  for s in "${shapes[@]}"; do
    if [[ $round == 1 ]]; then fa $H h "$s"; fa $N n "$s"; else fa $N n "$s"; fa $H h "$s"; fi
  done
  echo "round $round done at $SECONDS s"
done
for s in "${shapes[@]}"; do
  timeout 60 $N --num_head 16 --causal 0,1 --kernel wgmma_fp8 --dtype Float8E4M3FN --iterations 10 --warmup_iterations 3 --csv $L/checked.csv $s >> $L/fa.log 2>&1
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
h, n = load(f'{L}/st_h.csv'), load(f'{L}/st_n.csv')
med = lambda xs, i: statistics.median(x[i] for x in xs) if xs else float('nan')
for k in sorted(n):
    print('d%d %dx%d causal %d' % k, f'in-kernel {med(h.get(k), 0):.1f} ({med(h.get(k), 1):.0f} MHz, {med(h.get(k), 2):.0f} mJ)',
          f'prepass {med(n[k], 0):.1f} ({med(n[k], 1):.0f} MHz, {med(n[k], 2):.0f} mJ) x{med(n[k], 0) / med(h.get(k), 0):.3f}',
          [round(x[0]) for x in h.get(k, [])], [round(x[0]) for x in n[k]])
for r in csv.DictReader(open(f'{L}/checked.csv')):
    print('checked', r['head_dim'], r['batch_size'], r['seqlen_q'], r['is_causal'], r['tflops'], r['check'], r['rel_l2_err'])
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
