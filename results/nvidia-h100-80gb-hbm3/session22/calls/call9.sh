#!/usr/bin/env bash
# Session 22 call 9: issue #11's table again on the session's final binary s22z = 7019b5c (the bf16
# rungs 7 and 9 with the lazy max at head_dim 256, +1 to +5 % in call 8; rung 8 as in call 4), as
# call 4 ran it (default timing rule, two rounds, order reversed in the second, cuDNN FP8 and bf16
# in the same call), without the "before" column and the sanitizers; plus 2x16x8192x256 in bf16
# (issue #10's head_dim-256 point: rungs 7 and 9 against cuDNN bf16).
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/cfe
tar -xJf .exp/s22z.tar.xz -C /tmp; N=/tmp/z/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
python3 -m pip install -q --no-deps --no-index --disable-pip-version-check --target /tmp/cfe .whl/cudnn_fe/nvidia_cudnn_frontend-1.26.0-*.whl
export PYTHONPATH=/tmp/cfe${PYTHONPATH:+:$PYTHONPATH}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
CL=$L/table.csv
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
    if [[ $SECONDS -gt 500 ]]; then echo "time guard: round $round stopped at $SECONDS s"; break 2; fi
    if [[ $round == 1 ]]; then fa "$s"; pe "$s"; else pe "$s"; fa "$s"; fi
    echo "round $round [$s] done at $SECONDS s"
  done
done
D256="--batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --head_dim 256"
for round in 1 2; do
  $N --skip_ref_check --num_head 16 --causal 0,1 --csv $L/d256.csv --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 $D256 >> $L/fa.log 2>&1
  timeout 100 python3 scripts/peers.py --backends cudnn --dtype BFloat16 --num_head 16 --causal 0,1 --fa-bench $N --csv $L/d256.csv $D256 >> $L/peers.log 2>&1
done
echo "d256 done at $SECONDS s"
for s in "${shapes[@]}"; do
  timeout 60 $N --num_head 16 --causal 0,1 --iterations 10 --warmup_iterations 5 --csv $L/checked.csv --kernel wgmma_fp8 --dtype Float8E4M3FN $s >> $L/fa.log 2>&1
done
python3 - $L <<'PY'
import csv, sys, statistics, collections, os
L = sys.argv[1]
runs = collections.defaultdict(list)
for f, tag in ((f'{L}/table.csv', ''), (f'{L}/d256.csv', ' d256')):
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
