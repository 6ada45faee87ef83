#!/usr/bin/env bash
# Session 17 call 3: s17q = call 2's binary with the producer warpgroup exiting before the closing
# cluster barrier (call 2: pairs ran at half speed; its idle producer threads waited there). s17q = head + CTA pairs on rungs 6-7 (wgmma_ws_kernel.cuh PairTraits, built with
# -DFA_WS_PAIRS=1): non-causal problems with an even number of row blocks per head run on clusters
# of 2 CTAs, each K/V tile loaded half by each CTA and multicast to both. GPU tests, explicit
# reference checks of pair shapes, compute-sanitizer on pair shapes (Sq 500: 4 row blocks); ncu L2
# read sectors head vs pairs; A/B on the FA2 grid's non-causal d128 / d256 points, rungs 6 and 7,
# 5 + 30 launches, two rounds, order rotated; two long points on the default (steady-state) rule.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/x /tmp/p
tar -xJf .exp/s17a.tar.xz -C /tmp/x fa-bench-head; tar -xJf .exp/s17q.tar.xz -C /tmp/p
export PATH=/usr/local/cuda/bin:$PATH
H=/tmp/x/fa-bench-head; N=/tmp/p/fa-bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 200 /tmp/p/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -3
for d in 128 256; do for sh in "1 2 1000 1000" "2 3 640 333" "1 2 256 4097" "3 1 512 777"; do set -- $sh
  timeout 60 $N --kernel wgmma_overlap,wgmma_ws --dtype BFloat16,Float16 --batch_size $1 --num_head $2 --seqlen_q $3 --seqlen_k $4 --head_dim $d --causal 0 \
    --iterations 2 --warmup_iterations 1 --warmup_time 0 --gpu_warmup_time 0 --csv $L/check.csv >> $L/check.log 2>&1; done; done
python3 -c "
import csv; rows=list(csv.DictReader(open('$L/check.csv')))
print('checks', len(rows), 'not PASS:', [(r['kernel'],r['head_dim'],r['seqlen_q'],r['seqlen_k'],r['check']) for r in rows if r['check']!='PASS'])"
for tool in memcheck racecheck synccheck; do for k in wgmma_overlap wgmma_ws; do for d in 128 256; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 99 $N --kernel $k --batch_size 1 --num_head 2 --seqlen_q 500 --seqlen_k 777 \
    --head_dim $d --causal 0 --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $L/san_${tool}_${k}_$d.log 2>&1
  echo "$tool $k d$d rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/san_${tool}_${k}_$d.log | head -1)"; done; done; done
for t in head new; do b=$H; [[ $t == new ]] && b=$N
  timeout 90 ncu --nvtx --nvtx-include "regex:fa-bench@.*/" --section LaunchStats --section Occupancy --metrics sm__cycles_active.avg,gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,smsp__inst_executed.sum,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active \
    $b --profile --kernel wgmma_overlap --batch_size 4 --num_head 16 --seqlen_q 4096 --seqlen_k 4096 --head_dim 128 --causal 0 > $L/ncu_$t.txt 2>&1
  grep -E "Cluster|cycles_active|duration|sectors|dram__bytes|inst_executed|tensor" $L/ncu_$t.txt | sed "s/^/$t /"
done
$H --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
R="--iterations 30 --warmup_iterations 5 --warmup_time 0 --gpu_warmup_time 0"
shapes=()
for d in 128 256; do for s in 512 1024 2048 4096 8192 16384; do shapes+=("--batch_size $((16384 / s)) --num_head 16 --seqlen_q $s --seqlen_k $s --head_dim $d"); done; done
shapes+=("--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128")
for round in 1 2; do
  order="head new"; [[ $round == 2 ]] && order="new head"
  for t in $order; do
    b=$H; [[ $t == new ]] && b=$N
    for s in "${shapes[@]}"; do timeout 60 $b $s --kernel wgmma_ws,wgmma_overlap --causal 0 $R --skip_ref_check --csv $L/ab_$t.csv >> $L/fa.log 2>&1; done
  done
done
for round in 1 2; do
  order="head new"; [[ $round == 2 ]] && order="new head"
  for t in $order; do
    b=$H; [[ $t == new ]] && b=$N
    timeout 60 $b --batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128 --kernel wgmma_overlap --skip_ref_check --csv $L/ss_$t.csv >> $L/fa.log 2>&1
    timeout 60 $b --batch_size 4 --num_head 16 --seqlen_q 4096 --seqlen_k 4096 --head_dim 128 --kernel wgmma_overlap --skip_ref_check --csv $L/ss_$t.csv >> $L/fa.log 2>&1
    timeout 60 $b --batch_size 8 --num_head 16 --seqlen_q 2048 --seqlen_k 2048 --head_dim 256 --kernel wgmma_overlap --skip_ref_check --csv $L/ss_$t.csv >> $L/fa.log 2>&1
  done
done
python3 - $L <<'PY'
import csv, sys, statistics, collections, os
L = sys.argv[1]
def med(f):
    runs = collections.defaultdict(list); clk = collections.defaultdict(list)
    for r in csv.DictReader(open(f)):
        if r['tflops']:
            k = (r['kernel'], int(r['head_dim']), int(r['batch_size']), int(r['seqlen_q']), int(r['is_causal']), r['n_block_size'])
            runs[k].append(float(r['tflops'])); clk[k].append(r['sm_clock_mean_mhz'][:4])
    return {k: statistics.median(v) for k, v in runs.items()}, runs, clk
for pre in ('ab', 'ss'):
    h, hr, hc = med(f'{L}/{pre}_head.csv'); c, cr, ncl = med(f'{L}/{pre}_new.csv')
    print('==', pre)
    for k in sorted(c):
        print(' '.join(map(str, k)), f"head {h.get(k, 0):.1f} new {c[k]:.1f} x{c[k] / h.get(k, 1):.3f}",
              [f'{x:.0f}' for x in hr.get(k, [])], [f'{x:.0f}' for x in cr[k]], hc.get(k), ncl.get(k))
PY
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
