#!/usr/bin/env bash
# Session 20 call 10: rung 8 at head_dim 256 with 128-key tiles ("w": 2 ring stages, 24 / 240
# registers, no spill; 230,456 B of shared memory), which the pre-pass made possible (no raw V
# slots, a one-thread producer), against the committed 64-key tile (s20e: 4 stages, 72 / 216).
# memcheck and reference-checked rows on odd shapes, then steady state with energy (3 s warm-up,
# >= 1 s timed), 1x16x16384x256 and 2x16x8192x256, causal 0 / 1, two rounds, order alternating.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/v
tar -xJf .exp/s20w.tar.xz -C /tmp/v
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 99 /tmp/v/fa-bench-w --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size 2 --num_head 4 \
  --num_head_kv 2 --seqlen_q 600 --seqlen_k 777 --head_dim 256 --causal 0,1 --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $L/san_memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $L/san_memcheck.log | tail -1) $(grep -c PASS $L/san_memcheck.log) PASS rows"
for s in "1 1 17 1000" "2 3 1000 17" "1 2 300 129" "1 1 1 1"; do
  set -- $s
  timeout 60 /tmp/v/fa-bench-w --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size $1 --num_head $2 --seqlen_q $3 --seqlen_k $4 --head_dim 256 \
    --causal 0,1 --iterations 2 --warmup_iterations 1 --csv $L/checked.csv >> $L/fa.log 2>&1
done
/tmp/v/fa-bench-s20e --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
W="--warmup_time 3 --gpu_warmup_time 3 --min_time 1"
shapes=("--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256"
        "--batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --head_dim 256")
run() { timeout 60 /tmp/v/fa-bench-$1 --num_head 16 --causal 0,1 --kernel wgmma_fp8 --dtype Float8E4M3FN $W --skip_ref_check --csv $L/st_$1.csv $2 >> $L/fa.log 2>&1; }
for round in 1 2; do
  order="s20e w"; [[ $round == 2 ]] && order="w s20e"
  for s in "${shapes[@]}"; do for v in $order; do run $v "$s"; done; done
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
base, n = load(f'{L}/st_s20e.csv'), load(f'{L}/st_w.csv')
med = lambda xs, i: statistics.median(x[i] for x in xs) if xs else float('nan')
for k in sorted(n):
    print('d%d %dx%d causal %d' % k, f'64 keys {med(base.get(k), 0):.1f} ({med(base.get(k), 1):.0f} MHz, {med(base.get(k), 2):.0f} mJ)',
          f'128 keys {med(n[k], 0):.1f} ({med(n[k], 1):.0f} MHz, {med(n[k], 2):.0f} mJ) x{med(n[k], 0) / med(base.get(k), 0):.3f}',
          [round(x[0]) for x in base.get(k, [])], [round(x[0]) for x in n[k]])
print('checked:', [(r['seqlen_q'], r['seqlen_k'], r['is_causal'], r['check']) for r in csv.DictReader(open(f'{L}/checked.csv'))])
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
