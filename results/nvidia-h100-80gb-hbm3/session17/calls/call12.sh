#!/usr/bin/env bash
# Session 17 call 12: s17q2 = 8bbec00 + rung 9 (two Q buffers, non-causal) claiming its next tile and
# loading its Q after the current tile's second key tile is issued (call 11: the consumers' wait for
# Q at a tile's start is the largest stall line at 32x16x512x128). GPU tests; sanitizers on rung 9
# bf16 d64 / d128; A/B against s17x (b429d1a's kernels) on the FA2 grid's 512-2,048 points and two
# long ones, rung 9, causal (unchanged: a control) and not, 5 + 30 launches, two rounds.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/x /tmp/y
tar -xJf .exp/s17x.tar.xz -C /tmp/x; tar -xJf .exp/s17q2.tar.xz -C /tmp/y
export PATH=/usr/local/cuda/bin:$PATH
H=/tmp/x/fa-bench; N=/tmp/y/fa-bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 200 /tmp/y/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -3
DTYPES=BFloat16 HEAD_DIMS="64 128" timeout 200 scripts/sanitize.sh $N wgmma_persistent > $L/sanitize.log 2>&1; echo "sanitize rc=$?"; grep -c clean $L/sanitize.log
$H --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
R="--iterations 30 --warmup_iterations 5 --warmup_time 0 --gpu_warmup_time 0"
shapes=()
for d in 64 128 256; do h=16; [[ $d == 64 ]] && h=32
  for s in 512 1024 2048; do shapes+=("--batch_size $((16384 / s)) --num_head $h --seqlen_q $s --seqlen_k $s --head_dim $d"); done; done
shapes+=("--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128" "--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64")
for round in 1 2; do
  order="head new"; [[ $round == 2 ]] && order="new head"
  chk=--skip_ref_check; [[ $round == 1 ]] && chk=
  for t in $order; do
    b=$H; [[ $t == new ]] && b=$N
    for s in "${shapes[@]}"; do timeout 60 $b $s --kernel wgmma_persistent --causal 0,1 $R $chk --csv $L/ab_$t.csv >> $L/fa.log 2>&1; done
  done
done
python3 - $L <<'PY'
import csv, sys, statistics, collections
L = sys.argv[1]
def med(f):
    runs = collections.defaultdict(list); chk = {}
    for r in csv.DictReader(open(f)):
        if r['tflops']:
            k = (int(r['head_dim']), int(r['batch_size']), int(r['seqlen_q']), int(r['is_causal']))
            runs[k].append(float(r['tflops']))
            if r['check'] and r['check'] != 'SKIPPED': chk[k] = r['check']
    return {k: statistics.median(v) for k, v in runs.items()}, runs, chk
h, hr, _ = med(f'{L}/ab_head.csv'); c, cr, cc = med(f'{L}/ab_new.csv')
for k in sorted(c):
    print(' '.join(map(str, k)), f"head {h.get(k, 0):.1f} new {c[k]:.1f} x{c[k] / h.get(k, 1):.3f}",
          [f'{x:.0f}' for x in hr.get(k, [])], [f'{x:.0f}' for x in cr[k]], cc.get(k, ''))
PY
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
