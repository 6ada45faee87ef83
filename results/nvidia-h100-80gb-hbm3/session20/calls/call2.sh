#!/usr/bin/env bash
# Session 20 call 2: rung 9's pairs (s20a: two consecutive non-causal tiles per work item, the
# second starting on the K/V tiles the first left in the ring) against HEAD (s20h = eed2954).
# GPU tests (whole matrix + the new pairs case), then A/B: bursts (5 + 30 launches, as the FA2 grid) at d64 / d128, 512 to
# 4,096 keys (16k tokens), non-causal and a causal control, two rounds, order alternating, round 1
# checked; then steady state with energy (3 s warm-up, >= 1 s) at d128 512 and 1,024, two rounds;
# then compute-sanitizer where pairs engage (>= 4 tiles per CTA), as time allows.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/n /tmp/h
tar -xJf .exp/s20a.tar.xz -C /tmp/n; tar -xJf .exp/s20h.tar.xz -C /tmp/h
export PATH=/usr/local/cuda/bin:$PATH
N=/tmp/n/fa-bench; H=/tmp/h/fa-bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 200 /tmp/n/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -3
$H --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
R="--iterations 30 --warmup_iterations 5 --warmup_time 0 --gpu_warmup_time 0"
shapes=()
for d in 128 64; do
  h=16; [[ $d == 64 ]] && h=32
  for s in 512 1024 2048 4096; do shapes+=("--batch_size $((16384 / s)) --num_head $h --seqlen_q $s --seqlen_k $s --head_dim $d"); done
done
for round in 1 2; do
  order="h n"; [[ $round == 2 ]] && order="n h"
  chk=--skip_ref_check; [[ $round == 1 ]] && chk=
  for t in $order; do
    b=$H; [[ $t == n ]] && b=$N
    for s in "${shapes[@]}"; do timeout 60 $b $s --kernel wgmma_persistent --causal 0,1 $R $chk --csv $L/ab_$t.csv >> $L/fa.log 2>&1; done
  done
  echo "burst round $round done at $SECONDS s"
done
W="--warmup_time 3 --gpu_warmup_time 3 --min_time 1"
for round in 1 2; do
  order="h n"; [[ $round == 2 ]] && order="n h"
  for t in $order; do
    b=$H; [[ $t == n ]] && b=$N
    for s in 512 1024; do
      (( SECONDS > 400 )) && { echo "steady skipped (time)"; break 3; }
      timeout 60 $b --batch_size $((16384 / s)) --num_head 16 --seqlen_q $s --seqlen_k $s --head_dim 128 --kernel wgmma_persistent \
        $W --skip_ref_check --csv $L/st_$t.csv >> $L/fa.log 2>&1
    done
  done
done
python3 - $L <<'PY'
import csv, sys, statistics, collections, os
L = sys.argv[1]
def load(f):
    runs = collections.defaultdict(list); chk = {}
    if not os.path.exists(f): return runs, chk
    for r in csv.DictReader(open(f)):
        if r['tflops']:
            k = (int(r['head_dim']), int(r['batch_size']), int(r['seqlen_q']), int(r['is_causal']))
            runs[k].append((float(r['tflops']), float(r['sm_clock_mean_mhz'] or 0), float(r['energy_mj'] or 0)))
            if r['check'] and r['check'] != 'SKIPPED': chk[k] = r['check']
    return runs, chk
for kind in ('ab', 'st'):
    h, _ = load(f'{L}/{kind}_h.csv'); n, nc = load(f'{L}/{kind}_n.csv')
    for k in sorted(n):
        mh = statistics.median(x[0] for x in h.get(k, [(0, 0, 0)])); mn = statistics.median(x[0] for x in n[k])
        eh = statistics.median(x[2] for x in h.get(k, [(0, 0, 0)])); en = statistics.median(x[2] for x in n[k])
        print(kind, 'd%d %dx%d causal %d' % (k[0], k[1], k[2], k[3]), f'head {mh:.1f} pairs {mn:.1f} x{mn / max(mh, 1e-9):.3f}',
              [f'{x[0]:.0f}' for x in h.get(k, [])], [f'{x[0]:.0f}' for x in n[k]],
              f'mJ {eh:.1f} -> {en:.1f}' if en else '', nc.get(k, ''))
PY
for run in "racecheck 128" "memcheck 128" "synccheck 128" "racecheck 64"; do
  set -- $run
  (( SECONDS > 470 )) && { echo "$run skipped (time)"; continue; }
  timeout 100 compute-sanitizer --tool $1 --error-exitcode 99 $N --kernel wgmma_persistent --batch_size 8 --num_head 16 --skip_ref_check \
    --seqlen_q 1100 --seqlen_k 300 --head_dim $2 --causal 0 \
    --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $L/san_$1_$2.log 2>&1
  echo "$run rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/san_$1_$2.log | tail -1)"
done
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
