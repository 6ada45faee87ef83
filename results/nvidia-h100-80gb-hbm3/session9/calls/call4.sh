#!/usr/bin/env bash
# Session 9 call 4: rung 9 without the decode tile (call 3: it measured slower than rung 9's
# 128-row tile on many-tile decode shapes) plus a non-default head_dim-64 128x128 tile on rung 9
# (short causal, issue #10). GPU tests; compute-sanitizer on the new tile; A/B of rung 9's d64
# tiles on the FA2 grid's d64 points and GQA prefill, with cuDNN, short bursts for everyone
# (5 + 30 launches, as the peers).
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/new
tar -xJf .deps/bin.tar.xz -C /tmp/new; N=/tmp/new/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 200 /tmp/new/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -2
T64="--m_block_size 128 --n_block_size 128 --num_threads 256"
DTYPES=BFloat16 HEAD_DIMS=64 FA_ARGS="$T64" timeout 120 scripts/sanitize.sh $N wgmma_persistent > $L/sanitize_d64short.log 2>&1
echo "sanitize rc=$?"; cat $L/sanitize_d64short.log | cut -c1-90
for tool in memcheck racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 99 $N --kernel wgmma_persistent --dtype BFloat16 --head_dim 64 \
    --batch_size 40 --num_head 4 --seqlen_q 300 --seqlen_k 300 --causal 0,1 $T64 --warmup_iterations 0 --warmup_time 0 \
    --gpu_warmup_time 0 --iterations 1 > /tmp/san.log 2>&1
  echo "$tool multi-tile rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/san.log | tail -1)"
done | tee $L/sanitize_multitile.log
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1
SB="--iterations 30 --warmup_iterations 5 --warmup_time 0"
C=$L/d64.csv
for round in 1 2; do
  for S in 512 1024 2048 4096 8192 16384; do
    B=$((16384 / S))
    A="--dtype BFloat16 --batch_size $B --seqlen_q $S --seqlen_k $S --num_head 32 --head_dim 64 --causal 0,1"
    $N $A --kernel wgmma_persistent $SB --csv $C >> $L/d64.log 2>&1
    $N $A --kernel wgmma_persistent $T64 $SB --csv $C >> $L/d64.log 2>&1
    python3 scripts/peers.py --backends cudnn --fa-bench $N --csv $C --batch_size $B --seqlen_q $S --seqlen_k $S \
      --num_head 32 --head_dim 64 --causal 0,1 --iterations 30 --warmup_iterations 5 >> $L/peers.log 2>&1
  done
done
echo "d64 rc=$?"
for round in 1 2; do
  $N --dtype BFloat16 --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --num_head 32 --num_head_kv 32,8 --head_dim 128 \
     --causal 0,1 --kernel wgmma_overlap,wgmma_persistent $SB --csv $L/gqa.csv >> $L/gqa.log 2>&1
  python3 scripts/peers.py --backends cudnn --fa-bench $N --csv $L/gqa.csv --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 \
     --num_head 32 --num_head_kv 32,8 --head_dim 128 --causal 0,1 --iterations 30 --warmup_iterations 5 >> $L/gqa.log 2>&1
done
echo "gqa rc=$?"
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
