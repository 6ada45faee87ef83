#!/usr/bin/env bash
# Session 6 call 2: seed 001's CuTe DSL example (128x64x128) and rung 3 variants A/B/C in one call, two
# interleaved rounds, on the #13 shapes. A = main at 2b62fa2; B = running cp.async source pointers;
# C = B + the branch-free rescale factor at d128 too.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b /tmp/site
tar -xJf .deps/bin.tar.xz -C /tmp/b; B=/tmp/b
export PATH=/usr/local/cuda/bin:$PATH
cat /tmp/stash/cute_site.part.aa .whl/p2/cute_site.part.ab | tar -xJ -C /tmp/site || echo "CuTe unpack failed"
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
$B/fa-bench-A --kernel mma --iterations 300 --skip_ref_check > /dev/null 2>&1
A="--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
D="--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64"
C="--batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
fb() {
  for s in "$D" "$A" "$C"; do
    for v in A B C; do
      timeout 60 $B/fa-bench-$v $s --kernel mma --m_block_size 128 --n_block_size 64 --num_threads 128 --causal 0,1 --csv $L/fb_$v.csv >> $L/fb.log 2>&1
    done
  done
}
cute() {
  for s in "$D" "$A" "$C"; do
    timeout 150 python3 scripts/peers.py --fa-bench $B/fa-bench-A --backends cute --cute-example .whl/p2/flash_attention_v2.py \
      $s --causal 0,1 --warmup_iterations 20 --iterations 50 --csv $L/cute.csv >> $L/cute.log 2>&1
  done
}
fb; cute; fb; cute
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
