#!/usr/bin/env bash
# Session 13 call 6: call 2 again on the binary to be committed (.deps/s13e.tar.xz: head_dim 256 with the
# ldmatrix.trans / stmatrix V transpose, head_dim 128 unchanged): issue #11's shapes with every side on its
# default timing rule (fa-bench: warm-up time, then the stopping rule; peers.py: the same rule),
# because call 1's short bursts (5 + 30 launches) let a row that starts on a cool GPU (the peers'
# fresh Python process) finish before the 700 W controller acts, while fa-bench's non-causal rows
# start warm and sit at the cap. Rung 8 (FP8), the bf16 top rungs 7 and 9, cuDNN FP8 and cuDNN bf16,
# two rounds; then call 1's bursts (5 + 30 launches, two rounds) on the same binary.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b
tar -xJf .deps/s13e.tar.xz -C /tmp/b; N=/tmp/b/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
python3 -m pip install -q --no-deps --no-index --disable-pip-version-check --target /tmp/cfe .whl/cudnn_fe/nvidia_cudnn_frontend-1.26.0-*.whl
export PYTHONPATH=/tmp/cfe${PYTHONPATH:+:$PYTHONPATH}
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1
CL=$L/steady.csv
for round in 1 2; do
  for shape in "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128" "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128" \
               "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256" "--batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --head_dim 256"; do
    $N --skip_ref_check --num_head 16 --causal 0,1 --csv $CL --kernel wgmma_fp8 --dtype Float8E4M3FN $shape >> $L/fa.log 2>&1
    $N --skip_ref_check --num_head 16 --causal 0,1 --csv $CL --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 $shape >> $L/fa.log 2>&1
    timeout 100 python3 scripts/peers.py --backends cudnn_fp8 --dtype Float8E4M3FN --num_head 16 --causal 0,1 --fa-bench $N --csv $CL $shape >> $L/peers.log 2>&1
    timeout 100 python3 scripts/peers.py --backends cudnn --dtype BFloat16 --num_head 16 --causal 0,1 --fa-bench $N --csv $CL $shape >> $L/peers.log 2>&1
    echo "round $round $shape done"
  done
done
python3 - $CL <<'PY'
import csv, sys, statistics, collections
runs = collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    if r['tflops']:
        runs[(r['head_dim'], r['batch_size'], r['seqlen_q'], r['is_causal'], r['kernel'], r['dtype'][:4])].append(
            (float(r['tflops']), r['sm_clock_mean_mhz'][:4] + 'MHz/' + r['power_w_mean'][:3] + 'W/n' + r['iterations']))
for k in sorted(runs):
    v = runs[k]
    print(' '.join(k), ' '.join(f'{t:.0f}@{c}' for t, c in v), f'med {statistics.median(t for t, _ in v):.0f}')
PY
SB="--iterations 30 --warmup_iterations 5 --warmup_time 0 --num_head 16 --causal 0,1 --csv $L/issue11.csv"
PB="--iterations 30 --warmup_iterations 5 --warmup_time 0 --num_head 16 --causal 0,1 --fa-bench $N --csv $L/issue11.csv"
for round in 1 2; do
  for shape in "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128" "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128" \
               "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256" "--batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --head_dim 256"; do
    $N $SB --kernel wgmma_fp8 --dtype Float8E4M3FN $shape >> $L/fa.log 2>&1
    $N $SB --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 $shape >> $L/fa.log 2>&1
  done
  timeout 150 python3 scripts/peers.py --backends cudnn_fp8 --dtype Float8E4M3FN --batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128,256 $PB >> $L/peers.log 2>&1
  timeout 150 python3 scripts/peers.py --backends cudnn --dtype BFloat16 --batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128,256 $PB >> $L/peers.log 2>&1
  timeout 150 python3 scripts/peers.py --backends cudnn_fp8 --dtype Float8E4M3FN --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 $PB >> $L/peers.log 2>&1
  timeout 150 python3 scripts/peers.py --backends cudnn --dtype BFloat16 --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 $PB >> $L/peers.log 2>&1
  timeout 150 python3 scripts/peers.py --backends cudnn_fp8 --dtype Float8E4M3FN --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --head_dim 256 $PB >> $L/peers.log 2>&1
  timeout 150 python3 scripts/peers.py --backends cudnn --dtype BFloat16 --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --head_dim 256 $PB >> $L/peers.log 2>&1
done
python3 - $L/issue11.csv <<'PY'
import csv, sys, statistics, collections
runs = collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    if r['tflops']:
        runs[(r['head_dim'], r['batch_size'], r['seqlen_q'], r['is_causal'], r['kernel'], r['dtype'][:4])].append(
            (float(r['tflops']), r['sm_clock_mean_mhz'] + 'MHz/' + r['power_w_mean'][:3] + 'W', r['rel_l2_err'], r['check']))
for k in sorted(runs):
    v = runs[k]
    print(' '.join(k), ' '.join(f'{t:.0f}@{c}' for t, c, _, _ in v), f'med {statistics.median(t for t, *_ in v):.0f}',
          'rel_l2', ' '.join(e for _, _, e, _ in v), ' '.join(sorted({c for *_, c in v})))
PY
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
