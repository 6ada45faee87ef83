#!/usr/bin/env bash
# Session 7 call 10: do forced split counts help the unsplit decode rows still behind the best peer
# (8x32x1x32768 H_kv 32: 256 CTAs; 16x32x16x8192 H_kv 8: 128 CTAs)? wgmma_overlap at 1..4 splits,
# two rounds, with cuDNN and FA2 from the same call.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/base
tar -xJf .deps/bin.tar.xz -C /tmp/base; B=/tmp/base/fa-bench
$B --kernel wgmma_overlap --iterations 300 --skip_ref_check > /dev/null 2>&1
P1="--batch_size 8 --num_head 32 --num_head_kv 32 --seqlen_q 1 --seqlen_k 32768 --head_dim 128"
P2="--batch_size 16 --num_head 32 --num_head_kv 8 --seqlen_q 16 --seqlen_k 8192 --head_dim 128"
for r in 1 2; do for s in 1 2 3 4; do
  timeout 30 $B $P1 --kernel wgmma_overlap --num_splits $s --csv $L/splits.csv >> $L/splits.log 2>&1
  timeout 30 $B $P2 --kernel wgmma_overlap --num_splits $s --csv $L/splits.csv >> $L/splits.log 2>&1
done; done
timeout 60 python3 scripts/peers.py --fa-bench $B --backends cudnn $P1 --warmup_iterations 20 --iterations 100 --csv $L/peers.csv >> $L/peers.log 2>&1
timeout 60 python3 scripts/peers.py --fa-bench $B --backends cudnn $P2 --warmup_iterations 20 --iterations 100 --csv $L/peers.csv >> $L/peers.log 2>&1
python3 - <<'PY'
import csv, os
L=os.environ['OUT']+'/logs'
for f in ('splits.csv','peers.csv'):
    for r in csv.DictReader(open(f'{L}/{f}')):
        print(r['kernel'], r['batch_size'], r['num_head_kv'], r['seqlen_q'], r['num_splits'], r['time_ms_median'], r['bandwidth_gbs'])
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
