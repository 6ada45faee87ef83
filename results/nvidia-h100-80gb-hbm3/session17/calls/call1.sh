#!/usr/bin/env bash
# Session 17 call 1: s17h = head (b3428b5) built with -DFA_MBARRIER_SUSPEND_NS=10000000, i.e. every
# mbarrier.try_wait with a suspend-time hint of 10 ms (ptx.cuh): a waiting thread sleeps until the
# phase completes instead of polling. Hypothesis: the polling (ncu, session 16 call 5: SYNCS, BRA,
# YIELD, UIADD3 2-10x cuDNN's) costs issue slots and power. GPU tests on s17h; ncu instruction
# counts of both on two short points; then A/B against head, rungs 7 and 9 on FA2-grid points,
# rung 8 (FP8) and rung 4, 5 + 30 launches (the grid's rule), two rounds, order rotated; then
# three long non-causal points on the default (steady-state) rule, two rounds.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/x /tmp/h
tar -xJf .exp/s17a.tar.xz -C /tmp/x fa-bench-head; tar -xJf .exp/s17h.tar.xz -C /tmp/h
export PATH=/usr/local/cuda/bin:$PATH
H=/tmp/x/fa-bench-head; N=/tmp/h/fa-bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 200 /tmp/h/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -3
for t in head new; do b=$H; [[ $t == new ]] && b=$N
  for d in 128 256; do
    timeout 90 ncu --nvtx --nvtx-include "regex:fa-bench@.*/" --metrics smsp__inst_executed.sum,gpu__time_duration.sum,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed_op_shared_ld.sum \
      $b --profile --kernel wgmma_persistent --batch_size 32 --num_head 16 --seqlen_q 512 --seqlen_k 512 --head_dim $d --causal 0 > $L/ncu_${t}_$d.txt 2>&1
  done
done
grep -H -E "inst_executed.sum|duration|tensor" $L/ncu_*.txt
$H --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
R="--iterations 30 --warmup_iterations 5 --warmup_time 0 --gpu_warmup_time 0"
shapes=("--batch_size 32 --num_head 32 --seqlen_q 512 --seqlen_k 512 --head_dim 64"
  "--batch_size 8 --num_head 32 --seqlen_q 2048 --seqlen_k 2048 --head_dim 64"
  "--batch_size 1 --num_head 32 --seqlen_q 16384 --seqlen_k 16384 --head_dim 64"
  "--batch_size 32 --num_head 16 --seqlen_q 512 --seqlen_k 512 --head_dim 128"
  "--batch_size 8 --num_head 16 --seqlen_q 2048 --seqlen_k 2048 --head_dim 128"
  "--batch_size 4 --num_head 16 --seqlen_q 4096 --seqlen_k 4096 --head_dim 128"
  "--batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
  "--batch_size 32 --num_head 16 --seqlen_q 512 --seqlen_k 512 --head_dim 256"
  "--batch_size 8 --num_head 16 --seqlen_q 2048 --seqlen_k 2048 --head_dim 256"
  "--batch_size 2 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 256")
for round in 1 2; do
  order="head new"; [[ $round == 2 ]] && order="new head"
  chk=--skip_ref_check; [[ $round == 1 ]] && chk=
  for t in $order; do
    b=$H; [[ $t == new ]] && b=$N
    for s in "${shapes[@]}"; do timeout 60 $b $s --kernel wgmma_overlap,wgmma_persistent --causal 0,1 $R $chk --csv $L/ab_$t.csv >> $L/fa.log 2>&1; done
    timeout 60 $b --batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --dtype Float8E4M3FN --kernel wgmma_fp8 --causal 0,1 $R $chk --csv $L/ab_$t.csv >> $L/fa.log 2>&1
    timeout 60 $b --batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64 --kernel warp_specialized --causal 0,1 $R $chk --csv $L/ab_$t.csv >> $L/fa.log 2>&1
    timeout 60 $b --batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --kernel warp_specialized --causal 0,1 $R $chk --csv $L/ab_$t.csv >> $L/fa.log 2>&1
  done
done
for round in 1 2; do
  order="head new"; [[ $round == 2 ]] && order="new head"
  for t in $order; do
    b=$H; [[ $t == new ]] && b=$N
    timeout 60 $b --batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128 --kernel wgmma_overlap --skip_ref_check --csv $L/ss_$t.csv >> $L/fa.log 2>&1
    timeout 60 $b --batch_size 1 --num_head 32 --seqlen_q 16384 --seqlen_k 16384 --head_dim 64 --kernel wgmma_persistent --skip_ref_check --csv $L/ss_$t.csv >> $L/fa.log 2>&1
    timeout 60 $b --batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --dtype Float8E4M3FN --kernel wgmma_fp8 --skip_ref_check --csv $L/ss_$t.csv >> $L/fa.log 2>&1
  done
done
python3 - $L <<'PY'
import csv, sys, statistics, collections, os
L = sys.argv[1]
def med(f):
    runs = collections.defaultdict(list); chk = {}; clk = collections.defaultdict(list)
    for r in csv.DictReader(open(f)):
        if r['tflops']:
            k = (r['kernel'], r['dtype'][:4], int(r['head_dim']), int(r['batch_size']), int(r['seqlen_q']), int(r['is_causal']))
            runs[k].append(float(r['tflops'])); clk[k].append(r['sm_clock_mean_mhz'][:4])
            if r['check'] and r['check'] != 'SKIPPED': chk[k] = r['check']
    return {k: statistics.median(v) for k, v in runs.items()}, runs, chk, clk
for pre in ('ab', 'ss'):
    h, hr, _, hc = med(f'{L}/{pre}_head.csv'); c, cr, cc, ncl = med(f'{L}/{pre}_new.csv')
    print('==', pre)
    for k in sorted(c):
        print(' '.join(map(str, k)), f"head {h.get(k, 0):.1f} new {c[k]:.1f} x{c[k] / h.get(k, 1):.3f}",
              [f'{x:.0f}' for x in hr.get(k, [])], [f'{x:.0f}' for x in cr[k]], hc.get(k), ncl.get(k), cc.get(k, ''))
PY
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
