#!/usr/bin/env bash
# Session 21 call 7: call 4's change on the bf16 rungs. Q's A fragments in registers (S = Q·Kᵀ as
# wgmma RS, 32 registers at head_dim 128, 16 at 64) on rungs 6, 7 and 9 where the consumers have
# room: s21t = the 128-key head_dim-128 tile and the short causal head_dim-64 tile (no spill);
# s21w = s21t plus the 160-key tile (ptxas spills 32 B there); s21r1 = main (SS). GPU tests and
# memcheck / racecheck on s21t's rungs 6, 7, 9 (d128 and d64, odd shapes), then bursts on the
# default timing rule, two rounds, order rotating.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/r /tmp/t /tmp/w
tar -xJf .exp/s21r1.tar.xz -C /tmp/r; tar -xJf .exp/s21t.tar.xz -C /tmp/t; tar -xJf .exp/s21w.tar.xz -C /tmp/w
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 200 /tmp/t/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -3
for d in 128 64; do
  for tool in memcheck racecheck; do
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 99 /tmp/t/fa-bench --kernel wgmma_ws,wgmma_overlap,wgmma_persistent --batch_size 2 --num_head 4 \
      --seqlen_q 600 --seqlen_k 777 --head_dim $d --causal 0,1 --skip_ref_check \
      --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $L/san_${tool}_$d.log 2>&1
    echo "$tool d$d rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/san_${tool}_$d.log | tail -1)"
  done
done
/tmp/r/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
for round in 1 2; do
  order="r t w"; [[ $round == 2 ]] && order="w t r"
  for s in "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192" "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384" "--batch_size 2 --seqlen_q 8192 --seqlen_k 8192" \
           "--batch_size 8 --seqlen_q 2048 --seqlen_k 2048" "--batch_size 16 --seqlen_q 1024 --seqlen_k 1024" "--batch_size 32 --seqlen_q 512 --seqlen_k 512"; do
    (( SECONDS > 520 )) && { echo "time guard at $SECONDS s"; break 2; }
    for t in $order; do
      timeout 60 /tmp/$t/fa-bench $s --num_head 16 --head_dim 128 --causal 0,1 --kernel wgmma_overlap,wgmma_persistent --skip_ref_check --csv $L/b_$t.csv >> $L/fa.log 2>&1
    done
  done
  echo "round $round done at $SECONDS s"
done
for t in t w; do
  timeout 60 /tmp/$t/fa-bench --batch_size 1 --seqlen_q 4096 --seqlen_k 4096 --num_head 16 --head_dim 128 --causal 0,1 --kernel wgmma_overlap,wgmma_persistent \
    --iterations 5 --warmup_iterations 2 --csv $L/checked_$t.csv >> $L/fa.log 2>&1
done
python3 - $L <<'PY'
import csv, sys, statistics, collections, os
L = sys.argv[1]
def load(f):
    runs = collections.defaultdict(list)
    if os.path.exists(f):
        for r in csv.DictReader(open(f)):
            if r['tflops']:
                runs[(r['kernel'], int(r['batch_size']), int(r['seqlen_q']), int(r['is_causal']))].append((float(r['tflops']), r['n_block_size']))
    return runs
b = {t: load(f'{L}/b_{t}.csv') for t in 'rtw'}
med = lambda xs: statistics.median(x[0] for x in xs)
for k in sorted(b['r']):
    line = '%s %dx16x%d c%d:' % k
    for t in 'rtw':
        if k in b[t]: line += f' {t} {med(b[t][k]):.1f} (n{b[t][k][0][1]}) x{med(b[t][k]) / med(b["r"][k]):.3f} |'
    print(line)
for t in 'tw':
    if os.path.exists(f'{L}/checked_{t}.csv'):
        for r in csv.DictReader(open(f'{L}/checked_{t}.csv')):
            print('checked', t, r['kernel'], r['is_causal'], r['n_block_size'], r['check'], r['rel_l2_err'])
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
