#!/usr/bin/env bash
# Session 7 call 5 (right after call 4): seed 001's CuTe DSL example (128x64x128) against rung 3 as
# committed (base) and with Q in registers at d64 (binq), the #13 shapes, two interleaved rounds.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/base /tmp/q /tmp/site
tar -xJf .deps/bin.tar.xz -C /tmp/base; tar -xJf .deps/binq.tar.xz -C /tmp/q
B=/tmp/base/fa-bench; Q=/tmp/q/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
cat /tmp/stash/cute_site.part.aa .whl/p2/cute_site.part.ab | tar -xJ -C /tmp/site || echo "CuTe unpack failed"
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$B --kernel mma --iterations 300 --skip_ref_check > /dev/null 2>&1
A="--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
D="--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64"
C="--batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
fb() {
  for s in "$D" "$A" "$C"; do
    timeout 60 $B $s --kernel mma,warp_specialized --causal 0,1 --csv $L/fabench_base.csv >> $L/fabench.log 2>&1
  done
  timeout 60 $Q $D --kernel mma --causal 0,1 --csv $L/fabench_q.csv >> $L/fabench.log 2>&1
}
cute() {
  for s in "$D" "$A" "$C"; do
    timeout 150 python3 scripts/peers.py --fa-bench $B --backends cute --cute-example .whl/p2/flash_attention_v2.py \
      $s --causal 0,1 --warmup_iterations 20 --iterations 50 --csv $L/cute.csv >> $L/cute.log 2>&1
  done
}
fb; cute; fb; cute
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
