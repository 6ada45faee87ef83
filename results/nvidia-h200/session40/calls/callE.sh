#!/usr/bin/env bash
# Session 40 call E (carry [".exp/s40e.tar.xz"]): the build that lands, s40e: rung 10 at head_dim 64
# (64-key tile) and 256 (2 warps x 32 keys), the one-wave split rule filling 64 KB of K/V stages an
# SM (four CTAs at head_dim 64, two at 128 and 256). Every kernel's SASS is call B's build's (its
# 128-key head_dim-64 tile removed); the host's split rule is new. GPU tests, then the decode anchors
# at head_dim 64 and 256 (32 query heads, 32 and 8 K/V heads) on rungs 10, 7 and 9 beside cuDNN and
# FA2, two rounds, order alternating.
set -uo pipefail
tar -xJf .exp/s40e.tar.xz -C /; N=/tmp/s40e/fa-bench; C=$OUT/decode_d64_d256.csv
nvidia-smi --query-gpu=name,driver_version,power.limit,temperature.gpu --format=csv > $OUT/smi.txt
( time timeout 200 /tmp/s40e/fa_gpu_tests "~[large]" ) > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(grep -E 'assertions|FAILED' $OUT/gpu_tests.log | tail -2 | tr '\n' ' ') at $SECONDS s"
$N --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
peers() { python3 scripts/peers.py --backends cudnn,fa2 --check --batch_size $2 --seqlen_q $3 --seqlen_k $4 --num_head 32 \
          --num_head_kv 32,8 --head_dim $1 --fa-bench $N --csv $C > /dev/null 2>&1 || echo "peers rc=$? $*"; }
ours() { $N --kernel mma_decode,wgmma_overlap,wgmma_persistent --batch_size $2 --seqlen_q $3 --seqlen_k $4 --num_head 32 \
          --num_head_kv 32,8 --head_dim $1 --csv $C > /dev/null 2>&1 || echo "fa-bench rc=$? $*"; }
for round in 1 2; do
  for d in 64 256; do
    for s in "64 1 8192" "8 1 32768" "1 1 131072" "16 16 8192"; do
      if (( round == 1 )); then ours $d $s; peers $d $s; else peers $d $s; ours $d $s; fi
    done
  done
  echo "round $round done at $SECONDS s"
done
python3 - "$C" <<'PY'
import csv, sys, statistics as st
from collections import defaultdict
g = defaultdict(lambda: defaultdict(list))
for r in csv.DictReader(open(sys.argv[1])):
    g[(r['head_dim'], r['batch_size'], r['seqlen_q'], r['seqlen_k'], r['num_head_kv'])][r['kernel']].append(
        (float(r['bandwidth_gbs'] or 0), r['num_splits'], r['check']))
for key, d in g.items():
    print('d' + key[0], 'x'.join(key[1:4]), 'kv' + key[4], '  '.join(f"{k}:{st.mean(b for b, _, _ in v):.0f}/s{v[0][1]}/{v[0][2]}" for k, v in d.items()))
PY
