#!/usr/bin/env bash
# Session 7 call 4: stash the CuTe site's first half for call 5. GPU tests + compute-sanitizer of
# the build with Q in registers at d64 (binq) and the combine with one L2 round trip; A/B of rung 3
# at d64, Q from shared memory each tile (base) vs Q in registers (binq); decode rows + cuDNN/FA2.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/base /tmp/q /tmp/stash
cp .whl/p1/cute_site.part.aa /tmp/stash/ &
tar -xJf .deps/bin.tar.xz -C /tmp/base; tar -xJf .deps/binq.tar.xz -C /tmp/q
B=/tmp/base/fa-bench; Q=/tmp/q/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
timeout 240 /tmp/q/fa_gpu_tests "~[large]" > $L/gpu_tests_q.log 2>&1; echo "gpu tests (binq) rc=$?"; tail -n 2 $L/gpu_tests_q.log
DTYPES="BFloat16 Float16" timeout 60 scripts/sanitize.sh $Q mma > $L/sanitize_mma_q.log 2>&1; echo "sanitize mma (binq) rc=$?"
DTYPES="BFloat16" FA_ARGS="--num_splits 7" timeout 60 scripts/sanitize.sh $Q mma,wgmma_overlap > $L/sanitize_splits.log 2>&1; echo "sanitize splits rc=$?"
$B --kernel mma --iterations 300 --skip_ref_check > /dev/null 2>&1
D="--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64 --causal 0,1 --kernel mma"
for r in 1 2 3; do
  timeout 60 $B $D --csv $L/d64_base.csv >> $L/d64.log 2>&1
  timeout 60 $Q $D --csv $L/d64_q.csv >> $L/d64.log 2>&1
done
K="--num_head 32 --seqlen_q 1 --head_dim 128 --num_head_kv 8,32 --kernel wgmma_ws,wgmma_overlap"
timeout 60 $Q $K --batch_size 1 --seqlen_k 131072 --csv $L/dec.csv >> $L/dec.log 2>&1
timeout 60 $Q $K --batch_size 8 --seqlen_k 32768 --csv $L/dec.csv >> $L/dec.log 2>&1
timeout 150 python3 scripts/peers.py --fa-bench $Q --backends fa2,cudnn --batch_size 1 --num_head 32 --seqlen_q 1 \
  --seqlen_k 131072 --head_dim 128 --num_head_kv 8,32 --warmup_iterations 20 --iterations 100 --csv $L/dec_peers.csv >> $L/dec_peers.log 2>&1
timeout 60 ncu --nvtx --nvtx-include "regex:fa-bench@.*/" --metrics gpu__time_duration.sum --csv \
  $Q --batch_size 1 --num_head 32 --seqlen_q 1 --seqlen_k 131072 --head_dim 128 --num_head_kv 8 --kernel wgmma_overlap \
  --warmup_iterations 1 --iterations 3 --skip_ref_check > $L/ncu_dec_q.csv 2>&1
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
wait
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
