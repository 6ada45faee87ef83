#!/usr/bin/env bash
# Session 24 call 2: s24c = d192d4c + rung 8 at 2^5 / 3.75 with the speculative softmax at head_dim
# 128 only (both ways), head_dim 256 on the rolled one-buffer loop (call 1: speculative there
# -2 %). GPU tests and the three sanitizers on s24c's rung 8; an ncu profile of its d128 pre-pass
# kernel (4x16x8192); then h (d192d4c) against s24c on issue #11's shapes and three in-kernel ones
# (32x16x512x128, 8x16x2048x128, 16x16x1024x256), the bf16 rungs 7 and 9 on issue #11's shapes,
# default timing rule, two rounds, order reversed in the second (time guard at 440 s).
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s24pre.tar.xz -C /tmp; tar -xJf .exp/s24c.tar.xz -C /tmp
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 120 /tmp/c/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests_c.log 2>&1; echo "gpu tests c rc=$?"; grep -E "passed|failed" $L/gpu_tests_c.log | tail -2
san() {  # tool head_dim seqlen_q
  timeout 100 compute-sanitizer --tool $1 --error-exitcode 99 /tmp/c/fa-bench --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size 1 --num_head 4 \
    --num_head_kv 2 --seqlen_q $3 --seqlen_k 777 --head_dim $2 --causal 0,1 \
    --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $L/san_$1_$2_$3.log 2>&1
  echo "$1 d$2 sq=$3 rc=$? $(grep -E 'ERROR SUMMARY' $L/san_$1_$2_$3.log | tail -1) $(grep -cE ' PASS ' $L/san_$1_$2_$3.log) PASS rows"
}
san memcheck 128 8200; san memcheck 256 2051; san memcheck 256 999; san racecheck 256 2051; san racecheck 256 999
san synccheck 128 8200; san synccheck 256 2051; san synccheck 256 999  # sp5 (call 1) covered d128 at 601
echo "sanitizers done at $SECONDS s"
timeout 90 ncu --kernel-name regex:wgmma_fp8_fwd --launch-skip 2 --launch-count 1 --section SpeedOfLight --section WarpStateStats \
  --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats --section SourceCounters --section Occupancy \
  -o $L/ncu_fp8_d128 /tmp/c/fa-bench --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 \
  --head_dim 128 --causal 0 --skip_ref_check --warmup_iterations 2 --warmup_time 0 --gpu_warmup_time 0 --iterations 2 > $L/ncu.log 2>&1
echo "ncu rc=$? at $SECONDS s"; ncu --import $L/ncu_fp8_d128.ncu-rep --page details > $L/ncu_fp8_d128.txt 2>&1
/tmp/h/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
shapes=("--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256"
        "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
        "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
        "--batch_size 32 --seqlen_q 512 --seqlen_k 512 --head_dim 128"
        "--batch_size 8 --seqlen_q 2048 --seqlen_k 2048 --head_dim 128"
        "--batch_size 16 --seqlen_q 1024 --seqlen_k 1024 --head_dim 256")
for round in 1 2; do
  order="h c"; [[ $round == 2 ]] && order="c h"
  for s in "${shapes[@]}"; do
    (( SECONDS > 440 )) && { echo "time guard at $SECONDS s"; break 2; }
    for t in $order; do
      timeout 60 /tmp/$t/fa-bench $s --num_head 16 --causal 0,1 --kernel wgmma_fp8 --dtype Float8E4M3FN --csv $L/fp8_$t.csv >> $L/fa.log 2>&1
    done
    [[ $s == *"16384"* || $s == *"8192"* ]] && timeout 60 /tmp/h/fa-bench $s --num_head 16 --causal 0,1 --skip_ref_check --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --csv $L/bf16.csv >> $L/fa.log 2>&1
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
names = ('h', 'c')
bf = load(f'{L}/bf16.csv'); v = {t: load(f'{L}/fp8_{t}.csv') for t in names}
for k in sorted(v['h']):
    best = max((med(bf[kk]) for kk in bf if kk[:3] == k[:3]), default=float('nan'))
    print(f'd{k[0]} b{k[1]} causal {k[2]}: best bf16 {best:.1f}')
    for t in names:
        if k in v[t]:
            x = v[t][k]
            print(f'   {t:4s} {med(x):7.1f} ({med(x,1):.0f} MHz) x{med(x)/best:.3f} vs h {med(x)/med(v["h"][k]):.3f} {[round(y[0]) for y in x]} {sorted({y[2] for y in x})} l2 {x[0][3][:6]}')
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
