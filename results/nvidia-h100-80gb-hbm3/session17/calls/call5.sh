#!/usr/bin/env bash
# Session 17 call 5: s17w = c2381e5 + rung 9's 160-key head_dim-128 tile with both Q buffers
# (PersistentD128Wide, 224 KB), default for non-causal problems of >= 2,048 rows. GPU tests;
# compute-sanitizer on the new tile; then in the one binary rung 9 at 128 vs 160 keys (tile flags)
# and rung 7 (its default) on the FA2 grid's head_dim-128 points, causal and not, 5 + 30 launches,
# two rounds, order rotated; two long non-causal points on the default (steady-state) rule.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/w
tar -xJf .exp/s17w.tar.xz -C /tmp/w
export PATH=/usr/local/cuda/bin:$PATH
N=/tmp/w/fa-bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 200 /tmp/w/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -3
FA_ARGS="--m_block_size 128 --n_block_size 160 --num_threads 256" HEAD_DIMS=128 DTYPES="BFloat16 Float16" timeout 240 scripts/sanitize.sh $N wgmma_persistent > $L/sanitize.log 2>&1; echo "sanitize rc=$?"; grep -c clean $L/sanitize.log; tail -3 $L/sanitize.log
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
R="--iterations 30 --warmup_iterations 5 --warmup_time 0 --gpu_warmup_time 0"
T128="--m_block_size 128 --n_block_size 128 --num_threads 256"; T160="--m_block_size 128 --n_block_size 160 --num_threads 256"
shapes=()
for s in 512 1024 2048 4096 8192 16384; do shapes+=("--batch_size $((16384 / s)) --num_head 16 --seqlen_q $s --seqlen_k $s --head_dim 128"); done
shapes+=("--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128")
for round in 1 2; do
  order="a b c"; [[ $round == 2 ]] && order="c b a"
  chk=--skip_ref_check; [[ $round == 1 ]] && chk=
  for t in $order; do
    for s in "${shapes[@]}"; do
      case $t in
        a) timeout 60 $N $s --kernel wgmma_persistent $T128 --causal 0,1 $R $chk --csv $L/ab.csv >> $L/fa.log 2>&1 ;;
        b) timeout 60 $N $s --kernel wgmma_persistent $T160 --causal 0,1 $R $chk --csv $L/ab.csv >> $L/fa.log 2>&1 ;;
        c) timeout 60 $N $s --kernel wgmma_overlap --causal 0,1 $R $chk --csv $L/ab.csv >> $L/fa.log 2>&1 ;;
      esac
    done
  done
done
for round in 1 2; do
  for T in "$T128" "$T160"; do
    timeout 60 $N --batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128 --kernel wgmma_persistent $T --skip_ref_check --csv $L/ss.csv >> $L/fa.log 2>&1
    timeout 60 $N --batch_size 8 --num_head 16 --seqlen_q 2048 --seqlen_k 2048 --head_dim 128 --kernel wgmma_persistent $T --skip_ref_check --csv $L/ss.csv >> $L/fa.log 2>&1
  done
  timeout 60 $N --batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128 --kernel wgmma_overlap --skip_ref_check --csv $L/ss.csv >> $L/fa.log 2>&1
  timeout 60 $N --batch_size 8 --num_head 16 --seqlen_q 2048 --seqlen_k 2048 --head_dim 128 --kernel wgmma_overlap --skip_ref_check --csv $L/ss.csv >> $L/fa.log 2>&1
done
python3 - $L <<'PY'
import csv, sys, statistics, collections
L = sys.argv[1]
for f in ('ab', 'ss'):
    runs = collections.defaultdict(list); clk = collections.defaultdict(list); chk = {}
    for r in csv.DictReader(open(f'{L}/{f}.csv')):
        if r['tflops']:
            k = (int(r['batch_size']), int(r['seqlen_q']), int(r['is_causal']), r['kernel'], r['n_block_size'])
            runs[k].append(float(r['tflops'])); clk[k].append(r['sm_clock_mean_mhz'][:4])
            if r['check'] and r['check'] != 'SKIPPED': chk[k] = r['check']
    print('==', f)
    for k in sorted(runs):
        print(' '.join(map(str, k)), f"{statistics.median(runs[k]):.1f}", [f'{x:.0f}' for x in runs[k]], clk[k], chk.get(k, ''))
PY
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
