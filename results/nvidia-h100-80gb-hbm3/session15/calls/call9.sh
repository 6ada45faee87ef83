#!/usr/bin/env bash
# Session 15 call 9: issue #11's shapes, causal only (the causal tile order changes nothing
# non-causal), as session 14 call 12 (every side on its default timing rule; peers.py with its idle
# warm-up): rung 8 (FP8) with the order off and on (s15c, FA_LPT_RULE=O and B: B is the final
# rule at these lengths), the bf16 top rungs 7 and 9 with it on, cuDNN FP8 (cudnn-frontend 1.26.0)
# and cuDNN bf16; two rounds.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/c
tar -xJf .deps/s15c.tar.xz -C /tmp/c; N=/tmp/c/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
python3 -m pip install -q --no-deps --no-index --disable-pip-version-check --target /tmp/cfe .whl/cudnn_fe/nvidia_cudnn_frontend-1.26.0-*.whl
export PYTHONPATH=/tmp/cfe${PYTHONPATH:+:$PYTHONPATH}
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1
for round in 1 2; do
  for shape in "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128" "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128" \
               "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256" "--batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --head_dim 256"; do
    FA_LPT_RULE=O $N --skip_ref_check --num_head 16 --causal 1 --csv $L/fp8_O.csv --kernel wgmma_fp8 --dtype Float8E4M3FN $shape >> $L/fa.log 2>&1
    FA_LPT_RULE=B $N --skip_ref_check --num_head 16 --causal 1 --csv $L/steady.csv --kernel wgmma_fp8 --dtype Float8E4M3FN $shape >> $L/fa.log 2>&1
    FA_LPT_RULE=B $N --skip_ref_check --num_head 16 --causal 1 --csv $L/steady.csv --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 $shape >> $L/fa.log 2>&1
    timeout 100 python3 scripts/peers.py --backends cudnn_fp8 --dtype Float8E4M3FN --num_head 16 --causal 1 --fa-bench $N --csv $L/steady.csv $shape >> $L/peers.log 2>&1
    timeout 100 python3 scripts/peers.py --backends cudnn --dtype BFloat16 --num_head 16 --causal 1 --fa-bench $N --csv $L/steady.csv $shape >> $L/peers.log 2>&1
    echo "round $round $shape done"
  done
done
python3 - $L <<'PY'
import csv, sys, statistics, collections
runs = collections.defaultdict(list)
for f, tag in (('fp8_O.csv', ' (order off)'), ('steady.csv', '')):
    for r in csv.DictReader(open(f'{sys.argv[1]}/{f}')):
        if r['tflops']:
            runs[(r['head_dim'], r['batch_size'], r['seqlen_q'], r['kernel'] + tag)].append((float(r['tflops']), r['sm_clock_mean_mhz'][:4]))
for k in sorted(runs):
    v = runs[k]
    print(' '.join(k), ' '.join(f'{t:.0f}@{c}' for t, c in v), f'med {statistics.median(t for t, _ in v):.1f}')
PY
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
