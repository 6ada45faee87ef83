#!/usr/bin/env bash
# Session 39 call E (H200, the machine of calls C-D still warm): rung 10 at 64x32x1x8192x128 with 32 and 8 K/V
# heads over explicit split counts, two rounds (call D's own try lost its rows: --num_splits refuses a
# value listed twice). Build .exp/s39a.tar.xz.
set -uo pipefail
[[ -x /tmp/s39a/fa-bench ]] || tar -xJf .exp/s39a.tar.xz -C /; N=/tmp/s39a/fa-bench
$N --kernel wgmma_ws --iterations 300 --skip_ref_check >/dev/null 2>&1
for r in 1 2; do for kv in 32 8; do
  $N --kernel mma_decode --batch_size 64 --seqlen_q 1 --seqlen_k 8192 --num_head 32 --num_head_kv $kv --head_dim 128 \
     --num_splits 1,2,3,4,6,0 --csv $OUT/splits_mha.csv > /dev/null 2>&1 || echo rc=$?
done; done
