#!/usr/bin/env bash
# Session 20 call 9: what the one-thread producer frees in rung 8, each against the committed
# kernels (s20e: 72 / 216 registers, 4 stages): "regs" = producer 24 / consumers 240 at both
# head_dims, "s5" = 5 ring stages at head_dim 128 (213 KB). Steady state with energy (3 s warm-up,
# >= 1 s timed), FP8 4x16x8192x128, 1x16x16384x128, 1x16x16384x256, causal 0 / 1, two rounds,
# order alternating; one reference-checked row per variant and head_dim.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/v
tar -xJf .exp/s20v.tar.xz -C /tmp/v
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
/tmp/v/fa-bench-s20e --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
W="--warmup_time 3 --gpu_warmup_time 3 --min_time 1"
shapes=("--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
        "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
        "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256")
run() { timeout 60 /tmp/v/fa-bench-$1 --num_head 16 --causal 0,1 --kernel wgmma_fp8 --dtype Float8E4M3FN $W --skip_ref_check --csv $L/st_$1.csv $2 >> $L/fa.log 2>&1; }
for round in 1 2; do
  order="s20e regs s5"; [[ $round == 2 ]] && order="s5 regs s20e"
  for s in "${shapes[@]}"; do
    (( SECONDS > 500 )) && { echo "time guard at $SECONDS s"; break 2; }
    for v in $order; do
      [[ $v == s5 && "$s" == *"head_dim 256"* ]] && continue
      run $v "$s"
    done
  done
  echo "round $round done at $SECONDS s"
done
for v in regs s5; do
  for d in 128 256; do
    [[ $v == s5 && $d == 256 ]] && continue
    timeout 60 /tmp/v/fa-bench-$v --num_head 4 --num_head_kv 2 --batch_size 2 --seqlen_q 600 --seqlen_k 777 --head_dim $d --causal 0,1 \
      --kernel wgmma_fp8 --dtype Float8E4M3FN --iterations 3 --warmup_iterations 1 --csv $L/checked.csv >> $L/fa.log 2>&1
  done
done
python3 - $L <<'PY'
import csv, sys, statistics, collections, os
L = sys.argv[1]
def load(f):
    runs = collections.defaultdict(list)
    if os.path.exists(f):
        for r in csv.DictReader(open(f)):
            if r['tflops']:
                k = (int(r['head_dim']), int(r['batch_size']), int(r['seqlen_q']), int(r['is_causal']))
                runs[k].append((float(r['tflops']), float(r['sm_clock_mean_mhz'] or 0), float(r['energy_mj'] or 0)))
    return runs
base = load(f'{L}/st_s20e.csv')
med = lambda xs, i: statistics.median(x[i] for x in xs) if xs else float('nan')
for v in ('regs', 's5'):
    n = load(f'{L}/st_{v}.csv')
    for k in sorted(n):
        print(v, 'd%d %dx%d causal %d' % k, f'committed {med(base.get(k), 0):.1f} ({med(base.get(k), 1):.0f} MHz, {med(base.get(k), 2):.0f} mJ)',
              f'{v} {med(n[k], 0):.1f} ({med(n[k], 1):.0f} MHz, {med(n[k], 2):.0f} mJ) x{med(n[k], 0) / med(base.get(k), 0):.3f}',
              [round(x[0]) for x in base.get(k, [])], [round(x[0]) for x in n[k]])
if os.path.exists(f'{L}/checked.csv'):
    print('checked:', sorted({r['check'] for r in csv.DictReader(open(f'{L}/checked.csv'))}))
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
