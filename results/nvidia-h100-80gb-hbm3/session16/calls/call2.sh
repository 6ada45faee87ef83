#!/usr/bin/env bash
# Session 16 call 2. (1) ncu --set full, one launch each at the base clock: rung 9 (wgmma_persistent,
# fa-bench --profile) against cuDNN 9.19 (cudnn_one.py) on the short FA2-grid points where cuDNN leads
# (issue #10): 32x16x512x128 non-causal and causal, 32x32x512x64 causal, 32x16x512x256 non-causal.
# (2) A/B for issue #13: s = the softmax row-sum chains seeded with their first p (2 FADDs fewer per
# row and key tile, rungs 3 and 4) against head (c730582); mma at 2x32x8192x64 and 4x16x8192x128,
# warp_specialized at d64; default timing rule, three rounds, order rotated.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/x
tar -xJf .exp/s16a.tar.xz -C /tmp/x fa-bench-head; tar -xJf .exp/s16b.tar.xz -C /tmp/x
export PATH=/usr/local/cuda/bin:$PATH
H=/tmp/x/fa-bench-head; S=/tmp/x/fa-bench-s
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
CALLS=results/nvidia-h100-80gb-hbm3/session16/calls
prof() {  # name, B, H, S, D, causal
  timeout 120 ncu --nvtx --nvtx-include "regex:fa-bench@.*/" --set full --csv --page raw --print-units base \
    --log-file $L/ncu_r9_$1.csv $H --profile --kernel wgmma_persistent --batch_size $2 --num_head $3 \
    --seqlen_q $4 --seqlen_k $4 --head_dim $5 --causal $6 > $L/ncu_r9_$1.out 2>&1
  timeout 120 ncu -k regex:"sdpa|fmha|flash|attn|fprop" --launch-skip 2 --launch-count 1 --set full --csv --page raw \
    --print-units base --log-file $L/ncu_cudnn_$1.csv python3 $CALLS/cudnn_one.py $2 $3 $4 $5 $6 > $L/ncu_cudnn_$1.out 2>&1
  echo "prof $1 done"
}
prof d128nc 32 16 512 128 0; prof d128c 32 16 512 128 1; prof d64c 32 32 512 64 1; prof d256nc 32 16 512 256 0
$H --kernel mma --iterations 300 --skip_ref_check > /dev/null 2>&1
D64="--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64"
A="--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
for round in 1 2 3; do
  order="head s"; [[ $round == 2 ]] && order="s head"
  chk=--skip_ref_check; [[ $round == 1 ]] && chk=
  for t in $order; do
    b=$H; [[ $t == s ]] && b=$S
    for s in "$D64" "$A"; do timeout 60 $b $s --kernel mma --causal 0,1 $chk --csv $L/ab_$t.csv >> $L/fa.log 2>&1; done
    timeout 60 $b $D64 --kernel warp_specialized --causal 0,1 $chk --csv $L/ab_$t.csv >> $L/fa.log 2>&1
  done
done
python3 - $L <<'PY'
import csv, sys, statistics, collections, os
for t in ('head', 's'):
    runs = collections.defaultdict(list); chk = {}
    for r in csv.DictReader(open(f'{sys.argv[1]}/ab_{t}.csv')):
        if r['tflops']:
            k = (r['kernel'], r['head_dim'], r['batch_size'], r['is_causal'])
            runs[k].append((float(r['tflops']), float(r['sm_clock_mean_mhz'] or 0)))
            if r['check'] and r['check'] != 'SKIPPED': chk[k] = r['check'] + ' ' + r['rel_l2_err'][:8]
    for k, v in sorted(runs.items()):
        print(t, ' '.join(k), f"{statistics.median(x for x, _ in v):.1f}", [f'{x:.0f}@{c:.0f}' for x, c in v], chk.get(k, ''))
PY
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
