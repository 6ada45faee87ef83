#!/usr/bin/env bash
# Session 15 call 5: how large the causal tile order's groups should be. Binary s15c = the commit
# (s15b) with causal_lpt_group reading an experiment switch FA_LPT_RULE (not committed):
#   O  never group (session 14's order);  A  the commit (K/V of the group fit the L2, from 2,048 keys);
#   B  K/V + Q + O of the group fit the L2, every length;  C  the same in half the L2;
#   D  A from 2,048 keys, below it groups whose row blocks fit one wave of CTAs (and the L2).
# The FA2 grid's causal points (bf16; d64 32 heads, d128 and d256 16; 16k tokens; plus
# 4x16x8192x128) on rungs 7 and 9, 5 + 30 launches, no reference check (the rules only permute
# the tiles; the GPU tests check the order), two rounds with the rule order rotated. Where two
# rules give the same groups only one runs (S >= 2048: O A B C; S < 2048: O B C D).
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/c
tar -xJf .deps/s15c.tar.xz -C /tmp/c; N=/tmp/c/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1
COMMON="--iterations 30 --warmup_iterations 5 --warmup_time 0 --gpu_warmup_time 0.2 --skip_ref_check --dtype BFloat16 --kernel wgmma_overlap,wgmma_persistent --causal 1"
for round in 1 2; do
  for hd in 64 128 256; do
    heads=16; [[ $hd == 64 ]] && heads=32
    for s in 512 1024 2048 4096 8192 16384; do
      rules="O A B C"; [[ $s -lt 2048 ]] && rules="O B C D"
      [[ $round == 2 ]] && rules=$(echo $rules | awk '{print $3, $4, $1, $2}')
      for r in $rules; do
        FA_LPT_RULE=$r $N $COMMON --num_head $heads --head_dim $hd --batch_size $((16384 / s)) --seqlen_q $s --seqlen_k $s \
          --csv $L/rule_$r.csv >> $L/run.log 2>&1 || echo "FAIL $r $hd $s"
      done
    done
  done
  for r in O A B C; do FA_LPT_RULE=$r $N $COMMON --num_head 16 --head_dim 128 --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --csv $L/rule_$r.csv >> $L/run.log 2>&1; done
  echo "round $round done"
done
python3 - $L <<'PY'
import csv, sys, statistics, collections, glob, os
runs = collections.defaultdict(list)
for f in glob.glob(sys.argv[1] + '/rule_*.csv'):
    rule = os.path.basename(f)[5]
    for r in csv.DictReader(open(f)):
        if r['tflops']:
            runs[(int(r['head_dim']), int(r['seqlen_q']), int(r['batch_size']), r['kernel']), rule].append(float(r['tflops']))
for k in sorted({k for k, _ in runs}):
    base = statistics.median(runs[k, 'O'])
    cells = [f"{rule} {statistics.median(runs[k, rule]):6.1f} ({statistics.median(runs[k, rule]) / base:5.3f}) [{' '.join(f'{t:.0f}' for t in runs[k, rule])}]"
             for rule in 'OABCD' if (k, rule) in runs]
    print(f"d{k[0]:3d} S={k[1]:5d} B={k[2]:2d} {k[3]:17s} " + '  '.join(cells))
PY
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
