#!/usr/bin/env bash
# Session 18 call 7: s18u = 14645a0 + rung 9's head_dim-256 64-key tile with O staged in its own
# 32 KB buffer (PersistentD256Staged), so each Q half is handed back once its warpgroup's last S
# has landed (call 6's trace: at 32x16x512x256 both warpgroups wait 2.2-2.6 us of a 16.7 us tile
# for the next Q). GPU tests (~[large]); sanitizers on the new tile; one binary, tiles by flag:
# 128x80 (the default) against 128x64 staged, head_dim 256, 512-4,096, causal and not, 5 + 30
# launches, three rounds, order rotated, round 1 checked.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/n
tar -xJf .exp/s18u.tar.xz -C /tmp/n
export PATH=/usr/local/cuda/bin:$PATH
N=/tmp/n/fa-bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 170 /tmp/n/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -3
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
R="--iterations 30 --warmup_iterations 5 --warmup_time 0 --gpu_warmup_time 0"
shapes=()
for s in 512 1024 2048 4096; do shapes+=("--batch_size $((16384 / s)) --num_head 16 --seqlen_q $s --seqlen_k $s --head_dim 256"); done
for round in 1 2 3; do
  order="80 64"; [[ $round == 2 ]] && order="64 80"
  chk=--skip_ref_check; [[ $round == 1 ]] && chk=
  for t in $order; do
    for s in "${shapes[@]}"; do timeout 60 $N $s --kernel wgmma_persistent --m_block_size 128 --n_block_size $t --num_threads 256 \
      --causal 0,1 $R $chk --csv $L/ab_$t.csv >> $L/fa.log 2>&1; done
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
h, hr, _ = med(f'{L}/ab_80.csv'); c, cr, cc = med(f'{L}/ab_64.csv')
for k in sorted(c):
    print(' '.join(map(str, k)), f"80 {h.get(k, 0):.1f} 64-staged {c[k]:.1f} x{c[k] / h.get(k, 1):.3f}",
          [f'{x:.0f}' for x in hr.get(k, [])], [f'{x:.0f}' for x in cr[k]], cc.get(k, ''))
PY
for run in "memcheck BFloat16" "racecheck BFloat16" "synccheck BFloat16" "memcheck Float16"; do
  set -- $run
  (( SECONDS > 520 )) && { echo "$run skipped (time)"; continue; }
  timeout 150 compute-sanitizer --tool $1 --error-exitcode 99 $N --kernel wgmma_persistent --dtype $2 --batch_size 2 --num_head 16 \
    --seqlen_q 600 --seqlen_k 777 --head_dim 256 --m_block_size 128 --n_block_size 64 --num_threads 256 --causal 0,1 \
    --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $L/san_$1_$2.log 2>&1
  echo "$run rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/san_$1_$2.log | tail -1)"
done
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
