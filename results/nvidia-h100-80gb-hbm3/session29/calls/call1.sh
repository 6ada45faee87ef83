#!/usr/bin/env bash
# Session 29 call 1: psc = base with the 192 x 64 tile persistent (EXPERIMENT, session 28's
# persistent_static_coords.patch: a static greedy longest-first schedule in constant memory holding each tile's
# decoded coordinates and S's scale; the ring's barriers re-initialized between tiles). GPU tests,
# memcheck on psc; base / psc A/B on issue #11's head_dim-128 shapes and 4x16x4096, two rounds.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s29a.tar.xz -C /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 150 /tmp/psc/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests_psc.log 2>&1; echo "gpu tests ps rc=$? $(grep -E 'assertions|FAILED' $L/gpu_tests_psc.log | tail -2 | tr '\n' ' ') at $SECONDS s"
for t in memcheck; do  # racecheck: 30 hazards on the re-init in session 28 call 6 (ps), not rerun here
  f=$L/san_psc_$t.log
  timeout 100 compute-sanitizer --tool $t --error-exitcode 99 /tmp/psc/fa-bench --kernel wgmma_fp8 --dtype Float8E4M3FN --warmup_iterations 0 --warmup_time 0 \
    --gpu_warmup_time 0 --iterations 1 --batch_size 1 --num_head 32 --num_head_kv 16 --seqlen_q 1000 --seqlen_k 600 --head_dim 128 --causal 0,1 \
    --m_block_size 192 --n_block_size 64 --num_threads 384 > $f 2>&1
  echo "$t rc=$? $(grep SUMMARY $f | tail -1) $(grep -cE ' PASS ' $f) PASS at $SECONDS s"
done
/tmp/base/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
ab=("--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128 --causal 0"
    "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128 --causal 1"
    "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --causal 0"
    "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --causal 1"
    "--batch_size 4 --seqlen_q 4096 --seqlen_k 4096 --head_dim 128 --causal 0")
for round in 1 2; do
  order="base psc"; [[ $round == 2 ]] && order="psc base"
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
            runs[(r['head_dim'], r['batch_size'], r['seqlen_q'], r['is_causal'], tag)].append((float(r['tflops']), r['sm_clock_mean_mhz'], r['check'], r['rel_l2_err'][:6], r['note'][:40]))
for k, v in sorted(runs.items()):
    print(' '.join(k), round(statistics.median(x[0] for x in v), 1), [x[0] for x in v], [x[1] for x in v], v[0][2:])
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
