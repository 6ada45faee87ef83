#!/usr/bin/env bash
# Session 18 call 5: s18s = the committed change (call 4's kernel with the producer's two Q-half
# loads unrolled: no producer spill, consumers' SASS the same but for scheduling). GPU tests
# (~[large]); sanitizers on rung 9 d256 (bf16 memcheck / racecheck / synccheck, fp16 memcheck) and
# d128 (memcheck); A/B against s18h (= 6a36d89) at head_dim 256 (and 128 / 64 as controls), 5 + 30
# launches, two rounds, order rotated, round 1 checked.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/h /tmp/n
tar -xJf .exp/s18h.tar.xz -C /tmp/h; tar -xJf .exp/s18s.tar.xz -C /tmp/n
export PATH=/usr/local/cuda/bin:$PATH
H=/tmp/h/fa-bench; N=/tmp/n/fa-bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 170 /tmp/n/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -3
$H --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
R="--iterations 30 --warmup_iterations 5 --warmup_time 0 --gpu_warmup_time 0"
shapes=()
for s in 512 1024 2048 4096; do shapes+=("--batch_size $((16384 / s)) --num_head 16 --seqlen_q $s --seqlen_k $s --head_dim 256"); done
shapes+=("--batch_size 2 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 256" "--batch_size 32 --num_head 16 --seqlen_q 512 --seqlen_k 512 --head_dim 128" "--batch_size 32 --num_head 32 --seqlen_q 512 --seqlen_k 512 --head_dim 64")
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
for run in "memcheck BFloat16 256" "racecheck BFloat16 256" "synccheck BFloat16 256" "memcheck Float16 256" "memcheck BFloat16 128"; do
  set -- $run
  (( SECONDS > 520 )) && { echo "$run skipped (time)"; continue; }
  timeout 150 compute-sanitizer --tool $1 --error-exitcode 99 $N --kernel wgmma_persistent --dtype $2 --batch_size 2 --num_head 16 \
    --seqlen_q 600 --seqlen_k 777 --head_dim $3 --causal 0,1 --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 \
    --iterations 1 > $L/san_$1_$2_$3.log 2>&1; echo "$run rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/san_$1_$2_$3.log | tail -1)"
done
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
