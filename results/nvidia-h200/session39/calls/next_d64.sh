#!/usr/bin/env bash
# Prepared in session 39, not run (no device time left): rung 10 at head_dim 64
# (results/nvidia-h200/session39/mma_decode_d64.patch, branch decode-d64: two instances, 92
# registers, 34 KB), whose build (fa-bench and fa_gpu_tests; every other kernel's device code as
# main's) is .exp/s39e.tar.xz. A fresh machine, carry [".exp/s39e.tar.xz"], ~250 s: the GPU tests
# (every instance, the new ones included), compute-sanitizer on rung 10 at head_dim 64 (sanitize.sh's
# shapes; memcheck / racecheck / synccheck at decode shapes), then the decode anchors at head_dim 64
# (32 query heads, 32 and 8 K/V heads) on rungs 10, 7 and 9 beside cuDNN and FA2, two rounds, order
# alternating: at head_dim 64 the Hopper rungs have no 64-row decode tile (their 128- or 192-row
# tiles compute 127 empty rows a query row), so rung 10 should lead them by more than at 128.
set -uo pipefail
tar -xJf .exp/s39e.tar.xz -C /; N=/tmp/s39e/fa-bench; C=$OUT/d64.csv
nvidia-smi --query-gpu=name,driver_version,power.limit,temperature.gpu --format=csv > $OUT/smi.txt
( time timeout 170 /tmp/s39e/fa_gpu_tests "~[large]" ) > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(grep -E 'assertions|FAILED' $OUT/gpu_tests.log | tail -2 | tr '\n' ' ')"
DTYPES="BFloat16 Float16" HEAD_DIMS="64" timeout 80 scripts/sanitize.sh $N mma_decode > $OUT/sanitize.log 2>&1
echo "sanitize rc=$? $(grep -c clean $OUT/sanitize.log) clean"
for tool in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 99 $N --kernel mma_decode --batch_size 1 --seqlen_q 1,5 \
      --seqlen_k 1031 --num_head 4 --num_head_kv 4,2 --num_splits 1,3,0 --head_dim 64 --causal 0,1 \
      --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $OUT/decode_$tool.log 2>&1
  echo "decode $tool rc=$? $(grep -c PASS $OUT/decode_$tool.log) PASS rows"
done
$N --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
peers() { python3 scripts/peers.py --backends cudnn,fa2 --check --batch_size $1 --seqlen_q $2 --seqlen_k $3 --num_head 32 \
          --num_head_kv 32,8 --head_dim 64 --fa-bench $N --csv $C > /dev/null 2>&1 || echo "peers rc=$? $*"; }
ours() { $N --kernel mma_decode,wgmma_overlap,wgmma_persistent --batch_size $1 --seqlen_q $2 --seqlen_k $3 --num_head 32 \
          --num_head_kv 32,8 --head_dim 64 --csv $C > /dev/null 2>&1 || echo "fa-bench rc=$? $*"; }
for round in 1 2; do
  for s in "64 1 8192" "8 1 32768" "1 1 131072" "16 16 8192"; do
    if (( round == 1 )); then ours $s; peers $s; else peers $s; ours $s; fi
  done
done
echo "done at $SECONDS s"
python3 - "$C" <<'PY'
import csv, sys, statistics as st
from collections import defaultdict
g = defaultdict(lambda: defaultdict(list))
for r in csv.DictReader(open(sys.argv[1])):
    g[(r['batch_size'], r['seqlen_q'], r['seqlen_k'], r['num_head_kv'])][r['kernel']].append(
        (float(r['bandwidth_gbs'] or 0), r['num_splits'], r['check']))
for key, d in g.items():
    print('x'.join(key[:3]), 'kv' + key[3], '  '.join(f"{k}:{st.mean(b for b, _, _ in v):.0f}/s{v[0][1]}/{v[0][2]}" for k, v in d.items()))
PY
