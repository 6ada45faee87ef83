#!/usr/bin/env bash
# Session 13 call 1: session 12's call 6 again (its logs were lost with that session), on the
# binary of 4f579f5 built afresh (.deps/s13a.tar.xz): GPU tests; compute-sanitizer on rung 8 at
# d128 and d256; issue #11's shapes (4x16x8192x128, 1x16x16384x{128,256}, plus 2x16x8192x256),
# causal 0 and 1, two rounds of 5 + 30 launches: rung 8 (FP8), the bf16 top rungs 7 and 9, and
# the peers cuDNN FP8 (cudnn_fp8: nvidia-cudnn-frontend 1.26.0, cuDNN 9.19) and cuDNN bf16 (SDPA).
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b
tar -xJf .deps/s13a.tar.xz -C /tmp/b; N=/tmp/b/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 170 /tmp/b/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -2
DTYPES=Float8E4M3FN HEAD_DIMS="128 256" timeout 150 scripts/sanitize.sh $N wgmma_fp8 > $L/sanitize.log 2>&1; echo "sanitize rc=$?"; grep -c clean $L/sanitize.log
python3 -m pip install -q --no-deps --no-index --disable-pip-version-check --target /tmp/cfe .whl/cudnn_fe/nvidia_cudnn_frontend-1.26.0-*.whl
export PYTHONPATH=/tmp/cfe${PYTHONPATH:+:$PYTHONPATH}
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1
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
