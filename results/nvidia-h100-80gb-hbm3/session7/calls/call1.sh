#!/usr/bin/env bash
# Session 7 call 1: GPU tests + compute-sanitizer of the new tree (rung 8 refactor re-landed, d64
# mma tiles 128x96 / 128x128, split-KV combine as a programmatic dependent launch); A/B of the d64
# tiles; A/B of the decode rows, old binary (session 6) vs new, with PyTorch's cuDNN and FA2.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/new /tmp/old /tmp/stash
cp .whl/p1/cute_site.part.aa /tmp/stash/ &
tar -xJf .deps/bin.tar.xz -C /tmp/new; tar -xJf .deps/bin_old.tar.xz -C /tmp/old
N=/tmp/new/fa-bench; O=/tmp/old/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
# 1. correctness first
timeout 240 /tmp/new/fa_gpu_tests "~[large]" > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; tail -n 3 $L/gpu_tests.log
DTYPES="BFloat16 Float16" FA_ARGS="--num_splits 3" timeout 100 scripts/sanitize.sh $N mma,wgmma_ws > $L/sanitize_splits.log 2>&1; echo "sanitize splits rc=$?"
DTYPES="BFloat16" FA_ARGS="--m_block_size 128 --n_block_size 128 --num_threads 128" timeout 40 scripts/sanitize.sh $N mma > $L/sanitize_d64_128.log 2>&1; echo "sanitize d64 128x128 rc=$?"
DTYPES="BFloat16" FA_ARGS="--m_block_size 128 --n_block_size 96 --num_threads 128" timeout 40 scripts/sanitize.sh $N mma > $L/sanitize_d64_96.log 2>&1; echo "sanitize d64 128x96 rc=$?"
DTYPES="Float8E4M3FN" timeout 60 scripts/sanitize.sh $N wgmma_fp8 > $L/sanitize_fp8.log 2>&1; echo "sanitize fp8 rc=$?"
# 2. d64 tiles, 2 rounds
$N --kernel mma --iterations 300 --skip_ref_check > /dev/null 2>&1
D="--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64 --causal 0,1 --kernel mma --num_threads 128 --m_block_size 128"
for r in 1 2; do for n in 64 96 128; do
  timeout 60 $N $D --n_block_size $n --csv $L/d64_n$n.csv >> $L/d64.log 2>&1
done; done
# 3. decode, old vs new binary, 2 rounds, then the torch peers
K="--batch_size 1 --num_head 32 --seqlen_q 1 --seqlen_k 131072 --head_dim 128 --num_head_kv 8,32 --kernel wgmma_ws,wgmma_overlap,mma"
for r in 1 2; do
  timeout 60 $O $K --csv $L/dec_old.csv >> $L/dec.log 2>&1
  timeout 60 $N $K --csv $L/dec_new.csv >> $L/dec.log 2>&1
done
for s in 8 24 32; do timeout 60 $N $K --num_splits $s --csv $L/dec_new_s$s.csv >> $L/dec.log 2>&1; done
timeout 150 python3 scripts/peers.py --fa-bench $N --backends fa2,cudnn --batch_size 1 --num_head 32 --seqlen_q 1 \
  --seqlen_k 131072 --head_dim 128 --num_head_kv 8,32 --warmup_iterations 20 --iterations 100 --csv $L/dec_peers.csv >> $L/dec_peers.log 2>&1
# 4. kernel durations of the decode launch (main + combine)
timeout 60 ncu --nvtx --nvtx-include "regex:fa-bench@.*/" --metrics gpu__time_duration.sum --csv \
  $N --batch_size 1 --num_head 32 --seqlen_q 1 --seqlen_k 131072 --head_dim 128 --num_head_kv 8 --kernel wgmma_ws \
  --warmup_iterations 2 --iterations 3 --skip_ref_check > $L/ncu_dec.csv 2> $L/ncu_dec.err
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
wait
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
