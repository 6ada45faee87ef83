#!/usr/bin/env bash
# Session 22 call 3: two rung-8 changes (issue #11). s22e1 = b028507 + the lazy row max (a row's max
# rises only when a tile's exceeds it by > 0.75 in base-2 logits, so O's rescale is skipped more
# often; P <= 2^8.75 < 448); s22e12 = s22e1 + the pre-pass with 32-bit shared-memory reads and
# PRMT transposes (was one byte per LDS, 4-way bank conflicts). GPU tests and memcheck / racecheck
# on s22e12 (the pre-pass at seqlen_k 777, d128 and d256), the pre-pass's time under ncu (base
# clock) on s22q (= b028507) and s22e12, then issue #11's shapes steady (3 s warm-up, >= 1 s
# timed), s22q / s22e1 / s22e12, two rounds, order rotating.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s22b.tar.xz -C /tmp
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 150 /tmp/e12/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests_e12.log 2>&1; echo "gpu tests e12 rc=$?"; grep -E "passed|failed" $L/gpu_tests_e12.log | tail -2
for d in 128 256; do for t in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $t --error-exitcode 99 /tmp/e12/fa-bench --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size 1 --num_head 4 \
    --num_head_kv 2 --seqlen_q 4099 --seqlen_k 777 --head_dim $d --causal 0,1 \
    --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $L/san_e12_${t}_d$d.log 2>&1
  echo "e12 $t d$d rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/san_e12_${t}_d$d.log | tail -1) $(grep -cE ' PASS ' $L/san_e12_${t}_d$d.log) PASS rows"
done; done
for b in q e12; do
  timeout 60 ncu --metrics gpu__time_duration.sum,dram__bytes.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum --clock-control base \
    -k regex:prepass --nvtx --nvtx-include "regex:fa-bench@.*/" /tmp/$b/fa-bench --profile --kernel wgmma_fp8 --dtype Float8E4M3FN \
    --batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256 > $L/ncu_prepass_$b.txt 2>&1
  echo "ncu prepass $b: $(grep -E 'gpu__time|dram__bytes|bank_conf' $L/ncu_prepass_$b.txt | sed 's/  */ /g' | tr '\n' ';')"
done
/tmp/q/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
W="--warmup_time 3 --gpu_warmup_time 3 --min_time 1"
for round in 1 2; do
  case $round in 1) order="q e1 e12";; 2) order="e12 e1 q";; esac
  for s in "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128" "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128" \
           "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256"; do
    (( SECONDS > 540 )) && { echo "time guard at $SECONDS s"; break 2; }
    for t in $order; do
      timeout 60 /tmp/$t/fa-bench $s --causal 0,1 --num_head 16 --kernel wgmma_fp8 --dtype Float8E4M3FN $W --csv $L/st_$t.csv >> $L/fa.log 2>&1
    done
  done
  echo "round $round done at $SECONDS s"
done
python3 - $L <<'PY'
import csv, sys, statistics, collections
L = sys.argv[1]
def load(f):
    runs = collections.defaultdict(list)
    for r in csv.DictReader(open(f)):
        if r['tflops']:
            k = (int(r['batch_size']), int(r['seqlen_q']), int(r['head_dim']), int(r['is_causal']))
            runs[k].append((float(r['tflops']), float(r['energy_mj'] or 0), float(r['sm_clock_mean_mhz'] or 0), r['check'], float(r['rel_l2_err'] or 'nan')))
    return runs
a, b, c = load(f'{L}/st_q.csv'), load(f'{L}/st_e1.csv'), load(f'{L}/st_e12.csv')
med = lambda xs, i: statistics.median(x[i] for x in xs)
for k in sorted(a):
    if k not in b or k not in c: continue
    print('%dx16x%dx%d causal %d' % k, f'q {med(a[k], 0):.1f} ({med(a[k], 1):.0f} mJ, {med(a[k], 2):.0f} MHz)',
          f'e1 {med(b[k], 0):.1f} x{med(b[k], 0) / med(a[k], 0):.3f} ({med(b[k], 1):.0f} mJ)', f'e12 {med(c[k], 0):.1f} x{med(c[k], 0) / med(a[k], 0):.3f} ({med(c[k], 1):.0f} mJ)',
          [round(x[0]) for x in a[k]], [round(x[0]) for x in b[k]], [round(x[0]) for x in c[k]], {x[3] for x in a[k] + b[k] + c[k]},
          'rel_l2', round(med(a[k], 4), 4), round(med(b[k], 4), 4), round(med(c[k], 4), 4))
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
