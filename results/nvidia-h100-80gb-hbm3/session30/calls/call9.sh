#!/usr/bin/env bash
# Session 30 call 9 (after calls 7-8 stashed the peers' site's first two parts on the same machine): the
# committed build against cuDNN 9.19 and FA4 4.0.0b36 at the FA2-grid points the tail split reaches
# (4x32x4096x64, 4x16x8192x128) and the non-causal points below issue #10's bar in call 4 (d128 4x4096 and
# 1x16384, d64 2x8192 and 1x32x16384), non-causal, each point's fa-bench call (rungs 7 and 9) and peers.py
# call back to back, who goes first alternating, as sweep.sh's; a second round on the two split points.
set -uo pipefail
L=$OUT/logs; mkdir -p $L
tar -xJf .exp/s30b.tar.xz -C /tmp; N=/tmp/tail/fa-bench
cat /tmp/stash/site29.part.aa /tmp/stash/site29.part.ab .exp/s29w3/site29.part.ac | xz -d | tar -x -C /tmp || echo "site unpack failed"
python3 -c "import google.protobuf" 2>/dev/null && rm -rf /tmp/site29/google /tmp/site29/protobuf-*.dist-info
export PYTHONPATH=/tmp/site29:/tmp/site29/nvidia_cutlass_dsl/dsl_packages
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
fab() { timeout 60 $N "$@" --causal 0 --dtype BFloat16 --kernel wgmma_overlap,wgmma_persistent --skip_ref_check --csv $L/pts.csv >> $L/run.log 2>&1; }
peer() { timeout 90 python3 scripts/peers.py "$@" --causal 0 --backends cudnn,fa4 --fa-bench $N --csv $L/pts.csv >> $L/run.log 2>&1; }
pts=("--batch_size 4 --num_head 32 --seqlen_q 4096 --seqlen_k 4096 --head_dim 64"
     "--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
     "--batch_size 4 --num_head 16 --seqlen_q 4096 --seqlen_k 4096 --head_dim 128"
     "--batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
     "--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64"
     "--batch_size 1 --num_head 32 --seqlen_q 16384 --seqlen_k 16384 --head_dim 64")
i=0
for s in "${pts[@]}" "${pts[1]}" "${pts[0]}"; do
  if (( i % 2 == 0 )); then fab $s; peer $s; else peer $s; fab $s; fi
  i=$((i + 1)); echo "point $i at $SECONDS s"
done
python3 - $L <<'PY'
import csv, sys, statistics, collections
L = sys.argv[1]
runs = collections.defaultdict(list)
for r in csv.DictReader(open(f'{L}/pts.csv')):
    if r['tflops']:
        runs[(r['batch_size'], r['num_head'], r['seqlen_q'], r['head_dim'])].append((r['kernel'], float(r['tflops']), r['sm_clock_mean_mhz'][:4], r['note'][:40]))
for k, v in runs.items():
    best = max(x[1] for x in v if x[0].startswith('wgmma')); peer = max(x[1] for x in v if not x[0].startswith('wgmma'))
    print('x'.join(k), [(x[0][:12], round(x[1], 1), x[2]) for x in v], f'best/peer {best / peer:.3f}')
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
