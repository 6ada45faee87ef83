#!/usr/bin/env bash
# Session 19 call 3 (after calls 1-2, same machine; binary and cudnn-frontend wheel from their stash):
# issue #11's shapes on s19a (= commit 70be98e, session 18's final kernels):
# rung 8 (FP8 e4m3), the bf16 top rungs 7 and 9, cuDNN 9.19 FP8 (cudnn-frontend 1.26.0) and cuDNN bf16
# (SDPA), every side on its default timing rule (warm-up time, then the stopping rule: the clock the
# 700 W limit leaves), two rounds, order rotating between fa-bench and the peers.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b
tar -xJf /tmp/stash/s19a.tar.xz -C /tmp/b; N=/tmp/b/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
python3 -m pip install -q --no-deps --no-index --disable-pip-version-check --target /tmp/cfe /tmp/stash/nvidia_cudnn_frontend-1.26.0-*.whl
export PYTHONPATH=/tmp/cfe${PYTHONPATH:+:$PYTHONPATH}
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
for round in 1 2; do
  for s in "${shapes[@]}"; do
    if [[ $SECONDS -gt 480 ]]; then echo "time guard: round $round stopped at $SECONDS s"; break 2; fi
    if [[ $round == 1 ]]; then fa "$s"; pe "$s"; else pe "$s"; fa "$s"; fi
    echo "round $round [$s] done at $SECONDS s"
  done
done
# One reference-checked FP8 row per shape (the error next to bf16's): 5 + 10 launches.
for s in "${shapes[@]:0:1}"; do
  $N --num_head 16 --causal 0,1 --iterations 10 --warmup_iterations 5 --csv $L/checked.csv --kernel wgmma_fp8 --dtype Float8E4M3FN $s >> $L/fa.log 2>&1
  $N --num_head 16 --causal 0,1 --iterations 10 --warmup_iterations 5 --csv $L/checked.csv --kernel wgmma_persistent --dtype BFloat16 $s >> $L/fa.log 2>&1
done
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
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
