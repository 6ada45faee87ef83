#!/usr/bin/env bash
# Session 23 call 2: s23s = 671d90e + rung 8's speculative softmax (softmax_pack_speculative: every
# tile after the first takes its exponentials, row sums and e4m3 packing with the running max before
# the tile's max is known, and the warp redoes the tile only if a row's max must rise; bits as
# before); s23r = s23s with P offset 2^7 and slack 1.75 (P <= 2^8.75). GPU tests and the three
# sanitizers on s23s's rung 8 (d128, d256, in-kernel and pre-pass ways); O of s23a (call 1's 671d90e)
# and s23s compared byte for byte; issue #11's shapes, a / s / r and the bf16 rungs 7 and 9, default
# timing rule, two rounds, order rotating.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s23a.tar.xz -C /tmp; tar -xJf .exp/s23b.tar.xz -C /tmp
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 170 /tmp/s/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests_s.log 2>&1; echo "gpu tests s rc=$?"; grep -E "passed|failed" $L/gpu_tests_s.log | tail -2
san() {  # tool head_dim seqlen_q
  timeout 100 compute-sanitizer --tool $1 --error-exitcode 99 /tmp/s/fa-bench --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size 1 --num_head 4 \
    --num_head_kv 2 --seqlen_q $3 --seqlen_k 777 --head_dim $2 --causal 0,1 \
    --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $L/san_$1_$2_$3.log 2>&1
  echo "$1 d$2 sq=$3 rc=$? $(grep -E 'ERROR SUMMARY' $L/san_$1_$2_$3.log | tail -1) $(grep -cE ' PASS ' $L/san_$1_$2_$3.log) PASS rows"
}
for t in memcheck racecheck synccheck; do san $t 128 601; san $t 256 601; done
san memcheck 128 4100; san memcheck 256 2051
echo "sanitizers done at $SECONDS s"
for t in a s; do for sh in "--head_dim 128 --seqlen_q 1000 --seqlen_k 1537" "--head_dim 256 --seqlen_q 2051 --seqlen_k 999" "--head_dim 128 --seqlen_q 8192 --seqlen_k 8192"; do
  for c in 0 1; do
    d=$L/o_$t/$(echo "$sh c$c" | tr -d ' -'); mkdir -p $(dirname $d)
    timeout 60 /tmp/$t/fa-bench --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size 2 --num_head 4 --num_head_kv 2 $sh --causal $c \
      --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 --save_tensors $d > /dev/null 2>&1
  done; done; done
for f in $(cd $L/o_a && find . -name "o*.npy"); do cmp -s $L/o_a/$f $L/o_s/$f && echo "O identical $f" || echo "O DIFFERS $f"; done
rm -rf $L/o_a $L/o_s
/tmp/a/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
shapes=("--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
        "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
        "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256")
for round in 1 2; do
  order="a s r"; [[ $round == 2 ]] && order="r s a"
  for s in "${shapes[@]}"; do
    (( SECONDS > 560 )) && { echo "time guard at $SECONDS s"; break 2; }
    for t in $order; do
      timeout 60 /tmp/$t/fa-bench $s --num_head 16 --causal 0,1 --kernel wgmma_fp8 --dtype Float8E4M3FN --csv $L/fp8_$t.csv >> $L/fa.log 2>&1
    done
    timeout 60 /tmp/a/fa-bench $s --num_head 16 --causal 0,1 --skip_ref_check --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --csv $L/bf16.csv >> $L/fa.log 2>&1
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
bf = load(f'{L}/bf16.csv'); v = {t: load(f'{L}/fp8_{t}.csv') for t in 'asr'}
for k in sorted(v['a']):
    best = max((med(bf[kk]) for kk in bf if kk[:3] == k[:3]), default=float('nan'))
    line = f'd{k[0]} b{k[1]} causal {k[2]}: best bf16 {best:.1f}'
    for t in 'asr':
        if k in v[t]:
            x = v[t][k]
            line += f' | {t} {med(x):.1f} ({med(x,1):.0f} MHz) x{med(x)/best:.3f} {[round(y[0]) for y in x]} {sorted({y[2] for y in x})} l2 {x[0][3][:6]}'
    print(line)
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
