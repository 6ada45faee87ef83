#!/usr/bin/env bash
# Session 40 call C (carry [".exp/s40b.tar.xz"], call B's build): rung 10's split counts at head_dim
# 64 (128-key tile: call B's heuristic took 3-4 splits for wave balance at 64x32x1x8192 and
# 16x32x16x8192 and lost to the 64-key tile run whole, 0.94-0.97x) and 256 (2-warp 32-key tile),
# splits 1 2 3 4 forced, cuDNN beside, two rounds.
set -uo pipefail
tar -xJf .exp/s40b.tar.xz -C /; N=/tmp/s40b/fa-bench; C=$OUT/splits.csv
$N --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
run() {  # D B Sq Sk
  $N --kernel mma_decode --num_splits 1,2,3,4,0 --skip_ref_check --head_dim $1 --batch_size $2 --seqlen_q $3 --seqlen_k $4 \
     --num_head 32 --num_head_kv 32,8 --csv $C > /dev/null 2>&1 || echo "rc=$? $*"
  python3 scripts/peers.py --backends cudnn --batch_size $2 --seqlen_q $3 --seqlen_k $4 --num_head 32 \
     --num_head_kv 32,8 --head_dim $1 --fa-bench $N --csv $C > /dev/null 2>&1 || echo "peers rc=$? $*"
}
for round in 1 2; do
  for d in 64 256; do run $d 64 1 8192; run $d 16 16 8192; run $d 8 1 32768; done
  echo "round $round at $SECONDS s"
done
python3 - "$C" <<'PY'
import csv, sys, statistics as st
from collections import defaultdict
g = defaultdict(lambda: defaultdict(list))
for r in csv.DictReader(open(sys.argv[1])):
    g[(r['head_dim'], r['batch_size'], r['seqlen_q'], r['seqlen_k'], r['num_head_kv'])][r['kernel'] + '/' + (r.get('num_splits') or '')].append(float(r['bandwidth_gbs'] or 0))
for key, d in g.items():
    print('d' + key[0], 'x'.join(key[1:4]), 'kv' + key[4], '  '.join(f"{k}:{st.mean(v):.0f}" for k, v in sorted(d.items())))
PY
