#!/usr/bin/env bash
# Session 32 call 1: rung 3 (mma) at head_dim 64 on a 128 x 32 tile at three CTAs per SM
# (__launch_bounds__(128, 3): 167 registers, no spill; 12 warps per SM against the default 128 x 64
# tile's 8 at 228 registers), issue #13's 4-5 % per-clock gap to seed 001's kernel at 2x32x8192x64.
# GPU tests on the build (`s32a` = d04aad1 + the new instance); the two tiles and warp_specialized,
# default timing rule, no reference check (the GPU tests cover the build), three rounds, order rotating. The build and the site's third part to /tmp/stash.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/stash; cp .exp/s32a.tar.xz .exp/s29w3/* .exp/cute/flash_attention_v2.py /tmp/stash/
tar -xJf .exp/s32a.tar.xz -C /tmp; N=/tmp/s32a/fa-bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 200 /tmp/s32a/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$? $(grep -E 'assertions|FAILED' $L/gpu_tests.log | tail -2 | tr '\n' ' ') at $SECONDS s"
$N --kernel mma --head_dim 64 --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
shapes=("--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192"
        "--batch_size 1 --num_head 32 --seqlen_q 16384 --seqlen_k 16384"
        "--batch_size 4 --num_head 32 --seqlen_q 4096 --seqlen_k 4096")
variants=("--kernel mma --m_block_size 128 --n_block_size 64 --num_threads 128"
          "--kernel mma --m_block_size 128 --n_block_size 32 --num_threads 128"
          "--kernel warp_specialized")
for round in 1 2 3; do
  for s in "${shapes[@]}"; do
    (( SECONDS > 540 )) && { echo "time guard at $SECONDS s"; break 2; }
    for k in 0 1 2; do
      v="${variants[$(( (k + round) % 3 ))]}"
      timeout 90 $N $s --head_dim 64 --dtype BFloat16 --causal 0,1 $v --skip_ref_check --csv $L/ab.csv >> $L/ab.log 2>&1
    done
  done
  echo "round $round at $SECONDS s"
done
python3 - $L <<'PY'
import csv, sys, statistics, collections
L = sys.argv[1]
runs = collections.defaultdict(list)
for r in csv.DictReader(open(f'{L}/ab.csv')):
    if r['tflops']:
        runs[(r['batch_size'], r['seqlen_q'], r['is_causal'], r['kernel'], r['m_block_size'] + 'x' + r['n_block_size'])].append((float(r['tflops']), r['sm_clock_mean_mhz'][:4], r['check']))
for k, v in sorted(runs.items()):
    print(' '.join(k), f'med {statistics.median(x[0] for x in v):.1f}', [x[0] for x in v], [x[1] for x in v], sorted({x[2] for x in v}))
PY
ls -la /tmp/stash
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
