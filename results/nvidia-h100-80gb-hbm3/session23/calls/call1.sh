#!/usr/bin/env bash
# Session 23 call 1: (a) s23a = 671d90e (session 22's final commit): the GPU tests ("~[large]", with
# the pre-pass test's new workspace CHECK) and compute-sanitizer memcheck / racecheck / synccheck on
# the lazy-max kernels session 22 left unsanitized: `mma` at head_dim 128 and rungs 5, 6, 7, 9 at
# head_dim 256 (bf16, 1x4(kv 2)x{259,389}, causal 0 / 1); (b) rung 8's P offset and lazy slack:
# s23a (2^8, slack 0.75), s23p (2^7.25, slack 1.5), s23q (2^6.75, slack 2): P <= 2^8.75 in all three,
# issue #11's shapes, default timing rule, two rounds, order rotating, with the bf16 rungs 7 and 9.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s23a.tar.xz -C /tmp
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 170 /tmp/a/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests_a.log 2>&1; echo "gpu tests a rc=$?"; grep -E "passed|failed" $L/gpu_tests_a.log | tail -2
san() {  # kernel head_dim tool
  for sq in 259 389; do
    timeout 60 compute-sanitizer --tool $3 --error-exitcode 99 /tmp/a/fa-bench --kernel $1 --dtype BFloat16 --batch_size 1 --num_head 4 \
      --num_head_kv 2 --seqlen_q $sq --seqlen_k 333 --head_dim $2 --causal 0,1 \
      --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $L/san_$1_$2_$3_$sq.log 2>&1
    echo "$1 d$2 $3 sq=$sq rc=$? $(grep -E 'ERROR SUMMARY' $L/san_$1_$2_$3_$sq.log | tail -1) $(grep -cE ' PASS ' $L/san_$1_$2_$3_$sq.log) PASS rows"
  done
}
for t in memcheck racecheck synccheck; do
  san mma 128 $t
  for k in wgmma_tma wgmma_ws wgmma_overlap wgmma_persistent; do san $k 256 $t; done
  echo "sanitizer $t done at $SECONDS s"
done
/tmp/a/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
shapes=("--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
        "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
        "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256")
for round in 1 2; do
  order="a p q"; [[ $round == 2 ]] && order="q p a"
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
bf = load(f'{L}/bf16.csv'); v = {t: load(f'{L}/fp8_{t}.csv') for t in 'apq'}
for k in sorted(v['a']):
    best = max((med(bf[kk]) for kk in bf if kk[:3] == k[:3]), default=float('nan'))
    line = f'd{k[0]} b{k[1]} causal {k[2]}: best bf16 {best:.1f}'
    for t in 'apq':
        if k in v[t]:
            x = v[t][k]
            line += f' | {t} {med(x):.1f} ({med(x,1):.0f} MHz) x{med(x)/best:.3f} {[round(y[0]) for y in x]} {sorted({y[2] for y in x})} l2 {x[0][3][:6]}'
    print(line)
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
