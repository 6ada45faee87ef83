#!/usr/bin/env bash
# Session 9 call 7: FA3's 176-key head_dim-128 tile (WgmmaWsD128Long, 2 stages) as a non-default
# row of rungs 6-7 and 9 (bf16). GPU tests; compute-sanitizer on it; A/B 128 vs 176 keys on the
# FA2 grid's head_dim-128 points and GQA prefill, cuDNN in the same call, 5 + 30 launches for
# everyone.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/new
tar -xJf .deps/bin.tar.xz -C /tmp/new; N=/tmp/new/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 170 /tmp/new/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -2
T176="--m_block_size 128 --n_block_size 176 --num_threads 256"
DTYPES=BFloat16 HEAD_DIMS=128 FA_ARGS="$T176" timeout 100 scripts/sanitize.sh $N wgmma_overlap,wgmma_persistent > $L/sanitize_176.log 2>&1
echo "sanitize rc=$? clean=$(grep -c clean $L/sanitize_176.log)"
for tool in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 99 $N --kernel wgmma_persistent --dtype BFloat16 --head_dim 128 \
    --batch_size 40 --num_head 4 --seqlen_q 300 --seqlen_k 500 --causal 0,1 $T176 --warmup_iterations 0 --warmup_time 0 \
    --gpu_warmup_time 0 --iterations 1 > /tmp/san.log 2>&1
  echo "$tool rung 9 multi-tile rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/san.log | tail -1)"
done | tee $L/sanitize_176_multitile.log
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1
SB="--iterations 30 --warmup_iterations 5 --warmup_time 0"
C=$L/d128.csv
ab() {  # fa-bench args: rungs 7 and 9 at 128 and 176 keys, then cuDNN
  $N --dtype BFloat16 --kernel wgmma_overlap,wgmma_persistent $SB --csv $C "$@" >> $L/d128.log 2>&1
  $N --dtype BFloat16 --kernel wgmma_overlap,wgmma_persistent $T176 $SB --csv $C "$@" >> $L/d128.log 2>&1
}
for S in 2048 4096 8192 16384 512 1024; do
  B=$((16384 / S))
  ab --batch_size $B --seqlen_q $S --seqlen_k $S --num_head 16 --head_dim 128 --causal 0,1
  timeout 60 python3 scripts/peers.py --backends cudnn --fa-bench $N --csv $C --batch_size $B --seqlen_q $S --seqlen_k $S \
     --num_head 16 --head_dim 128 --causal 0,1 --iterations 30 --warmup_iterations 5 >> $L/peers.log 2>&1
done
echo "grid rc=$?"
for round in 1 2; do
  ab --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --num_head 32 --num_head_kv 8 --head_dim 128 --causal 0,1
  timeout 60 python3 scripts/peers.py --backends cudnn --fa-bench $N --csv $C --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 \
     --num_head 32 --num_head_kv 8 --head_dim 128 --causal 0,1 --iterations 30 --warmup_iterations 5 >> $L/peers.log 2>&1
done
echo "gqa rc=$?"
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
