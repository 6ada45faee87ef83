#!/usr/bin/env bash
# Session 10 call 1: rung 9 with O stored straight from registers, Q released after the last S of
# a tile, head_dim 128 at 3 stages (one Q buffer). GPU tests; compute-sanitizer on rung 9; A/B
# against the session-9 binary (fa-bench-old) on rung 9, two rounds, 5 + 30 launches; cuDNN at
# two shapes.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/new
tar -xJf .deps/bin.tar.xz -C /tmp/new; N=/tmp/new/fa-bench
xz -dc .deps/fa-bench-old.xz > /tmp/new/fa-bench-old; chmod +x /tmp/new/fa-bench-old; O=/tmp/new/fa-bench-old
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 150 /tmp/new/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -2
DTYPES=BFloat16 timeout 150 scripts/sanitize.sh $N wgmma_persistent > $L/sanitize.log 2>&1
echo "sanitize rc=$? clean=$(grep -c clean $L/sanitize.log)"; grep -v clean $L/sanitize.log | head -5
for tool in memcheck synccheck; do
  timeout 40 compute-sanitizer --tool $tool --error-exitcode 99 $N --kernel wgmma_persistent --dtype BFloat16 --head_dim 128 \
    --batch_size 40 --num_head 4 --seqlen_q 300 --seqlen_k 500 --causal 0,1 --warmup_iterations 0 --warmup_time 0 \
    --gpu_warmup_time 0 --iterations 1 > /tmp/san.log 2>&1
  echo "$tool rung 9 multi-tile rc=$? $(grep -E 'ERROR SUMMARY' /tmp/san.log | tail -1)"
done | tee $L/sanitize_multitile.log
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1
SB="--iterations 30 --warmup_iterations 5 --warmup_time 0 --skip_ref_check --dtype BFloat16"
C=$L/ab.csv
ab() {  # old then new binary, rung 9 (and rung 7 from the new binary)
  $O --kernel wgmma_persistent $SB --csv $L/ab_old.csv "$@" >> $L/ab.log 2>&1
  $N --kernel wgmma_persistent,wgmma_overlap $SB --csv $C "$@" >> $L/ab.log 2>&1
}
for round in 1 2; do
  for S in 512 2048 8192 16384; do
    ab --batch_size $((16384 / S)) --seqlen_q $S --seqlen_k $S --num_head 16 --head_dim 128 --causal 0,1
  done
  ab --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --num_head 32 --num_head_kv 8 --head_dim 128 --causal 0,1
  ab --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --num_head 32 --head_dim 64 --causal 0,1
  ab --batch_size 32 --seqlen_q 512 --seqlen_k 512 --num_head 32 --head_dim 64 --causal 0,1
  ab --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --num_head 16 --head_dim 256 --causal 0,1
  ab --batch_size 8 --seqlen_q 2048 --seqlen_k 2048 --num_head 16 --head_dim 256 --causal 0,1
done
echo "ab rc=$?"
timeout 60 python3 scripts/peers.py --backends cudnn --fa-bench $N --csv $C --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 \
   --num_head 32 --num_head_kv 8 --head_dim 128 --causal 0,1 --iterations 30 --warmup_iterations 5 --warmup_time 0 >> $L/peers.log 2>&1
timeout 60 python3 scripts/peers.py --backends cudnn --fa-bench $N --csv $C --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 \
   --num_head 16 --head_dim 128 --causal 0,1 --iterations 30 --warmup_iterations 5 --warmup_time 0 >> $L/peers.log 2>&1
echo "peers rc=$?"
$N --kernel wgmma_persistent $SB --csv $C --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --num_head 32 --num_head_kv 8 --head_dim 128 --causal 0,1 >> $L/ab.log 2>&1
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
