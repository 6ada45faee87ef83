#!/usr/bin/env bash
# Session 22 call 6: s22M = fef0b22 + rung 3 (`mma`) at 256 query rows a CTA with 8 warps (one CTA of
# 8 warps per SM instead of two of 4: each K/V tile read from L2 once per 256 rows, not 128; 226 /
# 255 registers, no spill) at head_dim 64 and 128, bf16. GPU tests (the matrix runs every
# instance), then issue #13's shapes: the default 128x64x128 against 256x64x256 on the same
# binary, fa-bench's default timing rule, two rounds, order alternating.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b; tar -xJf .exp/s22e.tar.xz -C /tmp/b; N=/tmp/b/M/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 170 /tmp/b/M/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests_M.log 2>&1; echo "gpu tests M rc=$?"; grep -E "passed|failed" $L/gpu_tests_M.log | tail -2
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
D64="--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64"
A="--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
C="--batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
T128="--m_block_size 128 --n_block_size 64 --num_threads 128"; T256="--m_block_size 256 --n_block_size 64 --num_threads 256"
for round in 1 2; do
  order="T128 T256"; [[ $round == 2 ]] && order="T256 T128"
  for s in "$D64" "$A" "$C"; do for t in $order; do
    timeout 90 $N $s ${!t} --kernel mma --causal 0,1 --csv $L/mma_$t.csv >> $L/fa.log 2>&1
  done; done
  echo "round $round done at $SECONDS s"
done
python3 - $L <<'PY'
import csv, sys, statistics, collections
L = sys.argv[1]
def load(f):
    runs = collections.defaultdict(list)
    for r in csv.DictReader(open(f)):
        if r['tflops']: runs[(int(r['head_dim']), int(r['batch_size']), int(r['is_causal']))].append((float(r['tflops']), float(r['sm_clock_mean_mhz'] or 0), r['check']))
    return runs
a, b = load(f'{L}/mma_T128.csv'), load(f'{L}/mma_T256.csv')
med = lambda xs, i: statistics.median(x[i] for x in xs)
for k in sorted(a):
    print('d%d b%d causal %d' % k, f'128x64 {med(a[k],0):.1f} ({med(a[k],1):.0f} MHz)', f'256x64 {med(b[k],0):.1f} ({med(b[k],1):.0f} MHz) x{med(b[k],0)/med(a[k],0):.3f}',
          [round(x[0]) for x in a[k]], [round(x[0]) for x in b[k]], {x[2] for x in a[k] + b[k]})
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
