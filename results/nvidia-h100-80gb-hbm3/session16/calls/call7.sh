#!/usr/bin/env bash
# Session 16 call 7: why the non-causal 16k rows run 5-7 % below the 8k ones on rungs 7 and 9 (call 6b:
# d64 534 vs 572, d128 686 vs 729, d256 754 vs 799) while FA4 holds level (564 / 572, 717 / 720).
# Rungs 7, 9 at 1x32x16384x64 and 2x32x8192x64, 1x16x16384x128 and 2x16x8192x128, non-causal, layouts
# bshd (the default, FA4's) and bhsd, 5 + 30 launches, two rounds; then ncu DRAM / L2 counters of
# rung 9 at the d64 pair.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/d
tar -xJf .exp/s16d.tar.xz -C /tmp/d; N=/tmp/d/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv > $L/smi.txt
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
R="--iterations 30 --warmup_iterations 5 --warmup_time 0 --gpu_warmup_time 0 --skip_ref_check"
for round in 1 2; do
  for lay in bshd bhsd; do
    for s in "1 32 16384 64" "2 32 8192 64" "1 16 16384 128" "2 16 8192 128"; do set -- $s
      timeout 60 $N --batch_size $1 --num_head $2 --seqlen_q $3 --seqlen_k $3 --head_dim $4 --layout $lay \
        --kernel wgmma_overlap,wgmma_persistent $R --csv $L/lay_$lay.csv >> $L/fa.log 2>&1
    done
  done
done
python3 - $L <<'PY'
import csv, sys, statistics, collections
for lay in ('bshd', 'bhsd'):
    runs = collections.defaultdict(list)
    for r in csv.DictReader(open(f'{sys.argv[1]}/lay_{lay}.csv')):
        if r['tflops']: runs[(r['kernel'], r['head_dim'], r['seqlen_q'])].append(float(r['tflops']))
    for k, v in sorted(runs.items()): print(lay, ' '.join(k), f'{statistics.median(v):.1f}', v)
PY
M=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,gpu__time_duration.sum
for s in "1 32 16384 64" "2 32 8192 64"; do set -- $s
  timeout 120 ncu --nvtx --nvtx-include "regex:fa-bench@.*/" --metrics $M --csv --page raw $N --profile --kernel wgmma_persistent,wgmma_overlap \
    --batch_size $1 --num_head $2 --seqlen_q $3 --seqlen_k $3 --head_dim $4 > $L/ncu_$3.csv 2>&1
  python3 - $L/ncu_$3.csv <<'PY'
import csv, sys, io
lines = open(sys.argv[1]).read().split('\n'); i = [j for j, l in enumerate(lines) if l.startswith('"ID"')][0]
rows = list(csv.DictReader(io.StringIO('\n'.join(lines[i:]))))
for r in rows[1:]:
    print(sys.argv[1].split('/')[-1], r['Kernel Name'][:40], {k: r[k] for k in r if k.startswith(('dram', 'lts', 'gpu'))})
PY
done
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
