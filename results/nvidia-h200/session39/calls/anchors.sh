#!/usr/bin/env bash
# Session 39 call F (H200): main's build with the decode wave balance from 0.8 waves on (.exp/s39b.tar.xz,
# commit after 5dbfc91): its GPU tests, then the four decode anchors (32 and 8 K/V heads) on rungs 10
# and 7 with --num_splits 0 (the launch plan's choice) beside cuDNN and FA2, two rounds, order
# alternating, reference checks on both sides. FA4 is not in this call (its site takes four calls to
# carry); call D has it.
set -uo pipefail
tar -xJf .exp/s39b.tar.xz -C /; N=/tmp/s39b/fa-bench; C=$OUT/anchors.csv
( time timeout 150 /tmp/s39b/fa_gpu_tests "~[large]" ) > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(grep -E 'assertions|FAILED' $OUT/gpu_tests.log | tail -2 | tr '\n' ' ')"
nvidia-smi --query-gpu=name,driver_version,power.limit,temperature.gpu --format=csv > $OUT/smi.txt
$N --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
peers() { python3 scripts/peers.py --backends cudnn,fa2 --check --batch_size $1 --seqlen_q $2 --seqlen_k $3 --num_head 32 \
          --num_head_kv 32,8 --head_dim 128 --fa-bench $N --csv $C > /dev/null 2>&1 || echo "peers rc=$? $*"; }
ours() { $N --kernel mma_decode,wgmma_overlap --batch_size $1 --seqlen_q $2 --seqlen_k $3 --num_head 32 --num_head_kv 32,8 \
          --head_dim 128 --csv $C > /dev/null 2>&1 || echo "fa-bench rc=$? $*"; }
for round in 1 2; do
  for s in "64 1 8192" "8 1 32768" "1 1 131072" "16 16 8192"; do
    if (( round == 1 )); then ours $s; peers $s; else peers $s; ours $s; fi
  done
done
echo "done at $SECONDS s"
python3 - "$C" <<'PY'
import csv, sys, statistics as st
from collections import defaultdict
g = defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    key = (r['batch_size'], r['seqlen_q'], r['seqlen_k'], r['num_head_kv'])
    g[key].append((r['kernel'], float(r['bandwidth_gbs']), r['num_splits'], r['check']))
for key, rows in g.items():
    print('x'.join(key[:3]), 'kv' + key[3], '  '.join(f"{k}:{b:.0f}{'/s'+s if s else ''}{'' if c=='PASS' else '!'+c}" for k, b, s, c in rows))
PY
