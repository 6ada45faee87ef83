#!/usr/bin/env bash
# Session 29 call 4c (right after 4a / 4b, same machine): issue #13's comparison on the pipelined peers harness
# (call 3): seed 001's CuTe DSL kernel (flash_attention_v2.py of CUTLASS main, tile 128x64x128, through
# scripts/peers.py --backends cute) against fa-bench's mma.sync rungs (mma at the example's 128x64x128, its
# default; warp_specialized at its default) on 2x32x8192x64, 4x16x8192x128 and 1x16x16384x128, causal 0 and
# 1, bf16, default timing rule on both sides, two rounds, order alternating; and the example on the old
# harness (HEAD 6ff9ee2's scripts/) at 2x32x8192x64 as the control. The site stays in /tmp/site29 for 4d.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/old
tar -xJf .exp/s29c.tar.xz -C /tmp; N=/tmp/base/fa-bench; tar -xf .exp/s29_old_scripts.tar -C /tmp/old
cat /tmp/stash/site29.part.aa /tmp/stash/site29.part.ab .exp/s29w3/site29.part.ac | xz -d | tar -x -C /tmp || echo "site unpack failed"
python3 -c "import google.protobuf" 2>/dev/null && rm -rf /tmp/site29/google /tmp/site29/protobuf-*.dist-info
export PYTHONPATH=/tmp/site29:/tmp/site29/nvidia_cutlass_dsl/dsl_packages
python3 -c "import cutlass, cutlass.cute; print('cutlass dsl import ok')" >> $L/pip.log 2>&1
python3 -c "import flash_attn.cute; print('fa4 import ok')" >> $L/pip.log 2>&1; tail -4 $L/pip.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$N --kernel mma --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
D64="--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64"
A="--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
C="--batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
EX=/tmp/stash/flash_attention_v2.py
fb() { for s in "$D64" "$A" "$C"; do timeout 100 $N $s --kernel mma,warp_specialized --causal 0,1 --skip_ref_check --csv $L/mma.csv >> $L/fa.log 2>&1; done; }
cute() { for s in "$D64" "$A" "$C"; do (( SECONDS > 500 )) && { echo "time guard (cute) at $SECONDS s"; return; }
  timeout 150 python3 scripts/peers.py --fa-bench $N --backends cute --cute-example $EX $s --causal 0,1 \
    --csv $L/cute_new.csv >> $L/cute.log 2>&1; echo "cute new rc=$? at $SECONDS s"; done; }
cute_old() { timeout 150 python3 /tmp/old/scripts/peers.py --fa-bench $N --backends cute --cute-example $EX $D64 --causal 0 \
    --csv $L/cute_old.csv >> $L/cute_old.log 2>&1; echo "cute old rc=$? at $SECONDS s"; }
fb; cute; cute_old; cute; fb; cute_old
python3 - $L <<'PY'
import csv, sys, statistics, collections, glob, os
L = sys.argv[1]
runs = collections.defaultdict(list)
for f in sorted(glob.glob(f'{L}/*.csv')):
    tag = os.path.basename(f)[:-4]
    for r in csv.DictReader(open(f)):
        if r['tflops']:
            runs[(r['head_dim'], r['batch_size'], r['seqlen_q'], r['is_causal'], r['kernel'], tag)].append(
                (float(r['tflops']), r['sm_clock_mean_mhz'][:4], r['power_w_mean'][:3]))
for k in sorted(runs):
    v = runs[k]
    print(' '.join(k), f'med {statistics.median(t for t, *_ in v):.1f}', ' '.join(f'{t:.1f}@{c}/{w}W' for t, c, w in v))
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
