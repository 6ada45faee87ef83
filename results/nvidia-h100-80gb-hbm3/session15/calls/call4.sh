#!/usr/bin/env bash
# Session 15 call 4 (right after call 3, same machine, CuTe DSL site from call 3 in /tmp/site): issue #13's comparison again with both sides on
# the default timing rule (steady state, the clock the 700 W cap leaves) and clocks on both sides:
# seed 001's CuTe DSL kernel (flash_attention_v2.py of CUTLASS main, examples/python/CuTeDSL/cute/
# ampere/kernel/attention/, at its tile 128x64x128, through scripts/peers.py --backends cute) against
# fa-bench's mma.sync rungs (mma at its default tile, the example's 128x64x128; warp_specialized at its
# default) on 2x32x8192x64, 4x16x8192x128 and 1x16x16384x128, causal 0 and 1, bf16, two rounds,
# order alternating. Binary: .deps/s15b-bench.tar.xz (the causal tile order).
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b4
tar -xJf .deps/s15b-bench.tar.xz -C /tmp/b4; N=/tmp/b4/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
python3 -c "import cutlass, cutlass.cute; print('cutlass dsl import ok')" 2>&1 | tail -1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$N --kernel mma --iterations 300 --skip_ref_check > /dev/null 2>&1
D64="--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64"
A="--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
C="--batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
fb() { for s in "$D64" "$A" "$C"; do timeout 100 $N $s --kernel mma,warp_specialized --causal 0,1 --csv $L/mma.csv >> $L/fa.log 2>&1; done; }
cute() { for s in "$D64" "$A" "$C"; do
  timeout 150 python3 scripts/peers.py --fa-bench $N --backends cute --cute-example .whl/cute/flash_attention_v2.py $s --causal 0,1 \
    --csv $L/mma.csv >> $L/cute.log 2>&1; echo "cute rc=$?"; done; }
fb; cute; cute; fb
python3 - $L/mma.csv <<'PY'
import csv, sys, statistics, collections
runs = collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    if r['tflops']:
        runs[(r['head_dim'], r['batch_size'], r['seqlen_q'], r['is_causal'], r['kernel'], r['m_block_size'] + 'x' + r['n_block_size'])].append(
            (float(r['tflops']), r['sm_clock_mean_mhz'][:4], r['flags'], r['check']))
for k in sorted(runs):
    v = runs[k]
    print(' '.join(k), ' '.join(f'{t:.0f}@{c}{f}' for t, c, f, _ in v), f'med {statistics.median(t for t, *_ in v):.1f}', sorted({c for *_, c in v}))
PY
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
