#!/usr/bin/env bash
# Session 25 call 7: both = fin + call 6's two winners as committed (traits, not macros): the
# pre-pass ways without the issue token (kIssueToken), head_dim 128's at 24 / 240 registers
# (WgmmaFp8D128Prepass); the in-kernel ways' device code md5-identical to fin's. GPU tests and
# memcheck / racecheck / synccheck on both pre-pass ways (the token's removal changes the
# consumers' synchronization), then issue #11's shapes, fin against both, the bf16 rungs 7 and 9
# in the same call, default timing rule, two rounds, order reversed in the second.
set -uo pipefail
L=$OUT/logs; mkdir -p $L
for t in fin both; do tar -xJf .exp/s25$t.tar.xz -C /tmp; done
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 120 /tmp/both/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests_both.log 2>&1; echo "gpu tests both rc=$? $(grep -E 'assertions' $L/gpu_tests_both.log | tail -1)"
san() {  # tool head_dim causal
  timeout 75 compute-sanitizer --tool $1 --error-exitcode 99 /tmp/both/fa-bench --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size 1 --num_head 4 \
    --num_head_kv 2 --seqlen_q 2051 --seqlen_k 777 --head_dim $2 --causal $3 \
    --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $L/san_$1_$2_$3.log 2>&1
  echo "$1 d$2 sq=2051 causal $3 rc=$? $(grep -E 'SUMMARY' $L/san_$1_$2_$3.log | tail -1) $(grep -cE ' PASS ' $L/san_$1_$2_$3.log) PASS rows at $SECONDS s"
}
san memcheck 128 0,1; san synccheck 128 0,1; san synccheck 256 0,1; san memcheck 256 0; san racecheck 128 0; san racecheck 256 0
/tmp/fin/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
shapes=("--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
        "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
        "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256")
for round in 1 2; do
  order="fin both"; [[ $round == 2 ]] && order="both fin"
  for s in "${shapes[@]}"; do
    (( SECONDS > 420 )) && { echo "time guard at $SECONDS s"; break 2; }
    for t in $order; do
      timeout 60 /tmp/$t/fa-bench $s --num_head 16 --causal 0,1 --kernel wgmma_fp8 --dtype Float8E4M3FN --csv $L/fp8_$t.csv >> $L/fa.log 2>&1
    done
    timeout 60 /tmp/fin/fa-bench $s --num_head 16 --causal 0,1 --skip_ref_check --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --csv $L/bf16.csv >> $L/fa.log 2>&1
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
bf = load(f'{L}/bf16.csv'); v = {t: load(f'{L}/fp8_{t}.csv') for t in ('fin', 'both')}
for k in sorted(v['fin']):
    bfk = {kk[3]: med(bf[kk]) for kk in bf if kk[:3] == k[:3]}
    best = max(bfk.values(), default=float('nan'))
    print(f'd{k[0]} b{k[1]} causal {k[2]}: bf16 ' + ' '.join(f'{n} {x:.1f}' for n, x in sorted(bfk.items())))
    for t in ('fin', 'both'):
        if k in v[t]:
            x = v[t][k]
            print(f'   {t:4s} {med(x):7.1f} ({med(x,1):.0f} MHz) x{med(x)/best:.3f} vs fin {med(x)/med(v["fin"][k]):.3f} {[round(y[0]) for y in x]} {sorted({y[2] for y in x})} l2 {x[0][3][:6]}')
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
