#!/usr/bin/env bash
# Session 22 call 4: s22f = fb0625b (rung 8 with the lazy row max and the word-wise V pre-pass).
# racecheck on the pre-pass way at head_dim 256 (call 3's timed out) and 128, memcheck / synccheck
# at 256; then issue #11's shapes as session 19 call 3 and session 21 call 5 ran them, with
# s22q's rung 8 (b028507, the kernels before call 3's changes) beside s22f's: rung 8 in FP8
# (both binaries), the bf16 top rungs 7 and 9, cuDNN 9.19 FP8 (cudnn-frontend 1.26.0) and cuDNN
# bf16 (SDPA), every side on its default timing rule, two rounds, order reversed in the second;
# then one reference-checked row per shape.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/cfe
tar -xJf .exp/s22c.tar.xz -C /tmp; N=/tmp/f/fa-bench; A=/tmp/q/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
python3 -m pip install -q --no-deps --no-index --disable-pip-version-check --target /tmp/cfe .whl/cudnn_fe/nvidia_cudnn_frontend-1.26.0-*.whl
export PYTHONPATH=/tmp/cfe${PYTHONPATH:+:$PYTHONPATH}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
san() {  # tool head_dim seqlen_q causal
  timeout 200 compute-sanitizer --tool $1 --error-exitcode 99 $N --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size 1 --num_head 4 \
    --num_head_kv 2 --seqlen_q $3 --seqlen_k 777 --head_dim $2 --causal $4 --skip_ref_check \
    --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $L/san_$1_$2_$3_c$4.log 2>&1
  echo "$1 d$2 sq$3 c$4 rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/san_$1_$2_$3_c$4.log | tail -1) at $SECONDS s"
}
san racecheck 256 1100 0; san racecheck 256 2100 1; san synccheck 256 1100 0; san racecheck 128 2100 0
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
CL=$L/table.csv
shapes=("--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
        "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
        "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256")
fa() {
  $N --skip_ref_check --num_head 16 --causal 0,1 --csv $CL --kernel wgmma_fp8 --dtype Float8E4M3FN $1 >> $L/fa.log 2>&1
  $A --skip_ref_check --num_head 16 --causal 0,1 --csv $L/table_s22q.csv --kernel wgmma_fp8 --dtype Float8E4M3FN $1 >> $L/fa.log 2>&1
  $N --skip_ref_check --num_head 16 --causal 0,1 --csv $CL --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 $1 >> $L/fa.log 2>&1
}
pe() {
  timeout 100 python3 scripts/peers.py --backends cudnn_fp8 --dtype Float8E4M3FN --num_head 16 --causal 0,1 --fa-bench $N --csv $CL $1 >> $L/peers.log 2>&1
  timeout 100 python3 scripts/peers.py --backends cudnn --dtype BFloat16 --num_head 16 --causal 0,1 --fa-bench $N --csv $CL $1 >> $L/peers.log 2>&1
}
for round in 1 2; do
  for s in "${shapes[@]}"; do
    if [[ $SECONDS -gt 500 ]]; then echo "time guard: round $round stopped at $SECONDS s"; break 2; fi
    if [[ $round == 1 ]]; then fa "$s"; pe "$s"; else pe "$s"; fa "$s"; fi
    echo "round $round [$s] done at $SECONDS s"
  done
done
for s in "${shapes[@]}"; do
  timeout 60 $N --num_head 16 --causal 0,1 --iterations 10 --warmup_iterations 5 --csv $L/checked.csv --kernel wgmma_fp8 --dtype Float8E4M3FN $s >> $L/fa.log 2>&1
done
python3 - $L <<'PY'
import csv, sys, statistics, collections, os
L = sys.argv[1]
runs = collections.defaultdict(list)
for f, tag in ((f'{L}/table.csv', ''), (f'{L}/table_s22q.csv', ' s22q')):
    if not os.path.exists(f): continue
    for r in csv.DictReader(open(f)):
        if r['tflops']:
            runs[(r['head_dim'], r['batch_size'], r['seqlen_q'], r['is_causal'], r['kernel'] + tag, r['dtype'][:4])].append(
                (float(r['tflops']), r['sm_clock_mean_mhz'][:4] + 'MHz'))
for k in sorted(runs):
    v = runs[k]
    print(' '.join(k), ' '.join(f'{t:.0f}@{c}' for t, c in v), f'med {statistics.median(t for t, _ in v):.1f}')
for r in csv.DictReader(open(f'{L}/checked.csv')):
    print('checked', r['head_dim'], r['batch_size'], r['seqlen_q'], r['is_causal'], r['check'], r['rel_l2_err'], r['tflops'])
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
