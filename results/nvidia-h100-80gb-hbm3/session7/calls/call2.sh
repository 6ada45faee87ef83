#!/usr/bin/env bash
# Session 7 call 2: stash the CuTe DSL site's first half for call 3; GPU tests + compute-sanitizer
# of the combine kernel rewritten to keep its loads in flight (and launched as a programmatic
# dependent); decode A/B old (session 6) vs new binary with cuDNN/FA2; ncu durations of both kernels.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/new /tmp/old /tmp/stash
cp .whl/p1/cute_site.part.aa /tmp/stash/ &
tar -xJf .deps/bin.tar.xz -C /tmp/new; tar -xJf .deps/bin_old.tar.xz -C /tmp/old
N=/tmp/new/fa-bench; O=/tmp/old/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
timeout 200 /tmp/new/fa_gpu_tests "[decode]" > $L/gpu_tests_decode.log 2>&1; echo "decode tests rc=$?"; tail -n 2 $L/gpu_tests_decode.log
DTYPES="BFloat16 Float16" FA_ARGS="--num_splits 7" timeout 100 scripts/sanitize.sh $N mma,wgmma_ws > $L/sanitize_splits.log 2>&1; echo "sanitize splits rc=$?"
K="--batch_size 1 --num_head 32 --seqlen_q 1 --seqlen_k 131072 --head_dim 128 --num_head_kv 8,32 --kernel wgmma_ws,wgmma_overlap"
$N $K --iterations 300 --skip_ref_check > /dev/null 2>&1
for r in 1 2; do
  timeout 60 $O $K --csv $L/dec_old.csv >> $L/dec.log 2>&1
  timeout 60 $N $K --csv $L/dec_new.csv >> $L/dec.log 2>&1
done
timeout 150 python3 scripts/peers.py --fa-bench $N --backends fa2,cudnn --batch_size 1 --num_head 32 --seqlen_q 1 \
  --seqlen_k 131072 --head_dim 128 --num_head_kv 8,32 --warmup_iterations 20 --iterations 100 --csv $L/dec_peers.csv >> $L/dec_peers.log 2>&1
for b in $N $O; do
timeout 60 ncu --nvtx --nvtx-include "regex:fa-bench@.*/" --metrics gpu__time_duration.sum --csv \
  $b --batch_size 1 --num_head 32 --seqlen_q 1 --seqlen_k 131072 --head_dim 128 --num_head_kv 8 --kernel wgmma_ws \
  --warmup_iterations 1 --iterations 3 --skip_ref_check > $L/ncu_dec_$(basename $(dirname $b)).csv 2>&1
done
timeout 200 /tmp/new/fa_gpu_tests "~[large]" "~[decode]" > $L/gpu_tests_rest.log 2>&1; echo "other tests rc=$?"; tail -n 2 $L/gpu_tests_rest.log
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
wait
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
