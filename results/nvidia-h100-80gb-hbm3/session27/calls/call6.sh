#!/usr/bin/env bash
# Session 27 call 6: t4 = the commit (rung 8's tail split: the grid's last wave, when at most half full,
# cut into key chunks run by the kernel's chunk build, a programmatic launch after the tiles'; GPU tests and
# sanitizers ran on this build in call 5). Issue #11's shapes with rung 8's default and 128 x 128 tiles, the
# bf16 rungs 7 and 9, default timing rule, two rounds (order reversed), and cuDNN FP8 (cudnn-frontend
# 1.26.0) and cuDNN bf16 (SDPA) on the same shapes, one round. (From session 26's call4.sh.)
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/cfe; tar -xJf .exp/s27t4.tar.xz -C /tmp; N=/tmp/t4/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
shapes=("--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
        "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
        "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256")
fp8() {
  timeout 60 $N $1 --num_head 16 --causal 0,1 --kernel wgmma_fp8 --dtype Float8E4M3FN --csv $L/fp8.csv >> $L/fa.log 2>&1
  [[ $1 == *"head_dim 128"* ]] && timeout 60 $N $1 --num_head 16 --causal 0,1 --kernel wgmma_fp8 --dtype Float8E4M3FN \
    --m_block_size 128 --n_block_size 128 --num_threads 256 --csv $L/fp8.csv >> $L/fa.log 2>&1
}
bf16() { timeout 60 $N $1 --num_head 16 --causal 0,1 --skip_ref_check --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --csv $L/bf16.csv >> $L/fa.log 2>&1; }
for round in 1 2; do
  for s in "${shapes[@]}"; do
    if [[ $round == 1 ]]; then fp8 "$s"; bf16 "$s"; else bf16 "$s"; fp8 "$s"; fi
  done
  echo "round $round done at $SECONDS s"
done
python3 -m pip install -q --no-deps --no-index --disable-pip-version-check --target /tmp/cfe .whl/cudnn_fe/nvidia_cudnn_frontend-1.26.0-*.whl
export PYTHONPATH=/tmp/cfe${PYTHONPATH:+:$PYTHONPATH}
for s in "${shapes[@]}"; do
  (( SECONDS > 480 )) && { echo "time guard (peers) at $SECONDS s"; break; }
  timeout 100 python3 scripts/peers.py --backends cudnn_fp8 --dtype Float8E4M3FN --num_head 16 --causal 0,1 --fa-bench $N --csv $L/peers.csv $s >> $L/peers.log 2>&1
  timeout 100 python3 scripts/peers.py --backends cudnn --dtype BFloat16 --num_head 16 --causal 0,1 --fa-bench $N --csv $L/peers.csv $s >> $L/peers.log 2>&1
done
echo "peers done at $SECONDS s"
python3 - $L <<'PY'
import csv, sys, statistics, collections, os
L = sys.argv[1]
runs = collections.defaultdict(list)
for f in ('fp8.csv', 'bf16.csv', 'peers.csv'):
    if not os.path.exists(f'{L}/{f}'): continue
    for r in csv.DictReader(open(f'{L}/{f}')):
        if r['tflops']:
            kern = r['kernel'] + (f" {r['m_block_size']}x{r['n_block_size']}" if r['kernel'] == 'wgmma_fp8' else '')
            runs[(int(r['head_dim']), int(r['batch_size']), int(r['is_causal']))].append((kern, r['dtype'], float(r['tflops']), r['sm_clock_mean_mhz'], r['check'], r['rel_l2_err']))
for k in sorted(runs):
    by = collections.defaultdict(list)
    for kern, dt, t, mhz, chk, l2 in runs[k]: by[(kern, dt)].append((t, mhz, chk, l2))
    best_bf = max(statistics.median(x[0] for x in v) for (kern, dt), v in by.items() if dt == 'BFloat16' and kern.startswith('wgmma'))
    print(f'd{k[0]} b{k[1]} causal {k[2]}: best bf16 rung {best_bf:.1f}')
    for (kern, dt), v in sorted(by.items()):
        m = statistics.median(x[0] for x in v)
        print(f'   {kern:26s} {dt:13s} {m:8.1f} x{m/best_bf:.3f} {[round(x[0],1) for x in v]} MHz {[x[1] for x in v]} {sorted({x[2] for x in v})} l2 {v[0][3][:6]}')
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
