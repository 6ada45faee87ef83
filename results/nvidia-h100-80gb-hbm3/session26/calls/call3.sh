#!/usr/bin/env bash
# Session 26 call 3: p3 = desc (call 1) + the softmax-token hooks (off) + head_dim 128's pre-pass
# way on three consumer warpgroups of 64 rows and 64-key tiles (192 x 64, 24 / 160 registers): calls
# 1-2's timelines show each warpgroup's loop is a serial latency chain (softmax ~1,200 cycles of a
# ~1,900-cycle period, the tensor pipe half idle), so a third chain per sub-partition. GPU tests,
# memcheck / synccheck / racecheck on the changed way; base against p3, d128 pre-pass shapes,
# default rule, two rounds, the bf16 rungs in round 1.
set -uo pipefail
L=$OUT/logs; mkdir -p $L
for t in base p3; do tar -xJf .exp/s26$t.tar.xz -C /tmp; done
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 120 /tmp/p3/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests_p3.log 2>&1; echo "gpu tests p3 rc=$? $(grep -E 'assertions' $L/gpu_tests_p3.log | tail -1) at $SECONDS s"
san() {  # tool causal
  timeout 90 compute-sanitizer --tool $1 --error-exitcode 99 /tmp/p3/fa-bench --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size 1 --num_head 4 \
    --num_head_kv 2 --seqlen_q 2051 --seqlen_k 777 --head_dim 128 --causal $2 \
    --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $L/san_$1_$2.log 2>&1
  echo "$1 d128 causal $2 rc=$? $(grep -E 'SUMMARY' $L/san_$1_$2.log | tail -1) $(grep -cE ' PASS ' $L/san_$1_$2.log) PASS rows at $SECONDS s"
}
san memcheck 0,1; san synccheck 0,1; san racecheck 0
/tmp/base/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
shapes=("--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
        "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
        "--batch_size 4 --seqlen_q 4096 --seqlen_k 4096 --head_dim 128")
for round in 1 2; do
  order="base p3"; [[ $round == 2 ]] && order="p3 base"
  for s in "${shapes[@]}"; do
    (( SECONDS > 400 )) && { echo "time guard at $SECONDS s"; break 2; }
    for t in $order; do
      timeout 60 /tmp/$t/fa-bench $s --num_head 16 --causal 0,1 --kernel wgmma_fp8 --dtype Float8E4M3FN --csv $L/fp8_$t.csv >> $L/fa.log 2>&1
    done
    [[ $round == 1 && $s != *"4096"* ]] && timeout 60 /tmp/base/fa-bench $s --num_head 16 --causal 0,1 --skip_ref_check --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --csv $L/bf16.csv >> $L/fa.log 2>&1
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
bf = load(f'{L}/bf16.csv'); v = {t: load(f'{L}/fp8_{t}.csv') for t in ('base', 'p3')}
for k in sorted(v['base']):
    bfk = {kk[3]: med(bf[kk]) for kk in bf if kk[:3] == k[:3]}
    best = max(bfk.values(), default=float('nan'))
    print(f'd{k[0]} b{k[1]} causal {k[2]}: bf16 ' + ' '.join(f'{n} {x:.1f}' for n, x in sorted(bfk.items())))
    for t in ('base', 'p3'):
        if k in v[t]:
            x = v[t][k]
            print(f'   {t:4s} {med(x):7.1f} ({med(x,1):.0f} MHz) x{med(x)/best:.3f} vs base {med(x)/med(v["base"][k]):.3f} {[round(y[0]) for y in x]} {sorted({y[2] for y in x})} l2 {x[0][3][:6]}')
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
