#!/usr/bin/env bash
# Session 20 call 5: rung 8 at head_dim 256 with V transposed by a pre-pass kernel into the
# workspace (s20c; call 4: the in-kernel transpose costs 10 % there), against HEAD (s20h = eed2954)
# and cuDNN 9.19's FP8 attention. GPU tests (the whole matrix: FP8 d256 on every shape), then
# compute-sanitizer on FP8 d256 (odd lengths, causal 0 / 1), then steady state with energy (3 s
# warm-up, >= 1 s timed) at 1x16x16384x256 and 2x16x8192x256 causal 0 / 1, two rounds, order
# alternating; one reference-checked row per shape.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/n /tmp/h /tmp/cfe
tar -xJf .exp/s20c.tar.xz -C /tmp/n; tar -xJf .exp/s20h.tar.xz -C /tmp/h
export PATH=/usr/local/cuda/bin:$PATH
python3 -m pip install -q --no-deps --no-index --disable-pip-version-check --target /tmp/cfe .whl/cudnn_fe/nvidia_cudnn_frontend-1.26.0-*.whl
export PYTHONPATH=/tmp/cfe${PYTHONPATH:+:$PYTHONPATH}
N=/tmp/n/fa-bench; H=/tmp/h/fa-bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 200 /tmp/n/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -3
for tool in memcheck racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 99 $N --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size 2 --num_head 4 \
    --seqlen_q 600 --seqlen_k 777 --head_dim 256 --causal 0,1 --skip_ref_check \
    --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $L/san_$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/san_$tool.log | tail -1)"
done
$H --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
W="--warmup_time 3 --gpu_warmup_time 3 --min_time 1"
shapes=("--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256"
        "--batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --head_dim 256")
fa() { timeout 60 $1 --num_head 16 --causal 0,1 --kernel wgmma_fp8 --dtype Float8E4M3FN $W --skip_ref_check --csv $L/st_$2.csv $3 >> $L/fa.log 2>&1; }
pe() { timeout 100 python3 scripts/peers.py --backends cudnn_fp8 --dtype Float8E4M3FN --num_head 16 --causal 0,1 $W --fa-bench $H --csv $L/st_cudnn.csv $1 >> $L/peers.log 2>&1; }
for round in 1 2; do
  for s in "${shapes[@]}"; do
    (( SECONDS > 520 )) && { echo "time guard at $SECONDS s"; break 2; }
    if [[ $round == 1 ]]; then fa $H h "$s"; fa $N n "$s"; pe "$s"; else pe "$s"; fa $N n "$s"; fa $H h "$s"; fi
  done
  echo "round $round done at $SECONDS s"
done
for s in "${shapes[@]:0:2}"; do
  timeout 60 $N --num_head 16 --causal 0,1 --kernel wgmma_fp8 --dtype Float8E4M3FN --iterations 10 --warmup_iterations 3 --csv $L/checked.csv $s >> $L/fa.log 2>&1
done
python3 - $L <<'PY'
import csv, sys, statistics, collections, os
L = sys.argv[1]
def load(f):
    runs = collections.defaultdict(list)
    if not os.path.exists(f): return runs
    for r in csv.DictReader(open(f)):
        if r['tflops']:
            k = (int(r['head_dim']), int(r['batch_size']), int(r['seqlen_q']), int(r['is_causal']))
            runs[k].append((float(r['tflops']), float(r['sm_clock_mean_mhz'] or 0), float(r['energy_mj'] or 0)))
    return runs
h, n, c = load(f'{L}/st_h.csv'), load(f'{L}/st_n.csv'), load(f'{L}/st_cudnn.csv')
med = lambda xs, i: statistics.median(x[i] for x in xs) if xs else float('nan')
for k in sorted(n):
    print('d%d %dx%d causal %d' % k, f'head {med(h.get(k), 0):.1f} ({med(h.get(k), 1):.0f} MHz, {med(h.get(k), 2):.0f} mJ)',
          f'prepass {med(n[k], 0):.1f} ({med(n[k], 1):.0f} MHz, {med(n[k], 2):.0f} mJ) x{med(n[k], 0) / med(h.get(k), 0):.3f}',
          f'cudnn_fp8 {med(c.get(k), 0):.1f} ({med(c.get(k), 1):.0f} MHz) prepass/cudnn {med(n[k], 0) / med(c.get(k), 0):.3f}',
          [round(x[0]) for x in h.get(k, [])], [round(x[0]) for x in n[k]])
if os.path.exists(f'{L}/checked.csv'):
    for r in csv.DictReader(open(f'{L}/checked.csv')):
        print('checked', r['head_dim'], r['batch_size'], r['seqlen_q'], r['is_causal'], r['tflops'], r['check'], r['rel_l2_err'])
PY
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
