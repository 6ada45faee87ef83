#!/usr/bin/env bash
# Session 24 call 4 (the last 6 minutes of device time): v = c (the committed kernels, 79a0e60) with
# two compile-time changes, each on other instances: the consumers' issue token off at head_dim 256
# (FA_FP8_D256_TOKEN 0; session 19 call 4 measured +1-2 % there, -2 to -5 % at d128) and, at head_dim
# 128, the speculative softmax's row sums added per 32-key step before the running sum (FA_FP8_TREE
# 1: chains of 8 FADDs instead of 32). c against v on issue #11's shapes, bf16 rungs 7 and 9 at d256
# for the ratio, default timing rule, two rounds, order reversed in the second; then GPU tests and
# racecheck / synccheck (d256, the barriers changed) on v if time is left.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s24c.tar.xz -C /tmp; tar -xJf .exp/s24v.tar.xz -C /tmp
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
/tmp/c/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
shapes=("--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256"
        "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
        "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128")
for round in 1 2; do
  order="c v"; [[ $round == 2 ]] && order="v c"
  for s in "${shapes[@]}"; do
    (( SECONDS > 150 )) && { echo "time guard at $SECONDS s"; break 2; }
    for t in $order; do
      timeout 40 /tmp/$t/fa-bench $s --num_head 16 --causal 0,1 --kernel wgmma_fp8 --dtype Float8E4M3FN --csv $L/fp8_$t.csv >> $L/fa.log 2>&1
    done
    [[ $s == *"head_dim 256"* ]] && timeout 40 /tmp/c/fa-bench $s --num_head 16 --causal 0,1 --skip_ref_check --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --csv $L/bf16.csv >> $L/fa.log 2>&1
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
bf = load(f'{L}/bf16.csv'); v = {t: load(f'{L}/fp8_{t}.csv') for t in ('c', 'v')}
for k in sorted(v['c']):
    best = max((med(bf[kk]) for kk in bf if kk[:3] == k[:3]), default=float('nan'))
    print(f'd{k[0]} b{k[1]} causal {k[2]}: best bf16 {best:.1f}')
    for t in ('c', 'v'):
        if k in v[t]:
            x = v[t][k]
            print(f'   {t} {med(x):7.1f} ({med(x,1):.0f} MHz) x{med(x)/best:.3f} vs c {med(x)/med(v["c"][k]):.3f} {[round(y[0]) for y in x]} {sorted({y[2] for y in x})} l2 {x[0][3][:6]}')
PY
if (( SECONDS < 170 )); then
  ( time timeout 90 /tmp/v/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests_v.log 2>&1; echo "gpu tests v rc=$?"; grep -E "passed|failed" $L/gpu_tests_v.log | tail -2
fi
for tool in racecheck synccheck; do
  (( SECONDS > 235 )) && { echo "time guard (sanitizers) at $SECONDS s"; break; }
  timeout 30 compute-sanitizer --tool $tool --error-exitcode 99 /tmp/v/fa-bench --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size 1 --num_head 4 \
    --num_head_kv 2 --seqlen_q 2051 --seqlen_k 777 --head_dim 256 --causal 0,1 --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $L/san_$tool.log 2>&1
  echo "v $tool d256 sq=2051 rc=$? $(grep -E 'ERROR SUMMARY' $L/san_$tool.log | tail -1) $(grep -cE ' PASS ' $L/san_$tool.log) PASS rows"
done
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
