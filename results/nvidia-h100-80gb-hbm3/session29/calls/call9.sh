#!/usr/bin/env bash
# Session 29 call 9: issue #11's six points on the committed kernels with cuDNN's FP8 and bf16 attention on the
# pipelined peers harness (session 27 call 8 had them on the old one): per shape, fa-bench's FP8 rung (default
# tile; 128x128 beside it at d128) and bf16 rungs 7 and 9, then peers.py cudnn_fp8 and cudnn, who goes first
# alternating by round; two rounds; default timing rule everywhere.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/cfe; tar -xJf .exp/s29c.tar.xz -C /tmp; N=/tmp/base/fa-bench
python3 -m pip install -q --no-deps --no-index --disable-pip-version-check --target /tmp/cfe .whl/cudnn_fe/nvidia_cudnn_frontend-1.26.0-*.whl
export PYTHONPATH=/tmp/cfe${PYTHONPATH:+:$PYTHONPATH}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
shapes=("--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
        "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
        "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256")
fa() {
  timeout 60 $N $1 --num_head 16 --causal 0,1 --kernel wgmma_fp8 --dtype Float8E4M3FN --csv $L/fp8.csv >> $L/fa.log 2>&1
  [[ $1 == *"head_dim 128"* ]] && timeout 60 $N $1 --num_head 16 --causal 0,1 --kernel wgmma_fp8 --dtype Float8E4M3FN \
    --m_block_size 128 --n_block_size 128 --num_threads 256 --csv $L/fp8.csv >> $L/fa.log 2>&1
  timeout 60 $N $1 --num_head 16 --causal 0,1 --skip_ref_check --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --csv $L/bf16.csv >> $L/fa.log 2>&1
}
pe() {
  timeout 100 python3 scripts/peers.py --backends cudnn_fp8 --dtype Float8E4M3FN --num_head 16 --causal 0,1 --fa-bench $N --csv $L/peers.csv $1 >> $L/peers.log 2>&1
  timeout 100 python3 scripts/peers.py --backends cudnn --dtype BFloat16 --num_head 16 --causal 0,1 --fa-bench $N --csv $L/peers.csv $1 >> $L/peers.log 2>&1
}
for round in 1 2; do
  for s in "${shapes[@]}"; do
    (( SECONDS > 500 )) && { echo "time guard at $SECONDS s"; break 2; }
    if [[ $round == 1 ]]; then fa "$s"; pe "$s"; else pe "$s"; fa "$s"; fi
  done
  echo "round $round at $SECONDS s"
done
python3 - $L <<'PY'
import csv, sys, statistics, collections, os
L = sys.argv[1]
runs = collections.defaultdict(list)
for f in ('fp8.csv', 'bf16.csv', 'peers.csv'):
    if not os.path.exists(f'{L}/{f}'): continue
    for r in csv.DictReader(open(f'{L}/{f}')):
        if r['tflops']:
            kern = r['kernel'] + (f" {r['m_block_size']}x{r['n_block_size']}" if r['kernel'] == 'wgmma_fp8' else '')
            runs[(int(r['head_dim']), int(r['batch_size']), int(r['is_causal']))].append((kern, r['dtype'], float(r['tflops']), r['sm_clock_mean_mhz'][:4], r['check']))
for k in sorted(runs):
    by = collections.defaultdict(list)
    for kern, dt, t, mhz, chk in runs[k]: by[(kern, dt)].append((t, mhz, chk))
    best_bf = max(statistics.median(x[0] for x in v) for (kern, dt), v in by.items() if dt == 'BFloat16' and kern.startswith('wgmma'))
    print(f'd{k[0]} b{k[1]} causal {k[2]}: best bf16 rung {best_bf:.1f}')
    for (kern, dt), v in sorted(by.items()):
        m = statistics.median(x[0] for x in v)
        print(f'   {kern:24s} {dt:13s} {m:8.1f} x{m/best_bf:.3f} {[round(x[0],1) for x in v]} MHz {[x[1] for x in v]} {sorted({x[2] for x in v})}')
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
