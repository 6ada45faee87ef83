#!/usr/bin/env bash
# Session 19 call 8 (right after call 7): is call 6's steady state fair? There every row followed its
# predecessor after 0.2 s of warm-up (1 s after an idle gap), and the peers' rows ran at 1,750-1,940
# MHz and 510-690 W where fa-bench's ran at 1,500-1,600 MHz and 700 W. Here four of call 6's points
# with EVERY row warmed up for 3 s (--warmup_time 3 --gpu_warmup_time 3 on both sides), so each
# kernel reaches the power controller's equilibrium before it is timed; two rounds, order alternating.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/x /tmp/site
tar -xJf .exp/s19a.tar.xz -C /tmp/x; N=/tmp/x/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
cat /tmp/stash/cute_site.part.aa .whl/cute/p2/cute_site.part.ab | xz -d | tar -x -C /tmp/site || echo "CuTe site unpack failed"
python3 -c "import google.protobuf" 2>/dev/null && rm -rf /tmp/site/google /tmp/site/protobuf-*.dist-info
pip install --quiet --no-deps --no-index --target /tmp/site .whl/fa4/*.whl > $L/pip.log 2>&1 || echo "fa4 install failed"
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
python3 -c "import flash_attn.cute, torch; print('fa4 import ok')" >> $L/pip.log 2>&1; tail -1 $L/pip.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
CL=$L/steady3s.csv
W="--warmup_time 3 --gpu_warmup_time 3"
points=("--batch_size 32 --num_head 16 --seqlen_q 512 --seqlen_k 512 --head_dim 128"
        "--batch_size 32 --num_head 16 --seqlen_q 512 --seqlen_k 512 --head_dim 256"
        "--batch_size 8 --num_head 16 --seqlen_q 2048 --seqlen_k 2048 --head_dim 256"
        "--batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128")
fa() { timeout 60 $N $1 --causal 0 --skip_ref_check --kernel wgmma_overlap,wgmma_persistent $W --csv $CL >> $L/fa.log 2>&1; }
pe() { timeout 90 python3 scripts/peers.py --backends fa4,cudnn $1 --causal 0 $W --fa-bench $N --csv $CL >> $L/peers.log 2>&1; }
for round in 1 2; do
  for s in "${points[@]}"; do
    if [[ $SECONDS -gt 500 ]]; then echo "time guard: round $round stopped at $SECONDS s"; break 2; fi
    if [[ $round == 1 ]]; then fa "$s"; pe "$s"; else pe "$s"; fa "$s"; fi
  done
  echo "round $round done at $SECONDS s"
done
python3 - $CL <<'PY'
import csv, sys, statistics, collections
runs = collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    if r['tflops']:
        runs[(int(r['head_dim']), int(r['batch_size']), int(r['seqlen_q']))].append(
            (r['kernel'], float(r['tflops']), r['sm_clock_mean_mhz'][:4], r['power_w_mean'][:3]))
for k in sorted(runs):
    by = collections.defaultdict(list)
    for kern, t, c, w in runs[k]: by[kern].append((t, c, w))
    med = {kern: statistics.median(t for t, *_ in v) for kern, v in by.items()}
    ours = max(med.get('wgmma_overlap', 0), med.get('wgmma_persistent', 0))
    peer = max(med.get('fa4', 0), med.get('torch_cudnn', 0))
    print('d%d %dx%d' % k, ' '.join(f'{kern} {m:.1f} [' + ' '.join(f'{t:.0f}@{c}MHz/{w}W' for t, c, w in by[kern]) + ']'
                                    for kern, m in med.items()), f'best ours / best peer {ours / peer:.3f}' if peer else '')
PY
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
