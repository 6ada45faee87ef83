#!/usr/bin/env bash
# Session 14 call 6 (first of a pair: stashes the CuTe DSL site's first half for call 7's FA4).
# Where rung 7's 160-key tile waits for P·V inside the softmax (kPvWaitColumn, overlap_schedule.cuh):
# after 64 of its 160 columns (the committed binary, WgmmaTileD128's value), 80 or 96 (binaries
# built with only that constant changed; .deps/s14d.tar.xz, stripped, xz -9e). Each checked against
# the reference on an odd shape first; then bf16 d128 2x16x8192, 4x16x8192, 1x16x16384, causal 0
# and 1, 5 + 30 launches, three rounds, order rotating.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b /tmp/stash
cp .whl/cute/p1/cute_site.part.aa /tmp/stash/ &
tar -xJf .deps/s14d.tar.xz -C /tmp/b
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
for v in 64 80 96; do
  /tmp/b/fa-bench-pv$v --kernel wgmma_overlap --batch_size 1 --num_head 3 --seqlen_q 2111 --seqlen_k 3001 --causal 0,1 --iterations 2 --csv $L/check.csv > /dev/null 2>&1 || echo "pv$v FAILED"
done
python3 -c "
import csv
for r in csv.DictReader(open('$L/check.csv')): print('check', r['n_block_size'], r['is_causal'], r['check'], r['rel_l2_err'])"
/tmp/b/fa-bench-pv64 --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1
SHAPES=("--batch_size 2 --seqlen_q 8192 --seqlen_k 8192" "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192" "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384")
ORDERS=("64 80 96" "80 96 64" "96 64 80")
C="--kernel wgmma_overlap --num_head 16 --head_dim 128 --causal 0,1 --iterations 30 --warmup_iterations 5 --warmup_time 0 --gpu_warmup_time 0.3 --skip_ref_check"
for round in 1 2 3; do for s in "${SHAPES[@]}"; do for v in ${ORDERS[$((round - 1))]}; do
  /tmp/b/fa-bench-pv$v $C $s --csv $L/pv$v.csv >> $L/ab.log 2>&1
done; done; done
python3 - $L <<'PY'
import csv, sys, statistics, collections
R = {}
for v in (64, 80, 96):
    runs = collections.defaultdict(list)
    for r in csv.DictReader(open(f'{sys.argv[1]}/pv{v}.csv')):
        runs[(int(r['seqlen_q']), r['batch_size'], r['is_causal'])].append((float(r['tflops']), float(r['sm_clock_mean_mhz'] or 0)))
    R[v] = runs
for k in sorted(R[64]):
    m = {v: statistics.median(t for t, _ in R[v][k]) for v in R}
    print(*k, ' '.join(f'pv{v} {m[v]:.1f} ({" ".join(f"{t:.0f}" for t, _ in R[v][k])})' for v in R), f'80/64 {m[80]/m[64]:.3f} 96/64 {m[96]/m[64]:.3f}')
PY
wait; ls -la /tmp/stash
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
