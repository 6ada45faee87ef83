#!/usr/bin/env bash
# Session 15 call 6: binary s15d = the commit (groups sized by K, V, Q and O; short causal problems
# grouped on rung 9 only). GPU tests; the mma.sync rungs on issue #13's causal shapes with the
# order off and on (s15c with FA_LPT_RULE=O and B: B is s15d's rule at these lengths), 5 + 30
# launches, two rounds. (The CuTe DSL site's first half went to /tmp/stash in a call of its own,
# call 7: with it this call's carry passed 64 MiB.)
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/d /tmp/c
tar -xJf .deps/s15d.tar.xz -C /tmp/d; tar -xJf .deps/s15c.tar.xz -C /tmp/c
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 300 /tmp/d/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -3
COMMON="--iterations 30 --warmup_iterations 5 --warmup_time 0 --gpu_warmup_time 0.2 --skip_ref_check --dtype BFloat16 --kernel mma,warp_specialized --causal 1"
for round in 1 2; do
  rules="O B"; [[ $round == 2 ]] && rules="B O"
  for r in $rules; do
    FA_LPT_RULE=$r /tmp/c/fa-bench $COMMON --num_head 32 --head_dim 64 --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --csv $L/mma_$r.csv >> $L/run.log 2>&1
    FA_LPT_RULE=$r /tmp/c/fa-bench $COMMON --num_head 16 --head_dim 128 --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --csv $L/mma_$r.csv >> $L/run.log 2>&1
    FA_LPT_RULE=$r /tmp/c/fa-bench $COMMON --num_head 16 --head_dim 128 --batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --csv $L/mma_$r.csv >> $L/run.log 2>&1
  done
done
python3 - $L <<'PY'
import csv, sys, statistics, collections
for f in ('O', 'B'):
    runs = collections.defaultdict(list)
    for r in csv.DictReader(open(f'{sys.argv[1]}/mma_{f}.csv')):
        if r['tflops']: runs[(r['head_dim'], r['batch_size'], r['seqlen_q'], r['kernel'])].append(float(r['tflops']))
    for k, v in sorted(runs.items()): print(f, ' '.join(k), f'{statistics.median(v):.1f}', [round(x) for x in v])
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
