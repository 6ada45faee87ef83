#!/usr/bin/env bash
# Session 5 call 2: CuTe DSL example (seed 001) and fa-bench's mma.sync rungs in one call (#13).
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b /tmp/site
tar -xJf .deps/bin.tar.xz -C /tmp/b; B=/tmp/b
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s)
cat /tmp/stash/cute_site.part.aa .whl/p2/cute_site.part.ab | tar -xJ -C /tmp/site || echo "CuTe unpack failed"
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
echo "unpacked t=$(( $(date +%s)-t0 ))"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $L/smi.txt
$B/fa-bench --kernel wgmma_overlap --iterations 300 --skip_ref_check > /dev/null 2>&1
A="--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
D="--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64"
C="--batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
round() {  # $1 = csv tag
  for s in "$D" "$A" "$C"; do
    timeout 60 $B/fa-bench $s --kernel mma,warp_specialized --causal 0,1 --csv $L/fb_$1.csv >> $L/fb.log 2>&1
    timeout 60 $B/fa-bench $s --kernel mma,warp_specialized --causal 0,1 --m_block_size 128 --n_block_size 64 --num_threads 128 --csv $L/fb_$1.csv >> $L/fb.log 2>&1
  done
  timeout 40 $B/fa-bench-mb3 $D --kernel mma --causal 0,1 --csv $L/fb_mb3_$1.csv >> $L/fb.log 2>&1
}
round 1; echo "round1 t=$(( $(date +%s)-t0 ))"
for s in "$D" "$A" "$C"; do
  timeout 150 python3 scripts/peers.py --fa-bench $B/fa-bench --backends cute --cute-example .whl/p2/flash_attention_v2.py \
    $s --causal 0,1 --warmup_iterations 10 --iterations 30 --csv $L/cute.csv >> $L/cute.log 2>&1
done
echo "cute t=$(( $(date +%s)-t0 ))"; tail -n 30 $L/cute.log | cut -c1-200
round 2; echo "round2 t=$(( $(date +%s)-t0 ))"
grep -E "mma|warp_spec" $L/fb.log | cut -c1-170
timeout 120 ncu -k "regex:FlashAttention|cutlass_kernel" --launch-count 1 --set full -o $L/cute_d64 \
  python3 scripts/peers.py --fa-bench $B/fa-bench --backends cute --cute-example .whl/p2/flash_attention_v2.py \
  $D --warmup_iterations 0 --iterations 1 > $L/ncu_cute.log 2>&1; echo "ncu cute rc=$? t=$(( $(date +%s)-t0 ))"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
