#!/usr/bin/env bash
# Session 26 call 2: smt = desc (call 1) + the softmax token on every rung-8 config: the two consumer
# warpgroups take turns at their softmax (named barriers, the issue token off), so the softmaxes,
# which call 1's timeline shows overlapping ~770 of ~1,100-1,280 cycles on a ~1,900-cycle period,
# no longer share the MUFU. GPU tests on smt; a timeline of smt (tlsmt, timeline points as
# call 1's but 4 = the softmax token taken); then base against smt on issue #11's shapes and
# 8x16x2048x128, default rule, two rounds, the bf16 rungs in round 1.
set -uo pipefail
L=$OUT/logs; mkdir -p $L
for t in base smt tlsmt; do tar -xJf .exp/s26$t.tar.xz -C /tmp; done
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 120 /tmp/smt/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests_smt.log 2>&1; echo "gpu tests smt rc=$? $(grep -E 'assertions' $L/gpu_tests_smt.log | tail -1) at $SECONDS s"
for t in tlsmt; do
  for c in 0 1; do
  /tmp/$t/fa-bench --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --num_head 16 --causal $c --kernel wgmma_fp8 \
    --dtype Float8E4M3FN --skip_ref_check --warmup_iterations 3 --warmup_time 0 --gpu_warmup_time 1 --iterations 12 > $L/timeline_${t}_c$c.log 2>&1
  echo "$t causal $c rc=$? $(grep -c '^TL' $L/timeline_${t}_c$c.log) TL lines"
  done
done
/tmp/base/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
shapes=("--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
        "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
        "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256"
        "--batch_size 8 --seqlen_q 2048 --seqlen_k 2048 --head_dim 128")
for round in 1 2; do
  order="base smt"; [[ $round == 2 ]] && order="smt base"
  for s in "${shapes[@]}"; do
    (( SECONDS > 400 )) && { echo "time guard at $SECONDS s"; break 2; }
    for t in $order; do
      timeout 60 /tmp/$t/fa-bench $s --num_head 16 --causal 0,1 --kernel wgmma_fp8 --dtype Float8E4M3FN --csv $L/fp8_$t.csv >> $L/fa.log 2>&1
    done
    [[ $round == 1 && $s != *"head_dim 256"* && $s != *"2048"* ]] && timeout 60 /tmp/base/fa-bench $s --num_head 16 --causal 0,1 --skip_ref_check --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --csv $L/bf16.csv >> $L/fa.log 2>&1
  done
  echo "round $round done at $SECONDS s"
done
python3 - $L <<'PY'
import csv, sys, statistics, collections, os
L = sys.argv[1]
def load(f):
    runs = collections.defaultdict(list)
    if not os.path.exists(f): return runs
    for r in csv.DictReader(open(f)):
        if r['tflops']:
            runs[(int(r['head_dim']), int(r['batch_size']), int(r['is_causal']), r['kernel'])].append(
                (float(r['tflops']), float(r['sm_clock_mean_mhz'] or 0), r['check'], r['rel_l2_err']))
    return runs
med = lambda xs, i=0: statistics.median(x[i] for x in xs)
bf = load(f'{L}/bf16.csv'); v = {t: load(f'{L}/fp8_{t}.csv') for t in ('base', 'smt')}
for k in sorted(v['base']):
    bfk = {kk[3]: med(bf[kk]) for kk in bf if kk[:3] == k[:3]}
    best = max(bfk.values(), default=float('nan'))
    print(f'd{k[0]} b{k[1]} causal {k[2]}: bf16 ' + ' '.join(f'{n} {x:.1f}' for n, x in sorted(bfk.items())))
    for t in ('base', 'smt'):
        if k in v[t]:
            x = v[t][k]
            print(f'   {t:4s} {med(x):7.1f} ({med(x,1):.0f} MHz) x{med(x)/best:.3f} vs base {med(x)/med(v["base"][k]):.3f} {[round(y[0]) for y in x]} {sorted({y[2] for y in x})} l2 {x[0][3][:6]}')
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
