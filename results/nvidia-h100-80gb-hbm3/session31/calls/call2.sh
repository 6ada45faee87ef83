#!/usr/bin/env bash
# Session 31 call 2: `fin2` = call 1's `fin` with rung 8 back on its -inf start and guards (SASS identical
# to base there; the tail chunks' merge as before) — GPU tests, memcheck on causal rows that see no key;
# `ch2` = fin2 with each row's tile max as two chains (even / odd 8-column groups, merged at the end;
# depth 9 instead of 16, the same instruction count). base (416ae70) / fin2 / ch2 on rungs 7 and 9 at
# head_dim 64, 128 and 256 (2x16x8192x256: issue #10's head_dim-256 bar), default timing rule, two
# rounds, order rotating.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s31b.tar.xz -C /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 200 /tmp/fin2/fa_gpu_tests "~[large]" ) > $L/gpu_tests_fin2.log 2>&1; echo "gpu tests rc=$? $(grep -E 'assertions|FAILED' $L/gpu_tests_fin2.log | tail -2 | tr '\n' ' ') at $SECONDS s"
for kd in "wgmma_persistent 64" "wgmma_overlap 128" "mma 64"; do
  set -- $kd
  timeout 60 compute-sanitizer --tool memcheck --error-exitcode 99 /tmp/fin2/fa-bench --kernel $1 --dtype BFloat16 \
    --batch_size 1 --num_head 2 --seqlen_q 700 --seqlen_k 300 --head_dim $2 --causal 1 \
    --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $L/san_memcheck_$1_$2.log 2>&1
  echo "memcheck $1 d$2 rc=$? $(grep -c PASS $L/san_memcheck_$1_$2.log) PASS rows, $(grep -E 'ERROR SUMMARY' $L/san_memcheck_$1_$2.log | head -1)"
done
/tmp/base/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
k="--kernel wgmma_overlap,wgmma_persistent --dtype BFloat16"
ab=("--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64 --causal 0,1 $k"
    "--batch_size 4 --num_head 32 --seqlen_q 4096 --seqlen_k 4096 --head_dim 64 --causal 0 $k"
    "--batch_size 1 --num_head 32 --seqlen_q 16384 --seqlen_k 16384 --head_dim 64 --causal 0,1 $k"
    "--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --causal 0,1 $k"
    "--batch_size 2 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 256 --causal 0,1 $k")
for round in 1 2; do
  order="base fin2 ch2"; [[ $round == 2 ]] && order="ch2 fin2 base"
  for s in "${ab[@]}"; do
    for b in $order; do
      timeout 90 /tmp/$b/fa-bench $s --csv $L/ab_$b.csv >> $L/ab.log 2>&1
    done
  done
  echo "ab round $round at $SECONDS s"
done
python3 - $L <<'PY'
import csv, sys, statistics, collections, glob, os
L = sys.argv[1]
runs = collections.defaultdict(list)
for f in sorted(glob.glob(f'{L}/ab_*.csv')):
    tag = os.path.basename(f)[3:-4]
    for r in csv.DictReader(open(f)):
        if r['tflops']:
            runs[(r['batch_size'], r['num_head'], r['seqlen_q'], r['head_dim'], r['is_causal'], r['kernel'], tag)].append((float(r['tflops']), r['sm_clock_mean_mhz'][:4], r['check']))
med = {}
for k, v in sorted(runs.items()):
    med[k] = statistics.median(x[0] for x in v)
    print(' '.join(k), round(med[k], 1), [x[0] for x in v], [x[1] for x in v], sorted({x[2] for x in v}))
for k in sorted(med):
    if k[-1] == 'base':
        print(' '.join(k[:-1]), ' '.join(f"{t}/base {med[k[:-1] + (t,)] / med[k]:.4f}" for t in ('fin2', 'ch2') if k[:-1] + (t,) in med))
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
