#!/usr/bin/env bash
# Session 28 call 4: ds = base with rung 8's O stored from registers straight to global memory (EXPERIMENT:
# no shared-memory staging, proxy fence, named barrier, TMA store and wait for its reads; call 1's timeline
# has the epilogue at ~2,750 cycles a warpgroup, exposed at the end of every CTA). GPU tests and memcheck on
# ds; base / ds A/B on issue #11's shapes and an in-kernel-way shape, two rounds.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s28d.tar.xz -C /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 150 /tmp/ds/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests_ds.log 2>&1; echo "gpu tests ds rc=$? $(grep -E 'assertions|FAILED' $L/gpu_tests_ds.log | tail -2 | tr '\n' ' ') at $SECONDS s"
for d in 128 256; do
  f=$L/san_ds_memcheck_d$d.log
  timeout 120 compute-sanitizer --tool memcheck --error-exitcode 99 /tmp/ds/fa-bench --kernel wgmma_fp8 --dtype Float8E4M3FN --warmup_iterations 0 --warmup_time 0 \
    --gpu_warmup_time 0 --iterations 1 --batch_size 2 --num_head 4 --num_head_kv 2 --seqlen_q 2051 --seqlen_k 777 --head_dim $d --causal 0,1 > $f 2>&1
  echo "memcheck d$d rc=$? $(grep SUMMARY $f | tail -1) $(grep -cE ' PASS ' $f) PASS"
done
/tmp/base/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
ab=("--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128 --causal 0"
    "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128 --causal 1"
    "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --causal 0"
    "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --causal 1"
    "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256 --causal 0"
    "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256 --causal 1"
    "--batch_size 8 --seqlen_q 2048 --seqlen_k 2048 --head_dim 128 --causal 1")
for round in 1 2; do
  order="base ds"; [[ $round == 2 ]] && order="ds base"
  for s in "${ab[@]}"; do
    for b in $order; do
      timeout 60 /tmp/$b/fa-bench $s --num_head 16 --kernel wgmma_fp8 --dtype Float8E4M3FN --csv $L/ab_$b.csv >> $L/ab.log 2>&1
    done
  done
  echo "ab round $round at $SECONDS s"
done
python3 - $L <<'PY'
import csv, sys, statistics, collections, glob, os
L = sys.argv[1]
runs = collections.defaultdict(list)
for f in sorted(glob.glob(f'{L}/ab_*.csv')):
    tag = os.path.basename(f)[:-4]
    for r in csv.DictReader(open(f)):
        if r['tflops']:
            runs[(r['head_dim'], r['batch_size'], r['seqlen_q'], r['is_causal'], tag)].append((float(r['tflops']), r['sm_clock_mean_mhz'], r['check'], r['rel_l2_err'][:6]))
for k, v in sorted(runs.items()):
    print(' '.join(k), round(statistics.median(x[0] for x in v), 1), [x[0] for x in v], [x[1] for x in v], v[0][2:])
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
