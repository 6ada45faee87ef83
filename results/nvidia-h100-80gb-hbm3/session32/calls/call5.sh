#!/usr/bin/env bash
# Session 32 call 5: rung 3 (mma) at head_dim 64 on the example's 128 x 64 tile at three CTAs per SM
# (`o3`: __launch_bounds__(128, 3), 168 registers, 136 bytes spilled, 17 LDL/STL a trip of the unmasked
# loop; 12 warps per SM) against the committed two (`fin3` = d04aad1, 228 registers). GPU tests on o3
# only if it wins; three rounds, order alternating, the reference check in round 1.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s31c.tar.xz -C /tmp; tar -xJf .exp/s32d.tar.xz -C /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
/tmp/fin3/fa-bench --kernel mma --head_dim 64 --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
K="--kernel mma --m_block_size 128 --n_block_size 64 --num_threads 128 --dtype BFloat16 --head_dim 64"
ab=("--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --causal 0,1"
    "--batch_size 1 --num_head 32 --seqlen_q 16384 --seqlen_k 16384 --causal 0,1"
    "--batch_size 4 --num_head 32 --seqlen_q 4096 --seqlen_k 4096 --causal 0")
for round in 1 2 3; do
  chk=""; (( round > 1 )) && chk="--skip_ref_check"
  order="fin3 o3"; (( round % 2 == 0 )) && order="o3 fin3"
  for s in "${ab[@]}"; do
    for b in $order; do timeout 90 /tmp/$b/fa-bench $s $K $chk --csv $L/ab_$b.csv >> $L/ab.log 2>&1; done
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
            runs[(r['batch_size'], r['seqlen_q'], r['is_causal'], r['kernel'], tag)].append((float(r['tflops']), r['sm_clock_mean_mhz'][:4], r['check']))
med = {}
for k, v in sorted(runs.items()):
    med[k] = statistics.median(x[0] for x in v)
    print(' '.join(k), round(med[k], 1), [x[0] for x in v], [x[1] for x in v], sorted({x[2] for x in v}))
wins = 0
for k in sorted(med):
    if k[-1] == 'fin3' and k[:-1] + ('o3',) in med:
        r = med[k[:-1] + ('o3',)] / med[k]; wins += r > 1.01
        print('o3/fin3', ' '.join(k[:-1]), f"{r:.4f}")
open(f'{L}/wins', 'w').write(str(wins))
PY
if [[ $(cat $L/wins) -ge 3 ]]; then
  ( time timeout 200 /tmp/o3/fa_gpu_tests "~[large]" ) > $L/gpu_tests_o3.log 2>&1; echo "gpu tests o3 rc=$? $(grep -E 'assertions|FAILED' $L/gpu_tests_o3.log | tail -2 | tr '\n' ' ') at $SECONDS s"
fi
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
