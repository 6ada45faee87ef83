#!/usr/bin/env bash
# Session 30 call 6: issue #11's 4x16x8192x128 with the committed build (calls 1-4's: rungs 7 and 9 now split
# that shape's last wave of 4 tiles, +2.6 / +3.2 % in call 1, so the bf16 top rung FP8 is measured against
# moved): rung 8 (its default 192x64 row, which does not split: 2,752 tiles, a last wave of 112, and its
# 128x128 row, which does: 4,096 tiles) against rungs 7 and 9, causal and not, default timing rule, three
# rounds, per round the FP8 and bf16 calls back to back, order alternating.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s30b.tar.xz -C /tmp; N=/tmp/tail/fa-bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
s="--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --causal 0,1"
fp8() { timeout 90 $N $s --kernel wgmma_fp8 --dtype Float8E4M3FN --csv $L/fp8.csv >> $L/run.log 2>&1
        timeout 90 $N $s --kernel wgmma_fp8 --dtype Float8E4M3FN --m_block_size 128 --n_block_size 128 --num_threads 256 --csv $L/fp8.csv >> $L/run.log 2>&1; }
bf16() { timeout 90 $N $s --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --csv $L/bf16.csv >> $L/run.log 2>&1; }
for round in 1 2 3; do
  if (( round % 2 )); then fp8; bf16; else bf16; fp8; fi
  echo "round $round at $SECONDS s"
done
python3 - $L <<'PY'
import csv, sys, statistics, collections
L = sys.argv[1]
runs = collections.defaultdict(list)
for f in ('fp8', 'bf16'):
    for r in csv.DictReader(open(f'{L}/{f}.csv')):
        if r['tflops']:
            runs[(r['is_causal'], r['kernel'], r['m_block_size'] + 'x' + r['n_block_size'])].append((float(r['tflops']), r['sm_clock_mean_mhz'][:4], r['check'], r['note'][:45]))
med = {}
for k, v in sorted(runs.items()):
    med[k] = statistics.median(x[0] for x in v)
    print(' '.join(k), round(med[k], 1), [x[0] for x in v], [x[1] for x in v], sorted({x[2] for x in v}), v[0][3])
for c in ('0', '1'):
    f = max(m for k, m in med.items() if k[0] == c and k[1] == 'wgmma_fp8')
    b = max(m for k, m in med.items() if k[0] == c and k[1] != 'wgmma_fp8')
    print(f'causal {c}: FP8 {f:.1f} / best bf16 {b:.1f} = {f / b:.3f}')
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
