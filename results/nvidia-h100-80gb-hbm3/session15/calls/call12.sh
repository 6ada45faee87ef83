#!/usr/bin/env bash
# Session 15 call 12: a lazy running max on the mma rung (issue #13): a row keeps its max until a
# tile's max exceeds it by more than 2^8 (P <= 256), so the warp vote skips the O rescale on almost
# every tile (softmax_fragment.cuh, kLazyMarginLog2). Binaries (.deps/s15e.tar.xz): e1 = lazy at
# head_dim 64 (with the vote, which d64 had off), e2 = lazy at 64 and 128; against s15d's mma
# (stashed in call 10b, still on the machine if it is warm, else carried). GPU tests of e1 first
# (the whole matrix: mma's rows are the changed ones). Then issue #13's shapes, mma only,
# default timing rule (steady state), two rounds, binary order rotated.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/e /tmp/d
tar -xJf .deps/s15e.tar.xz -C /tmp/e
if [[ -f /tmp/stash/s15d-bench.tar.xz ]]; then tar -xJf /tmp/stash/s15d-bench.tar.xz -C /tmp/d; else tar -xJf .deps/s15d-bench.tar.xz -C /tmp/d; fi
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 200 /tmp/e/e1/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -3
/tmp/d/fa-bench --kernel mma --iterations 300 --skip_ref_check > /dev/null 2>&1
D64="--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64"
A="--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
C="--batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
run() { local b=$1; shift; for s in "$D64" "$A" "$C"; do timeout 60 $b $s --kernel mma --causal 0,1 "$@" >> $L/fa.log 2>&1; done; }
for round in 1 2; do
  order="d e1 e2"; [[ $round == 2 ]] && order="e2 e1 d"
  for t in $order; do
    b=/tmp/e/$t/fa-bench; [[ $t == d ]] && b=/tmp/d/fa-bench
    chk=--skip_ref_check; [[ $round == 1 ]] && chk=
    run $b $chk --csv $L/lazy_$t.csv
  done
done
python3 - $L <<'PY'
import csv, sys, statistics, collections
for t in ('d', 'e1', 'e2'):
    runs = collections.defaultdict(list); chk = {}
    for r in csv.DictReader(open(f'{sys.argv[1]}/lazy_{t}.csv')):
        if r['tflops']:
            k = (r['head_dim'], r['batch_size'], r['is_causal'])
            runs[k].append((float(r['tflops']), float(r['sm_clock_mean_mhz'])))
            if r['check']: chk[k] = r['check'] + ' ' + r['rel_l2_err'][:8]
    for k, v in sorted(runs.items()):
        print(t, ' '.join(k), f"{statistics.median(x for x, _ in v):.1f}", [f'{x:.0f}@{c:.0f}' for x, c in v], chk.get(k, ''))
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
