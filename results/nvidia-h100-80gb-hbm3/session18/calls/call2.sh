#!/usr/bin/env bash
# Session 18 call 2: s18f = 6a36d89 + rung 9's tile boundary as one batch (a tile's last P·V and the
# next tile's S(0) under one token turn, the epilogue under S(0); two Q buffers only: d64, d128).
# GPU tests (~[large]); A/B against s18h (= 6a36d89) on the FA2 grid's 512-2,048 points and long
# ones, rung 9, causal and not, 5 + 30 launches, two rounds, order rotated, round 1 checked against
# the reference; then sanitizers on rung 9 at shapes with more tiles than SMs (2x16x600x777: 160
# row blocks of 128 for 132 CTAs), as long as the call's time allows.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/h /tmp/n
tar -xJf .exp/s18h.tar.xz -C /tmp/h; tar -xJf .exp/s18f.tar.xz -C /tmp/n
export PATH=/usr/local/cuda/bin:$PATH
H=/tmp/h/fa-bench; N=/tmp/n/fa-bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 150 /tmp/n/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -3
$H --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
R="--iterations 30 --warmup_iterations 5 --warmup_time 0 --gpu_warmup_time 0"
shapes=()
for d in 64 128 256; do h=16; [[ $d == 64 ]] && h=32
  for s in 512 1024 2048; do shapes+=("--batch_size $((16384 / s)) --num_head $h --seqlen_q $s --seqlen_k $s --head_dim $d"); done; done
shapes+=("--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128" "--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64" "--batch_size 2 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 256")
for round in 1 2; do
  order="head new"; [[ $round == 2 ]] && order="new head"
  chk=--skip_ref_check; [[ $round == 1 ]] && chk=
  for t in $order; do
    b=$H; [[ $t == new ]] && b=$N
    for s in "${shapes[@]}"; do timeout 60 $b $s --kernel wgmma_persistent --causal 0,1 $R $chk --csv $L/ab_$t.csv >> $L/fa.log 2>&1; done
  done
done
python3 - $L <<'PY'
import csv, sys, statistics, collections
L = sys.argv[1]
def med(f):
    runs = collections.defaultdict(list); chk = {}
    for r in csv.DictReader(open(f)):
        if r['tflops']:
            k = (int(r['head_dim']), int(r['batch_size']), int(r['seqlen_q']), int(r['is_causal']))
            runs[k].append(float(r['tflops']))
            if r['check'] and r['check'] != 'SKIPPED': chk[k] = r['check']
    return {k: statistics.median(v) for k, v in runs.items()}, runs, chk
h, hr, _ = med(f'{L}/ab_head.csv'); c, cr, cc = med(f'{L}/ab_new.csv')
for k in sorted(c):
    print(' '.join(map(str, k)), f"head {h.get(k, 0):.1f} new {c[k]:.1f} x{c[k] / h.get(k, 1):.3f}",
          [f'{x:.0f}' for x in hr.get(k, [])], [f'{x:.0f}' for x in cr[k]], cc.get(k, ''))
PY
# Sanitizers (skipped once the call has run 480 s).
for tool in memcheck racecheck synccheck; do
  for d in 64 128 256 wide; do
    [[ $tool != memcheck && $d == 256 ]] && continue
    (( SECONDS > 480 )) && { echo "$tool d$d skipped (time)"; continue; }
    shape="--batch_size 2 --num_head 16 --seqlen_q 600 --seqlen_k 777 --head_dim $d --causal 0,1"
    [[ $d == wide ]] && shape="--batch_size 1 --num_head 8 --seqlen_q 2100 --seqlen_k 2100 --head_dim 128 --causal 0"
    timeout 100 compute-sanitizer --tool $tool --error-exitcode 99 $N --kernel wgmma_persistent $shape --warmup_iterations 0 \
      --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $L/san_${tool}_$d.log 2>&1; echo "$tool d$d rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/san_${tool}_$d.log | tail -1)"
  done
done
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
