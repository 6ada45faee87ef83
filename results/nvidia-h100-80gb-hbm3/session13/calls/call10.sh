#!/usr/bin/env bash
# Session 13 call 10: the head_dim-128 FP8 instance (LDS.32 transpose) with other register splits,
# against the committed binary e (.deps/s13e.tar.xz, 72 producer / 216 consumer registers): i
# (.deps/s13i.tar.xz) 56 / 224, j (.deps/s13j.tar.xz) 40 / 232 (no spill in either, ptxas -v).
# GPU tests on i and j; issue #11's head_dim-128 shapes, FP8, default timing rule, three rounds,
# order rotating; round 1 with the reference check.
set -uo pipefail
L=$OUT/logs; mkdir -p $L
declare -A BIN
for v in e i j; do mkdir -p /tmp/$v; tar -xJf .deps/s13$v.tar.xz -C /tmp/$v; BIN[$v]=/tmp/$v/fa-bench; done
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
for v in i j; do
  ( time timeout 170 /tmp/$v/fa_gpu_tests "~[large]" ) > $L/gpu_tests_$v.log 2>&1; echo "gpu tests $v rc=$?"; grep -E "passed|failed" $L/gpu_tests_$v.log | tail -2
done
${BIN[e]} --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1
SHAPES=("--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128" "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128")
ORDERS=("e i j" "i j e" "j e i")
for round in 1 2 3; do
  chk=--skip_ref_check; [[ $round == 1 ]] && chk=
  for shape in "${SHAPES[@]}"; do
    for v in ${ORDERS[$((round - 1))]}; do
      ${BIN[$v]} $chk --num_head 16 --causal 0,1 --kernel wgmma_fp8 --dtype Float8E4M3FN $shape --csv $L/ab_$v.csv >> $L/ab.log 2>&1
    done
  done
done
python3 - $L <<'PY'
import csv, sys, statistics, collections
def load(p):
    runs = collections.defaultdict(list); err = {}
    for r in csv.DictReader(open(p)):
        k = (r['head_dim'], r['batch_size'], r['seqlen_q'], r['is_causal'])
        runs[k].append((float(r['tflops']), float(r['sm_clock_mean_mhz'] or 0)))
        if r['rel_l2_err']: err[k] = r['rel_l2_err'][:6] + ' ' + r['check']
    return runs, err
R = {v: load(f'{sys.argv[1]}/ab_{v}.csv') for v in 'eij'}
for k in sorted(R['e'][0]):
    m = {v: statistics.median(t for t, _ in R[v][0][k]) for v in 'eij'}
    pm = {v: statistics.median(t / c for t, c in R[v][0][k]) for v in 'eij'}
    print(' '.join(k), ' | '.join(f"{v} " + ' '.join(f'{t:.0f}@{c:.0f}' for t, c in R[v][0][k]) + f" med {m[v]:.0f} ({(m[v] / m['e'] - 1) * 100:+.1f} %, /MHz {(pm[v] / pm['e'] - 1) * 100:+.1f} %) {R[v][1].get(k)}" for v in 'eij'))
PY
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
