#!/usr/bin/env bash
# Session 12 call 3: (a) rung 8 with a third FP8 d128 instance, 192x64 with three consumer
# warpgroups (WgmmaFp8D128W3, selected by its tile flags), against the 128x128 default: GPU tests
# (both in the matrix), compute-sanitizer on the new tile, A/B three rounds of 5 + 30 launches,
# order alternating, with the bf16 top rungs per round; (b) the cudnn_fp8 peer (cuDNN's FP8 SDPA
# through nvidia-cudnn-frontend 1.26.0, carried as a wheel): smoke test, then timed on issue #11's
# d128 shapes next to SDPA's cuDNN in bf16.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b
tar -xJf .deps/s12b.tar.xz -C /tmp/b; N=/tmp/b/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 170 /tmp/b/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -2
W3="--m_block_size 192 --n_block_size 64 --num_threads 384"
DTYPES=Float8E4M3FN HEAD_DIMS=128 FA_ARGS="$W3" timeout 100 scripts/sanitize.sh $N wgmma_fp8 > $L/sanitize.log 2>&1; echo "sanitize rc=$?"; grep -c clean $L/sanitize.log
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1
SB="--iterations 30 --warmup_iterations 5 --warmup_time 0"
for round in 1 2 3; do
  for shape in "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192" "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384"; do
    if (( round % 2 )); then order="def w3"; else order="w3 def"; fi
    for v in $order; do
      if [[ $v == w3 ]]; then t="$W3"; else t=""; fi
      $N $SB --kernel wgmma_fp8 --dtype Float8E4M3FN --num_head 16 --head_dim 128 $shape $t --causal 0,1 --csv $L/fp8_$v.csv >> $L/ab.log 2>&1
    done
    $N $SB --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --num_head 16 --head_dim 128 $shape --causal 0,1 --csv $L/bf16.csv >> $L/ab.log 2>&1
  done
done
grep -E "^wgmma" $L/ab.log | cut -c1-200
OUT=$L timeout 240 bash .whl/cudnn_fe/smoke.sh $N > $L/smoke.log 2>&1; echo "smoke rc=$?"; tail -12 $L/smoke.log
export PYTHONPATH=/tmp/cfe${PYTHONPATH:+:$PYTHONPATH}
for shape in "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192" "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384"; do
  timeout 120 python3 scripts/peers.py --fa-bench $N --backends cudnn_fp8 --dtype Float8E4M3FN --num_head 16 --head_dim 128 $shape \
    --causal 0,1 --iterations 30 --warmup_iterations 5 --warmup_time 0 --csv $L/peers.csv >> $L/peers.log 2>&1
  timeout 120 python3 scripts/peers.py --fa-bench $N --backends cudnn --dtype BFloat16 --num_head 16 --head_dim 128 $shape \
    --causal 0,1 --iterations 30 --warmup_iterations 5 --warmup_time 0 --csv $L/peers.csv >> $L/peers.log 2>&1
done
python3 -c "
import csv
for r in csv.DictReader(open('$L/peers.csv')): print(r['kernel'], r['dtype'], r['batch_size'], r['seqlen_q'], r['is_causal'], r['tflops'], r['check'], r['note'][:80])"
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
