#!/usr/bin/env bash
# Session 40 call D (carry [".exp/s40b.tar.xz"], call B's build): is it the tile or the CTAs an SM?
# At head_dim 64 rung 10's 64-key tile (16 KB of K+V a stage) read 3.5-3.7 TB/s where the split
# rule's one-wave fill put two CTAs on an SM, and 4.4-4.5 where the grid itself put four there
# (calls A, B). Here the 64-key tile with splits forced up to ~4 CTAs an SM (528 slots: 4 resident,
# registers) beside the 128-key tile's own choice and cuDNN, at the one-wave anchors, two rounds.
set -uo pipefail
tar -xJf .exp/s40b.tar.xz -C /; N=/tmp/s40b/fa-bench; C=$OUT/fill.csv
$N --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
run() {  # B Sk Hkv splits-of-the-64-key-tile
  $N --kernel mma_decode --m_block_size 16 --n_block_size 64 --num_threads 128 --num_splits $4 --skip_ref_check \
     --head_dim 64 --batch_size $1 --seqlen_q 1 --seqlen_k $2 --num_head 32 --num_head_kv $3 --csv $C > /dev/null 2>&1 || echo "rc=$? $*"
  $N --kernel mma_decode --skip_ref_check --head_dim 64 --batch_size $1 --seqlen_q 1 --seqlen_k $2 --num_head 32 \
     --num_head_kv $3 --csv $C > /dev/null 2>&1 || echo "rc=$? $*"
  python3 scripts/peers.py --backends cudnn --batch_size $1 --seqlen_q 1 --seqlen_k $2 --num_head 32 \
     --num_head_kv $3 --head_dim 64 --fa-bench $N --csv $C > /dev/null 2>&1 || echo "peers rc=$? $*"
}
for round in 1 2; do
  run 8 32768 32 1,2,3,4
  run 8 32768 8 4,6,8
  run 1 131072 32 8,12,16
  run 1 131072 8 33,48,66
  run 4 32768 8 8,16
  echo "round $round at $SECONDS s"
done
python3 - "$C" <<'PY'
import csv, sys, statistics as st
from collections import defaultdict
g = defaultdict(lambda: defaultdict(list))
for r in csv.DictReader(open(sys.argv[1])):
    k = r['kernel'] + ('@' + r['n_block_size'] if r['kernel'] == 'mma_decode' else '') + '/' + (r.get('num_splits') or '')
    g[(r['batch_size'], r['seqlen_k'], r['num_head_kv'])][k].append(float(r['bandwidth_gbs'] or 0))
for key, d in g.items():
    print('x'.join(key[:2]), 'kv' + key[2], '  '.join(f"{k}:{st.mean(v):.0f}" for k, v in sorted(d.items())))
PY
