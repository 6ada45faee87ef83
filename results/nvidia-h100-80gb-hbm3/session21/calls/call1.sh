#!/usr/bin/env bash
# Session 21 call 1: s21a = session 20's final kernels (ba34990, whose host-side pre-pass launch
# never ran on a GPU) with rung 8's pre-pass threshold split by causality: non-causal from 4,096
# query rows per K/V head, causal from 8,192. GPU tests (the pre-pass case now straddles both
# thresholds), compute-sanitizer on both ways at both head_dims (sq 4,099 x 2 heads per K/V head:
# pre-pass causal and not; sq 2,051: pre-pass non-causal, in-kernel causal), then the rule at
# 4x16x4096 non-causal against s20h (old rule: in-kernel there), steady state, two rounds; and a
# microbenchmark of MUFU.EX2 f32 against f16 / bf16.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/a /tmp/h
tar -xJf .exp/s21a.tar.xz -C /tmp/a; tar -xJf .exp/s20h.tar.xz -C /tmp/h
export PATH=/usr/local/cuda/bin:$PATH
F=/tmp/a/fa-bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 240 /tmp/a/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -3
for d in 128 256; do
  for sq in 4099 2051; do
    for tool in memcheck racecheck synccheck; do
      timeout 100 compute-sanitizer --tool $tool --error-exitcode 99 $F --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size 1 --num_head 4 \
        --num_head_kv 2 --seqlen_q $sq --seqlen_k 777 --head_dim $d --causal 0,1 --skip_ref_check \
        --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $L/san_${tool}_${d}_$sq.log 2>&1
      echo "$tool d$d sq$sq rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/san_${tool}_${d}_$sq.log | tail -1)"
    done
  done
done
nvcc -arch=sm_90a -O3 -o /tmp/mufu results/nvidia-h100-80gb-hbm3/session21/calls/mufu_bench.cu && /tmp/mufu > $L/mufu.txt 2>&1; cat $L/mufu.txt
$F --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
W="--warmup_time 3 --gpu_warmup_time 3 --min_time 1"
for round in 1 2; do
  order="a h"; [[ $round == 2 ]] && order="h a"
  for d in 128 256; do
    (( SECONDS > 520 )) && { echo "time guard at $SECONDS s"; break 2; }
    for t in $order; do
      timeout 60 /tmp/$t/fa-bench --batch_size 4 --num_head 16 --seqlen_q 4096 --seqlen_k 4096 --head_dim $d --causal 0 --kernel wgmma_fp8 \
        --dtype Float8E4M3FN $W --csv $L/st_$t.csv >> $L/fa.log 2>&1
    done
  done
done
python3 - $L <<'PY'
import csv, sys, statistics, collections
L = sys.argv[1]
def load(f):
    runs = collections.defaultdict(list)
    for r in csv.DictReader(open(f)):
        if r['tflops']:
            runs[int(r['head_dim'])].append((float(r['tflops']), float(r['energy_mj'] or 0), r['check']))
    return runs
a, h = load(f'{L}/st_a.csv'), load(f'{L}/st_h.csv')
med = lambda xs, i: statistics.median(x[i] for x in xs)
for d in sorted(a):
    print(f'd{d} 4x16x4096 non-causal: old rule {med(h[d], 0):.1f} ({med(h[d], 1):.0f} mJ) new rule {med(a[d], 0):.1f} ({med(a[d], 1):.0f} mJ) x{med(a[d], 0) / med(h[d], 0):.3f}',
          [round(x[0]) for x in h[d]], [round(x[0]) for x in a[d]], {x[2] for x in a[d] + h[d]})
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
