#!/usr/bin/env bash
# Session 25 call 5: spl = fin + S(t+1) = Q·K(t+1)ᵀ in two 64-key halves, two commit groups, at
# head_dim 128 (split_s.patch): the speculative softmax starts on the first half after ~128 tensor
# cycles instead of waiting ~256 for all of S (call 1: the S wait is 15 % of a consumer warp's
# loop), at the price of 4 more wgmma issues a tile; masked tiles wait for all of S and run the
# plain softmax. GPU tests and memcheck / synccheck / racecheck on spl; then fin against spl at
# head_dim 128 (4x16x8192, 1x16x16384, 8x16x2048 in-kernel), default timing rule, two rounds, order
# reversed in the second, the bf16 rungs 7 and 9 beside (time guard at 400 s).
set -uo pipefail
L=$OUT/logs; mkdir -p $L
for t in fin spl; do tar -xJf .exp/s25$t.tar.xz -C /tmp; done
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 120 /tmp/spl/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests_spl.log 2>&1; echo "gpu tests spl rc=$? $(grep -E 'assertions' $L/gpu_tests_spl.log | tail -1)"
san() {  # tool seqlen_q causal
  timeout 60 compute-sanitizer --tool $1 --error-exitcode 99 /tmp/spl/fa-bench --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size 1 --num_head 4 \
    --num_head_kv 2 --seqlen_q $2 --seqlen_k 777 --head_dim 128 --causal $3 \
    --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $L/san_$1_$2_$3.log 2>&1
  echo "$1 d128 sq=$2 causal $3 rc=$? $(grep -E 'SUMMARY' $L/san_$1_$2_$3.log | tail -1) $(grep -cE ' PASS ' $L/san_$1_$2_$3.log) PASS rows at $SECONDS s"
}
san memcheck 2051 0,1; san synccheck 2051 0,1; san racecheck 601 0,1
/tmp/fin/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
shapes=("--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
        "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
        "--batch_size 8 --seqlen_q 2048 --seqlen_k 2048 --head_dim 128")
for round in 1 2; do
  order="fin spl"; [[ $round == 2 ]] && order="spl fin"
  for s in "${shapes[@]}"; do
    (( SECONDS > 400 )) && { echo "time guard at $SECONDS s"; break 2; }
    for t in $order; do
      timeout 60 /tmp/$t/fa-bench $s --num_head 16 --causal 0,1 --kernel wgmma_fp8 --dtype Float8E4M3FN --csv $L/fp8_$t.csv >> $L/fa.log 2>&1
    done
    [[ $round == 1 && $s != *"2048"* ]] && timeout 60 /tmp/fin/fa-bench $s --num_head 16 --causal 0,1 --skip_ref_check --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --csv $L/bf16.csv >> $L/fa.log 2>&1
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
bf = load(f'{L}/bf16.csv'); v = {t: load(f'{L}/fp8_{t}.csv') for t in ('fin', 'spl')}
for k in sorted(v['fin']):
    best = max((med(bf[kk]) for kk in bf if kk[:3] == k[:3]), default=float('nan'))
    print(f'd{k[0]} b{k[1]} causal {k[2]}: best bf16 {best:.1f}')
    for t in ('fin', 'spl'):
        if k in v[t]:
            x = v[t][k]
            print(f'   {t:4s} {med(x):7.1f} ({med(x,1):.0f} MHz) x{med(x)/best:.3f} vs fin {med(x)/med(v["fin"][k]):.3f} {[round(y[0]) for y in x]} {sorted({y[2] for y in x})} l2 {x[0][3][:6]}')
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
