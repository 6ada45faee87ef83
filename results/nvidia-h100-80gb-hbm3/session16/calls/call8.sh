#!/usr/bin/env bash
# Session 16 call 8: s16e = the final kernels (the Hopper mask's bound from mask.cuh's
# visible_key_bound, key_visible / tile_needs_mask host-device for the unit tests; no rule changed):
# GPU tests on the whole matrix but [large]; scripts/sanitize.sh (memcheck, racecheck, synccheck) on rungs 7 and 9 bf16;
# spot rows against s16d (call 6b's binary): rung 9 d64 32x32x512 causal, d128 32x16x512, rung 8 FP8
# causal 4x16x8192x128; 5 + 30 launches, two rounds.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/d /tmp/e
tar -xJf .exp/s16d.tar.xz -C /tmp/d; tar -xJf .exp/s16e.tar.xz -C /tmp/e
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/smi.txt
( time timeout 150 /tmp/e/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -3
DTYPES=BFloat16 timeout 240 scripts/sanitize.sh /tmp/e/fa-bench wgmma_persistent,wgmma_overlap > $L/sanitize.log 2>&1; echo "sanitize rc=$?"; grep -c clean $L/sanitize.log
R="--iterations 30 --warmup_iterations 5 --warmup_time 0 --gpu_warmup_time 0 --skip_ref_check"
/tmp/d/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1
for round in 1 2; do for t in d e; do b=/tmp/$t/fa-bench
  timeout 60 $b --batch_size 32 --num_head 32 --seqlen_q 512 --seqlen_k 512 --head_dim 64 --kernel wgmma_persistent --causal 0,1 $R --csv $L/spot_$t.csv >> $L/fa.log 2>&1
  timeout 60 $b --batch_size 32 --num_head 16 --seqlen_q 512 --seqlen_k 512 --head_dim 128 --kernel wgmma_persistent --causal 0,1 $R --csv $L/spot_$t.csv >> $L/fa.log 2>&1
  timeout 60 $b --batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --dtype Float8E4M3FN --kernel wgmma_fp8 --is_causal $R --csv $L/spot_$t.csv >> $L/fa.log 2>&1
done; done
python3 - $L <<'PY'
import csv, sys, statistics, collections
for t in ('d', 'e'):
    runs = collections.defaultdict(list)
    for r in csv.DictReader(open(f'{sys.argv[1]}/spot_{t}.csv')):
        if r['tflops']: runs[(r['kernel'], r['head_dim'], r['seqlen_q'], r['is_causal'])].append(float(r['tflops']))
    for k, v in sorted(runs.items()): print(t, ' '.join(k), f'{statistics.median(v):.1f}', v)
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
