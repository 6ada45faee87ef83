#!/usr/bin/env bash
# Session 16 call 4: s16c = s16b (call 2's seeded row sums) + the Hopper rungs' mask with one bound
# per row (wgmma_steps.cuh mask_tile) + rung 9's consumers reading the producer's decoded
# BlockCoords from the work slot (no integer divisions per tile). GPU tests (whole matrix but
# [large]); scripts/sanitize.sh on rung 9 bf16; then A/B against head (c730582) on the FA2 grid's
# 512-2048 points and two long causal ones, rungs 7 and 9, 5 + 30 launches, no idle warm-up (the
# grid's rule), two rounds, order rotated; FP8 rung 8 causal at 4x16x8192x128; cuDNN on the short
# points in the same call.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/x /tmp/c
tar -xJf .exp/s16a.tar.xz -C /tmp/x fa-bench-head; tar -xJf .exp/s16c.tar.xz -C /tmp/c
export PATH=/usr/local/cuda/bin:$PATH
H=/tmp/x/fa-bench-head; C=/tmp/c/fa-bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 240 /tmp/c/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -3
DTYPES=BFloat16 timeout 200 scripts/sanitize.sh $C wgmma_persistent > $L/sanitize.log 2>&1; echo "sanitize rc=$?"; grep -c clean $L/sanitize.log
$H --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
R="--iterations 30 --warmup_iterations 5 --warmup_time 0 --gpu_warmup_time 0"
shapes=()
for d in 64 128 256; do h=16; [[ $d == 64 ]] && h=32
  for s in 512 1024 2048; do shapes+=("--batch_size $((16384 / s)) --num_head $h --seqlen_q $s --seqlen_k $s --head_dim $d"); done; done
shapes+=("--batch_size 2 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128" "--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64")
for round in 1 2; do
  order="head c"; [[ $round == 2 ]] && order="c head"
  chk=--skip_ref_check; [[ $round == 1 ]] && chk=
  for t in $order; do
    b=$H; [[ $t == c ]] && b=$C
    for s in "${shapes[@]}"; do timeout 60 $b $s --kernel wgmma_overlap,wgmma_persistent --causal 0,1 $R $chk --csv $L/ab_$t.csv >> $L/fa.log 2>&1; done
    timeout 60 $b --batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --dtype Float8E4M3FN --kernel wgmma_fp8 --is_causal $R $chk --csv $L/ab_$t.csv >> $L/fa.log 2>&1
  done
done
for s in "${shapes[@]:0:9}"; do timeout 120 python3 scripts/peers.py --fa-bench $C --backends cudnn $s --causal 0,1 $R --csv $L/cudnn.csv >> $L/peers.log 2>&1; done
python3 - $L <<'PY'
import csv, sys, statistics, collections, os
L = sys.argv[1]
def med(f):
    runs = collections.defaultdict(list); chk = {}
    for r in csv.DictReader(open(f)):
        if r['tflops']:
            k = (r['kernel'], int(r['head_dim']), int(r['seqlen_q']), int(r['is_causal']))
            runs[k].append(float(r['tflops']))
            if r['check'] and r['check'] != 'SKIPPED': chk[k] = r['check']
    return {k: statistics.median(v) for k, v in runs.items()}, runs, chk
h, hr, _ = med(f'{L}/ab_head.csv'); c, cr, cc = med(f'{L}/ab_c.csv')
cu = med(f'{L}/cudnn.csv')[0] if os.path.exists(f'{L}/cudnn.csv') else {}
for k in sorted(c):
    ref = cu.get(('torch_cudnn',) + k[1:])
    print(' '.join(map(str, k)), f"head {h.get(k, 0):.1f} new {c[k]:.1f} x{c[k] / h.get(k, 1):.3f}",
          [f'{x:.0f}' for x in hr.get(k, [])], [f'{x:.0f}' for x in cr[k]], cc.get(k, ''),
          f"cudnn {ref:.1f} new/cudnn {c[k] / ref:.3f}" if ref else '')
PY
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
