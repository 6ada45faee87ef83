#!/usr/bin/env bash
# Session 29 call 2 (issue #13): the mma rung with two independent 4-warp tiles per CTA (EXPERIMENT, kPairs = 2:
# adjacent row blocks of one head, each half with its own shared memory and named barrier, no 8-warp barrier),
# K/V copies through L1 (pca: cp.async.ca, carveout leaving L1 ~156 KB at d64) or not (pcg: cp.async.cg, the
# control). base = HEAD's mma at its default tile (128x64, two CTAs of 4 warps per SM). A/B at issue #13's six
# shapes, two rounds, order rotating; then pca's GPU tests.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s29b.tar.xz -C /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
/tmp/base/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
ab=("--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64"
    "--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
    "--batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128")
run() {  # binary shape causal
  local extra=""; [[ $1 != base ]] && extra="--m_block_size 128 --n_block_size 64 --num_threads 256"
  timeout 60 /tmp/$1/fa-bench $2 --causal $3 --kernel mma --dtype BFloat16 $extra --csv $L/ab_$1.csv >> $L/ab.log 2>&1
}
for round in 1 2; do
  order="base pca pcg"; [[ $round == 2 ]] && order="pcg pca base"
  for s in "${ab[@]}"; do for c in 0 1; do for b in $order; do run $b "$s" $c; done; done; done
  echo "ab round $round at $SECONDS s"
done
python3 - $L <<'PY'
import csv, sys, statistics, collections, glob, os
L = sys.argv[1]
runs = collections.defaultdict(list)
for f in sorted(glob.glob(f'{L}/ab_*.csv')):
    tag = os.path.basename(f)[3:-4]
    for r in csv.DictReader(open(f)):
        if r['tflops']:
            runs[(r['head_dim'], r['batch_size'], r['seqlen_q'], r['is_causal'], tag)].append((float(r['tflops']), r['sm_clock_mean_mhz'], r['check'], r['energy_mj']))
for k, v in sorted(runs.items()):
    print(' '.join(k), round(statistics.median(x[0] for x in v), 1), [x[0] for x in v], 'MHz', [x[1] for x in v], sorted({x[2] for x in v}), [x[3] for x in v])
PY
(( SECONDS < 420 )) && { ( time timeout 120 /tmp/pca/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests_pca.log 2>&1; echo "gpu tests pca rc=$? $(grep -E 'assertions|FAILED' $L/gpu_tests_pca.log | tail -2 | tr '\n' ' ') at $SECONDS s"; }
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
