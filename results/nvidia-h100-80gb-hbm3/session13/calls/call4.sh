#!/usr/bin/env bash
# Session 13 call 4: rung 8 with the producer's V transpose as ldmatrix.trans + prmt + stmatrix
# (8 LDSM.x4, 32 PRMT, 8 STSM.x4 per lane and tile where it had 32 LDS.32, 64 PRMT, 8 STS.128), binary
# .deps/s13c.tar.xz, against call 1-2's binary (.deps/s13a.tar.xz, fa-bench-old). GPU tests of the new
# binary; compute-sanitizer on rung 8 at d128 and d256; then issue #11's shapes, FP8, both binaries,
# every row on the default timing rule (steady state, as call 2), three rounds, order alternating;
# the first round with the reference check (rel_l2 of both).
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/a /tmp/b
tar -xJf .deps/s13a.tar.xz -C /tmp/a; tar -xJf .deps/s13c.tar.xz -C /tmp/b
OLD=/tmp/a/fa-bench; NEW=/tmp/b/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 170 /tmp/b/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -2
DTYPES=Float8E4M3FN HEAD_DIMS="128 256" timeout 150 scripts/sanitize.sh $NEW wgmma_fp8 > $L/sanitize.log 2>&1; echo "sanitize rc=$?"; grep -c clean $L/sanitize.log
$NEW --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1
SHAPES=("--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128" "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
        "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256" "--batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --head_dim 256")
for round in 1 2 3; do
  chk=--skip_ref_check; [[ $round == 1 ]] && chk=
  for shape in "${SHAPES[@]}"; do
    if (( round % 2 )); then order="$OLD $NEW"; else order="$NEW $OLD"; fi
    for bin in $order; do
      tag=new; [[ $bin == $OLD ]] && tag=old
      $bin $chk --num_head 16 --causal 0,1 --kernel wgmma_fp8 --dtype Float8E4M3FN $shape --csv $L/ab_$tag.csv >> $L/ab.log 2>&1
    done
  done
done
python3 - $L/ab_old.csv $L/ab_new.csv <<'PY'
import csv, sys, statistics, collections
def load(p):
    runs = collections.defaultdict(list); err = {}
    for r in csv.DictReader(open(p)):
        k = (r['head_dim'], r['batch_size'], r['seqlen_q'], r['is_causal'])
        runs[k].append((float(r['tflops']), float(r['sm_clock_mean_mhz'] or 0)))
        if r['rel_l2_err']: err[k] = r['rel_l2_err'] + ' ' + r['check']
    return runs, err
(o, eo), (n, en) = load(sys.argv[1]), load(sys.argv[2])
for k in sorted(o):
    mo = statistics.median(t for t, _ in o[k]); mn = statistics.median(t for t, _ in n[k])
    po = statistics.median(t / c for t, c in o[k]); pn = statistics.median(t / c for t, c in n[k])
    print(' '.join(k), 'old', ' '.join(f'{t:.0f}@{c:.0f}' for t, c in o[k]), 'new', ' '.join(f'{t:.0f}@{c:.0f}' for t, c in n[k]),
          f'med {mo:.0f} -> {mn:.0f} ({(mn / mo - 1) * 100:+.1f} %, per MHz {(pn / po - 1) * 100:+.1f} %)', 'rel_l2', eo.get(k), '->', en.get(k))
PY
# Nsight Compute at the base clock, one launch each: cycles, instructions, shared-memory bank conflicts.
M=sm__cycles_elapsed.max,smsp__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active
for bin in $OLD $NEW; do
  for d in 128 256; do
    timeout 60 ncu --metrics $M --clock-control base --nvtx --nvtx-include "regex:fa-bench@.*/" $bin --profile --kernel wgmma_fp8 \
      --dtype Float8E4M3FN --batch_size 2 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim $d >> $L/ncu.txt 2>&1
    echo "ncu $bin d$d rc=$?"
  done
done
grep -E "wgmma_fp8_fwd|sm__cycles|inst_executed.sum|bank_conflicts|wavefronts|hmma|xu" $L/ncu.txt | sed 's/  */ /g' | cut -c1-150
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
