#!/usr/bin/env bash
# Session 6 call 4: rung 3 K/V issue schedules, 2 rounds. A = main; I2 = one barrier, K after Q.K^T, V after
# the softmax (= call 3's E); I3 = two barriers (K(i) waited before Q.K^T, V(i) before P.V), K(i+1)/V(i+1)
# issued in bulk after each; I4 = as I3 with the sweeps spread over the k-steps of the following GEMM.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b
tar -xJf .deps/bin.tar.xz -C /tmp/b; B=/tmp/b
$B/fa-bench-A --kernel mma --iterations 300 --skip_ref_check > /dev/null 2>&1
A="--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
C="--batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
D="--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64"
for r in 1 2; do
  for s in "$D" "$A" "$C"; do
    for v in A I2 I3 I4; do
      timeout 60 $B/fa-bench-$v $s --kernel mma --m_block_size 128 --n_block_size 64 --num_threads 128 --causal 0,1 --csv $L/fb_$v.csv >> $L/fb.log 2>&1
    done
  done
done
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
