#!/usr/bin/env bash
# Session 39 call B (H200): rung 10 (mma_decode, build .exp/s38d.tar.xz) at the decode anchors over
# explicit split counts, beside cuDNN on the same problems, to see whether --num_splits 0's choice
# (fill 80 % of a wave of 3 CTAs an SM, else 1) leaves read rate behind: 64x32x1x8192 GQA-8 is 512
# CTAs on 396 slots (1.29 waves) with one split; 1x32x1xS GQA-8 takes 32-49 splits and lost to
# rung 7 at S <= 32k in call A.
set -uo pipefail
tar -xJf .exp/s38d.tar.xz -C /; N=/tmp/s38d/fa-bench; C=$OUT/splits.csv
$N --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
run() {  # B Sk Hkv splits
  $N --kernel mma_decode --batch_size $1 --seqlen_q 1 --seqlen_k $2 --num_head 32 --num_head_kv $3 --head_dim 128 \
     --num_splits $4 --csv $C > /dev/null 2>&1 || echo "rc=$? $*"
  python3 scripts/peers.py --backends cudnn --batch_size $1 --seqlen_q 1 --seqlen_k $2 --num_head 32 --num_head_kv $3 \
     --head_dim 128 --fa-bench $N --csv $C > /dev/null 2>&1 || echo "peer rc=$? $*"
}
run 64 8192 32 1,2,3,0
run 64 8192 8 1,2,3,4,0
run 8 32768 32 1,2,3,4,6,0
run 8 32768 8 2,4,6,8,12,0
run 1 131072 32 8,12,16,24,32,0
run 1 131072 8 12,16,24,32,49,64,0
run 1 8192 8 4,8,16,24,43,0
run 1 32768 8 8,16,24,32,47,0
echo "done at $SECONDS s"
python3 - "$C" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(f"{r['kernel'][:11]:11} {r['batch_size']:>3}x{r['seqlen_k']:>6} kv{r['num_head_kv']:>2} sp{r['num_splits']:>3} "
          f"{float(r['bandwidth_gbs']):7.0f} GB/s {float(r['sm_clock_mean_mhz'] or 0):5.0f} MHz {r['check']}")
PY
