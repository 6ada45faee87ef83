#!/usr/bin/env bash
# Session 14 call 4 (first of a pair: stashes the CuTe DSL site's first half for call 5's FA4).
# Binary s14c (.deps/s14c.tar.xz, stripped of host symbols, xz -9e, for the carry limit): s14b's fa-bench and GPU tests whose long-key-rows
# case now also runs grouped K/V heads and three splits. GPU tests; rung 7's 160-key default on
# split-KV and GQA prefill with the reference check; GQA prefill 4x32(kv 8)x8192x128, rung 7 at
# 128 and 160 keys and rung 9, 5 + 30 launches, three rounds, order rotating.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b /tmp/stash
cp .whl/cute/p1/cute_site.part.aa /tmp/stash/ &
tar -xJf .deps/s14c.tar.xz -C /tmp/b; N=/tmp/b/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 300 /tmp/b/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -3
$N --kernel wgmma_overlap --batch_size 1 --num_head 8 --seqlen_q 2048 --seqlen_k 4099 --num_splits 1,3 --causal 0,1 --iterations 3 --csv $L/checks.csv > $L/checks.log 2>&1
$N --kernel wgmma_overlap --batch_size 1 --num_head 32 --num_head_kv 8 --seqlen_q 2051 --seqlen_k 2051 --causal 0,1 --iterations 3 --csv $L/checks.csv >> $L/checks.log 2>&1
python3 -c "
import csv
for r in csv.DictReader(open('$L/checks.csv')):
    print('check', r['kernel'], r['num_head'], r['num_head_kv'], r['seqlen_q'], r['seqlen_k'], r['is_causal'], 'splits', r['num_splits'], 'pack', r['pack_gqa'], 'tile', r['m_block_size'], r['n_block_size'], r['check'], r['rel_l2_err'])"
G="--batch_size 4 --num_head 32 --num_head_kv 8 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --causal 0,1 --iterations 30 --warmup_iterations 5 --warmup_time 0 --gpu_warmup_time 0.3 --skip_ref_check"
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1
declare -A V
V[a]="--kernel wgmma_overlap,wgmma_persistent --m_block_size 128 --n_block_size 128 --num_threads 256"
V[b]="--kernel wgmma_overlap"
ORDERS=("a b" "b a" "a b")
for round in 1 2 3; do for v in ${ORDERS[$((round - 1))]}; do $N $G ${V[$v]} --csv $L/gqa.csv >> $L/gqa.log 2>&1; done; done
python3 - $L/gqa.csv <<'PY'
import csv, sys, statistics, collections
runs = collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    runs[(r['is_causal'], r['kernel'][6:] + '@' + r['n_block_size'])].append((float(r['tflops']), float(r['sm_clock_mean_mhz'] or 0)))
for k in sorted(runs):
    v = runs[k]
    print('gqa causal', *k, f"med {statistics.median(t for t, _ in v):.1f} @{statistics.median(c for _, c in v):.0f}", ' '.join(f'{t:.0f}' for t, _ in v))
PY
wait; ls -la /tmp/stash
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
