#!/usr/bin/env bash
# Session 14 call 8 (first of a pair: stashes the CuTe DSL site's first half for call 9's FA4).
# Head_dim 64's ring at 5 stages instead of 4 (WgmmaTileD64::kStages; 184 KB on rung 7, 208 KB on
# rung 9 with its two Q buffers): binaries st4 (the commit, a47de8c + results) and st5 (that
# constant changed), .deps/s14e.tar.xz, stripped, xz -9e. Each checked on an odd shape; then rungs
# 7 and 9, bf16, 32 heads, 4x4096, 2x8192, 1x16384, causal 0 and 1, 5 + 30 launches, three
# rounds, order alternating.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b /tmp/stash
cp .whl/cute/p1/cute_site.part.aa /tmp/stash/ &
tar -xJf .deps/s14e.tar.xz -C /tmp/b
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
for v in st4 st5; do
  /tmp/b/fa-bench-$v --kernel wgmma_overlap,wgmma_persistent --batch_size 1 --num_head 3 --seqlen_q 1111 --seqlen_k 3001 --head_dim 64 --causal 0,1 --iterations 2 --csv $L/check.csv > /dev/null 2>&1 || echo "$v FAILED"
done
python3 -c "
import csv
for r in csv.DictReader(open('$L/check.csv')): print('check', r['kernel'], r['m_block_size'], r['is_causal'], r['check'], r['rel_l2_err'])"
/tmp/b/fa-bench-st4 --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1
SHAPES=("--batch_size 4 --seqlen_q 4096 --seqlen_k 4096" "--batch_size 2 --seqlen_q 8192 --seqlen_k 8192" "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384")
ORDERS=("st4 st5" "st5 st4" "st4 st5")
C="--kernel wgmma_overlap,wgmma_persistent --num_head 32 --head_dim 64 --causal 0,1 --iterations 30 --warmup_iterations 5 --warmup_time 0 --gpu_warmup_time 0.3 --skip_ref_check"
for round in 1 2 3; do for s in "${SHAPES[@]}"; do for v in ${ORDERS[$((round - 1))]}; do
  /tmp/b/fa-bench-$v $C $s --csv $L/$v.csv >> $L/ab.log 2>&1
done; done; done
python3 - $L <<'PY'
import csv, sys, statistics, collections
R = {}
for v in ('st4', 'st5'):
    runs = collections.defaultdict(list)
    for r in csv.DictReader(open(f'{sys.argv[1]}/{v}.csv')):
        runs[(r['kernel'][6:], int(r['seqlen_q']), r['is_causal'])].append(float(r['tflops']))
    R[v] = runs
for k in sorted(R['st4']):
    a, b = statistics.median(R['st4'][k]), statistics.median(R['st5'][k])
    print(*k, f'st4 {a:.1f} ({" ".join(f"{t:.0f}" for t in R["st4"][k])}) st5 {b:.1f} ({" ".join(f"{t:.0f}" for t in R["st5"][k])}) st5/st4 {b / a:.3f}')
PY
wait; ls -la /tmp/stash
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
