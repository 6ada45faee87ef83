#!/usr/bin/env bash
# Session 40 call B (fresh machine, carry [".exp/s40b.tar.xz"]): rung 10 at head_dim 64 with a
# 128-key tile (call A's 64-key tile read 0.82-0.84x cuDNN where the grid is one wave or less: a
# 64-key tile of 128-byte rows is half the bytes in flight of head_dim 128's), the 64-key tile kept
# as the alternative; head_dim 256's 4-warp tile dropped (call A: 0.87-0.97x the 2-warp one). GPU
# tests; sanitize.sh on rung 10 at head_dim 64 (its new default tile); racecheck on decode shapes,
# which call A's 60 s cut after 43 of 48 rows; the head_dim-64 anchors on rung 10 (both tiles), rung
# 9, cuDNN and FA2, two rounds, order alternating.
set -uo pipefail
tar -xJf .exp/s40b.tar.xz -C /; N=/tmp/s40b/fa-bench; C=$OUT/anchors_d64.csv
( time timeout 200 /tmp/s40b/fa_gpu_tests "~[large]" ) > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(grep -E 'assertions|FAILED' $OUT/gpu_tests.log | tail -2 | tr '\n' ' ') at $SECONDS s"
DTYPES="BFloat16 Float16" HEAD_DIMS="64" timeout 60 scripts/sanitize.sh $N mma_decode > $OUT/sanitize.log 2>&1
echo "sanitize rc=$? $(grep -c clean $OUT/sanitize.log) clean at $SECONDS s"
for d in 64 256; do
  timeout 80 compute-sanitizer --tool racecheck --error-exitcode 99 $N --kernel mma_decode --batch_size 1 --seqlen_q 1,5 \
      --seqlen_k 1031 --num_head 4 --num_head_kv 4,2 --num_splits 1,3,0 --head_dim $d --causal 0,1 \
      --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $OUT/decode_racecheck_d$d.log 2>&1
  echo "decode racecheck d$d rc=$? $(grep -c PASS $OUT/decode_racecheck_d$d.log) PASS rows at $SECONDS s"
done
for tool in memcheck synccheck; do
  timeout 40 compute-sanitizer --tool $tool --error-exitcode 99 $N --kernel mma_decode --batch_size 1 --seqlen_q 1,5 \
      --seqlen_k 1031 --num_head 4 --num_head_kv 4,2 --num_splits 1,3,0 --head_dim 64 --causal 0,1 \
      --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $OUT/decode_${tool}_d64.log 2>&1
  echo "decode $tool d64 rc=$? $(grep -c PASS $OUT/decode_${tool}_d64.log) PASS rows at $SECONDS s"
done
$N --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
peers() { python3 scripts/peers.py --backends cudnn,fa2 --check --batch_size $1 --seqlen_q $2 --seqlen_k $3 --num_head 32 \
          --num_head_kv 32,8 --head_dim 64 --fa-bench $N --csv $C > /dev/null 2>&1 || echo "peers rc=$? $*"; }
ours() { $N --kernel mma_decode,wgmma_persistent --batch_size $1 --seqlen_q $2 --seqlen_k $3 --num_head 32 \
          --num_head_kv 32,8 --head_dim 64 --csv $C > /dev/null 2>&1 || echo "fa-bench rc=$? $*"
         $N --kernel mma_decode --m_block_size 16 --n_block_size 64 --num_threads 128 --batch_size $1 --seqlen_q $2 \
          --seqlen_k $3 --num_head 32 --num_head_kv 32,8 --head_dim 64 --csv $C > /dev/null 2>&1 || echo "fa-bench 64 rc=$? $*"; }
for round in 1 2; do
  for s in "64 1 8192" "8 1 32768" "1 1 131072" "16 16 8192"; do
    if (( round == 1 )); then ours $s; peers $s; else peers $s; ours $s; fi
  done
  echo "round $round done at $SECONDS s"
done
python3 - "$C" <<'PY'
import csv, sys, statistics as st
from collections import defaultdict
g = defaultdict(lambda: defaultdict(list))
for r in csv.DictReader(open(sys.argv[1])):
    k = r['kernel'] + ('' if r['kernel'] != 'mma_decode' else '@' + r['n_block_size'])
    g[(r['head_dim'], r['batch_size'], r['seqlen_q'], r['seqlen_k'], r['num_head_kv'])][k].append(
        (float(r['bandwidth_gbs'] or 0), r['num_splits'], r['check']))
for key, d in g.items():
    print('d' + key[0], 'x'.join(key[1:4]), 'kv' + key[4], '  '.join(f"{k}:{st.mean(b for b, _, _ in v):.0f}/s{v[0][1]}/{v[0][2]}" for k, v in d.items()))
PY
