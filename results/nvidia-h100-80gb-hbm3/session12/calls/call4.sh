#!/usr/bin/env bash
# Session 12 call 4: rung 8 with a 128x192 d128 tile (WgmmaFp8D128N192: Vᵀ rows of a 128-byte and
# a 64-byte swizzled block, 3 stages, lookahead 1; selected by its tile flags) next to the 128x128
# default. GPU tests (both in the matrix), compute-sanitizer on the new tile; then issue #11's
# shapes (4x16x8192x128, 1x16x16384x{128,256}, plus 2x16x8192x256), causal 0 and 1, three rounds
# of 5 + 30 launches, order rotating: FP8 (both d128 tiles), the bf16 top rungs 7 and 9, and the
# peers cuDNN FP8 (cudnn_fp8, nvidia-cudnn-frontend 1.26.0 wheel) and cuDNN bf16 (SDPA).
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b
tar -xJf .deps/s12c.tar.xz -C /tmp/b; N=/tmp/b/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 170 /tmp/b/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -2
T192="--m_block_size 128 --n_block_size 192 --num_threads 256"
DTYPES=Float8E4M3FN HEAD_DIMS=128 FA_ARGS="$T192" timeout 100 scripts/sanitize.sh $N wgmma_fp8 > $L/sanitize.log 2>&1; echo "sanitize rc=$?"; grep -c clean $L/sanitize.log
python3 -m pip install -q --no-deps --no-index --disable-pip-version-check --target /tmp/cfe .whl/cudnn_fe/nvidia_cudnn_frontend-1.26.0-*.whl
export PYTHONPATH=/tmp/cfe${PYTHONPATH:+:$PYTHONPATH}
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1
SB="--iterations 30 --warmup_iterations 5 --warmup_time 0"
PB="--iterations 30 --warmup_iterations 5 --warmup_time 0 --fa-bench $N --csv $L/peers.csv"
D128=("--batch_size 4 --seqlen_q 8192 --seqlen_k 8192" "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384")
D256=("--batch_size 1 --seqlen_q 16384 --seqlen_k 16384" "--batch_size 2 --seqlen_q 8192 --seqlen_k 8192")
for round in 1 2 3; do
  for shape in "${D128[@]}"; do
    case $round in 1) order="def n192";; 2) order="n192 def";; 3) order="def n192";; esac
    for v in $order; do
      if [[ $v == n192 ]]; then t="$T192"; else t=""; fi
      $N $SB --kernel wgmma_fp8 --dtype Float8E4M3FN --num_head 16 --head_dim 128 $shape $t --causal 0,1 --csv $L/fa.csv >> $L/fa.log 2>&1
    done
    $N $SB --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --num_head 16 --head_dim 128 $shape --causal 0,1 --csv $L/fa.csv >> $L/fa.log 2>&1
    timeout 120 python3 scripts/peers.py --backends cudnn_fp8 --dtype Float8E4M3FN --num_head 16 --head_dim 128 $shape --causal 0,1 $PB >> $L/peers.log 2>&1
    timeout 120 python3 scripts/peers.py --backends cudnn --dtype BFloat16 --num_head 16 --head_dim 128 $shape --causal 0,1 $PB >> $L/peers.log 2>&1
  done
  for shape in "${D256[@]}"; do
    $N $SB --kernel wgmma_fp8 --dtype Float8E4M3FN --num_head 16 --head_dim 256 $shape --causal 0,1 --csv $L/fa.csv >> $L/fa.log 2>&1
    $N $SB --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --num_head 16 --head_dim 256 $shape --causal 0,1 --csv $L/fa.csv >> $L/fa.log 2>&1
    timeout 120 python3 scripts/peers.py --backends cudnn_fp8 --dtype Float8E4M3FN --num_head 16 --head_dim 256 $shape --causal 0,1 $PB >> $L/peers.log 2>&1
    timeout 120 python3 scripts/peers.py --backends cudnn --dtype BFloat16 --num_head 16 --head_dim 256 $shape --causal 0,1 $PB >> $L/peers.log 2>&1
  done
done
python3 - $L/fa.csv $L/peers.csv <<'PY'
import csv, sys, statistics, collections
runs = collections.defaultdict(list)
for f in sys.argv[1:]:
    for r in csv.DictReader(open(f)):
        if r['tflops']:
            tile = f"{r['m_block_size']}x{r['n_block_size']}" if r['m_block_size'] else ''
            runs[(r['head_dim'], r['batch_size'], r['seqlen_q'], r['is_causal'], r['kernel'], r['dtype'][:4], tile)].append(float(r['tflops']))
for k in sorted(runs): print(' '.join(k), ' '.join(f'{v:.0f}' for v in runs[k]), f'med {statistics.median(runs[k]):.0f}')
PY
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
