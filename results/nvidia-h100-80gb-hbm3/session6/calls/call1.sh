#!/usr/bin/env bash
# Session 6 call 1: stash CuTe part 1; GPU tests of variant C; A/B/C of rung 3 (A = main, B = running
# cp.async source pointers, C = B + branch-free rescale at d128 too) on the #13 shapes.
# (The timing loop passed --no_tune_cache together with tile flags, which fa-bench refuses by design;
# only the GPU tests and the stash counted. Call 2 repeats the A/B/C with the flag dropped.)
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b /tmp/stash
cp .whl/p1/cute_site.part.aa /tmp/stash/ &
tar -xJf .deps/bin.tar.xz -C /tmp/b; B=/tmp/b
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
timeout 200 $B/fa_gpu_tests "~[large]" > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$? t=$(( $(date +%s)-t0 ))"; tail -n 3 $L/gpu_tests.log
$B/fa-bench-A --kernel mma --iterations 300 --skip_ref_check > /dev/null 2>&1
A="--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
D="--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64"
C="--batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
for r in 1 2; do
  for s in "$D" "$A" "$C"; do
    for v in A B C; do
      timeout 60 $B/fa-bench-$v $s --kernel mma --m_block_size 128 --n_block_size 64 --num_threads 128 --no_tune_cache --causal 0,1 --csv $L/fb_$v.csv >> $L/fb.log 2>&1
    done
  done
done
wait
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
