#!/usr/bin/env bash
# Session 20 call 7 (ROUND=1) and call 8 (ROUND=2, same machine kept warm): the committed rung 8 (V
# transposed by the pre-pass, s20e = this session's final kernels). Call 7: GPU tests (the whole
# matrix) and compute-sanitizer memcheck / racecheck / synccheck on FP8 at head_dim 128 and 256;
# then, both calls, issue #11's shapes as session 19 call 3 ran them: rung 8 in FP8, the bf16 top
# rungs 7 and 9, cuDNN 9.19 FP8 (cudnn-frontend 1.26.0) and cuDNN bf16 (SDPA), every side on its
# default timing rule (warm-up time, then the stopping rule: the clock the 700 W limit leaves),
# order rotating between the rounds; call 8 ends with one reference-checked row per shape.
set -uo pipefail
ROUND=${ROUND:-1}
L=$OUT/logs; mkdir -p $L /tmp/b /tmp/cfe
tar -xJf .exp/s20e.tar.xz -C /tmp/b; N=/tmp/b/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
python3 -m pip install -q --no-deps --no-index --disable-pip-version-check --target /tmp/cfe .whl/cudnn_fe/nvidia_cudnn_frontend-1.26.0-*.whl
export PYTHONPATH=/tmp/cfe${PYTHONPATH:+:$PYTHONPATH}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi_$ROUND.txt
if [[ $ROUND == 1 ]]; then
  ( time timeout 200 /tmp/b/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -3
  for d in 128 256; do
    for tool in memcheck racecheck synccheck; do
      timeout 100 compute-sanitizer --tool $tool --error-exitcode 99 $N --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size 2 --num_head 4 \
        --num_head_kv 2 --seqlen_q 600 --seqlen_k 777 --head_dim $d --causal 0,1 --skip_ref_check \
        --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $L/san_${tool}_$d.log 2>&1
      echo "$tool d$d rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/san_${tool}_$d.log | tail -1)"
    done
  done
fi
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
CL=$L/steady.csv
shapes=("--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
        "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
        "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256")
fa() {
  $N --skip_ref_check --num_head 16 --causal 0,1 --csv $CL --kernel wgmma_fp8 --dtype Float8E4M3FN $1 >> $L/fa.log 2>&1
  $N --skip_ref_check --num_head 16 --causal 0,1 --csv $CL --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 $1 >> $L/fa.log 2>&1
}
pe() {
  timeout 100 python3 scripts/peers.py --backends cudnn_fp8 --dtype Float8E4M3FN --num_head 16 --causal 0,1 --fa-bench $N --csv $CL $1 >> $L/peers.log 2>&1
  timeout 100 python3 scripts/peers.py --backends cudnn --dtype BFloat16 --num_head 16 --causal 0,1 --fa-bench $N --csv $CL $1 >> $L/peers.log 2>&1
}
for s in "${shapes[@]}"; do
  if [[ $SECONDS -gt 540 ]]; then echo "time guard: round $ROUND stopped at $SECONDS s"; break; fi
  if [[ $ROUND == 1 ]]; then fa "$s"; pe "$s"; else pe "$s"; fa "$s"; fi
  echo "round $ROUND [$s] done at $SECONDS s"
done
if [[ $ROUND == 2 ]]; then
  for s in "${shapes[@]}"; do
    $N --num_head 16 --causal 0,1 --iterations 10 --warmup_iterations 5 --csv $L/checked.csv --kernel wgmma_fp8 --dtype Float8E4M3FN $s >> $L/fa.log 2>&1
  done
  $N --num_head 16 --causal 0,1 --iterations 10 --warmup_iterations 5 --csv $L/checked.csv --kernel wgmma_persistent --dtype BFloat16 ${shapes[0]} >> $L/fa.log 2>&1
fi
python3 - $CL <<'PY'
import csv, sys, statistics, collections
runs = collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    if r['tflops']:
        runs[(r['head_dim'], r['batch_size'], r['seqlen_q'], r['is_causal'], r['kernel'], r['dtype'][:4])].append(
            (float(r['tflops']), r['sm_clock_mean_mhz'][:4] + 'MHz/' + r['power_w_mean'][:3] + 'W'))
for k in sorted(runs):
    v = runs[k]
    print(' '.join(k), ' '.join(f'{t:.0f}@{c}' for t, c in v), f'med {statistics.median(t for t, _ in v):.1f}')
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs_$ROUND.tgz logs && rm -rf logs
