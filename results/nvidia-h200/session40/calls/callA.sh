#!/usr/bin/env bash
# Session 40 call A (fresh machine, carry [".exp/s40a.tar.xz"]): rung 10 at head_dim 64 (session
# 39's prepared patch) and 256 (new: 2 warps x 32 keys, 72 KB, the sweep_dst column flip; and a
# 4-warp 64-key tile, 136 KB, as the alternative), build s40a. GPU tests (every instance), then
# compute-sanitizer on rung 10 at head_dim 64 and 256 (sanitize.sh's shapes; decode shapes), then
# the decode anchors at head_dim 64 and 256 (32 query heads, 32 and 8 K/V heads) on rung 10 (both
# head_dim-256 tiles), rungs 7 and 9, cuDNN and FA2, two rounds, order alternating.
set -uo pipefail
tar -xJf .exp/s40a.tar.xz -C /; N=/tmp/s40a/fa-bench; C=$OUT/anchors.csv
nvidia-smi --query-gpu=name,driver_version,power.limit,temperature.gpu --format=csv > $OUT/smi.txt
( time timeout 200 /tmp/s40a/fa_gpu_tests "~[large]" ) > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(grep -E 'assertions|FAILED' $OUT/gpu_tests.log | tail -2 | tr '\n' ' ') at $SECONDS s"
DTYPES="BFloat16 Float16" HEAD_DIMS="64 256" timeout 90 scripts/sanitize.sh $N mma_decode > $OUT/sanitize.log 2>&1
echo "sanitize rc=$? $(grep -c clean $OUT/sanitize.log) clean at $SECONDS s"
FA_ARGS="--m_block_size 16 --n_block_size 64 --num_threads 128" DTYPES="BFloat16" HEAD_DIMS="256" timeout 40 \
  scripts/sanitize.sh $N mma_decode > $OUT/sanitize_d256_4warp.log 2>&1
echo "sanitize 4-warp d256 rc=$? $(grep -c clean $OUT/sanitize_d256_4warp.log) clean"
for tool in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 99 $N --kernel mma_decode --batch_size 1 --seqlen_q 1,5 \
      --seqlen_k 1031 --num_head 4 --num_head_kv 4,2 --num_splits 1,3,0 --head_dim 64,256 --causal 0,1 \
      --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $OUT/decode_$tool.log 2>&1
  echo "decode $tool rc=$? $(grep -c PASS $OUT/decode_$tool.log) PASS rows at $SECONDS s"
done
$N --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
peers() { python3 scripts/peers.py --backends cudnn,fa2 --check --batch_size $2 --seqlen_q $3 --seqlen_k $4 --num_head 32 \
          --num_head_kv 32,8 --head_dim $1 --fa-bench $N --csv $C > /dev/null 2>&1 || echo "peers rc=$? $*"; }
ours() { $N --kernel mma_decode,wgmma_overlap,wgmma_persistent --batch_size $2 --seqlen_q $3 --seqlen_k $4 --num_head 32 \
          --num_head_kv 32,8 --head_dim $1 --csv $C > /dev/null 2>&1 || echo "fa-bench rc=$? $*"
         if (( $1 == 256 )); then $N --kernel mma_decode --m_block_size 16 --n_block_size 64 --num_threads 128 \
          --batch_size $2 --seqlen_q $3 --seqlen_k $4 --num_head 32 --num_head_kv 32,8 --head_dim 256 --csv $C > /dev/null 2>&1 \
          || echo "fa-bench 4warp rc=$? $*"; fi; }
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
    k = r['kernel'] + ('' if r['kernel'] != 'mma_decode' else '@' + r['n_block_size'])
    g[(r['head_dim'], r['batch_size'], r['seqlen_q'], r['seqlen_k'], r['num_head_kv'])][k].append(
        (float(r['bandwidth_gbs'] or 0), r['num_splits'], r['check']))
for key, d in g.items():
    print('d' + key[0], 'x'.join(key[1:4]), 'kv' + key[4], '  '.join(f"{k}:{st.mean(b for b, _, _ in v):.0f}/s{v[0][1]}/{v[0][2]}" for k, v in d.items()))
PY
