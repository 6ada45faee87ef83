#!/usr/bin/env bash
# Session 11 call 13: rung 8 (FP8) with rung 7's new P·V wait inside the softmax (O rescale and
# P packing after it, between the exponentials): pa = wait after 64 of 128 columns, pb = before
# them, pc = after all; base = the final binary (commit f0556c8, FP8 unchanged). Each variant's
# output checked against the reference on odd shapes; then A/B/C/D, three rounds of 5 + 30
# launches, the order rotating, on issue #11's shapes, with bf16 rungs 7 and 9 (base) per round.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/final
tar -xJf .deps/final.tar.xz -C /tmp/final
for v in pa pb pc; do mkdir -p /tmp/$v && xz -dc .deps/$v.xz > /tmp/$v/fa-bench && chmod +x /tmp/$v/fa-bench; done
cp /tmp/final/fa-bench /tmp/base-fa-bench; mkdir -p /tmp/base && mv /tmp/base-fa-bench /tmp/base/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
for v in pa pb pc; do
  /tmp/$v/fa-bench --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size 2 --num_head 3 --num_head_kv 1,3 --seqlen_q 300,1 \
    --seqlen_k 777,4097 --head_dim 128 --causal 0,1 --iterations 2 --warmup_iterations 1 --warmup_time 0 --csv $L/check_$v.csv > $L/check_$v.log 2>&1
  echo "check $v rc=$? rows=$(($(wc -l < $L/check_$v.csv) - 1)) failed=$(grep -c FAIL $L/check_$v.log)"
done
/tmp/base/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1
SB="--iterations 30 --warmup_iterations 5 --warmup_time 0 --skip_ref_check"
run4() {
  case $round in 1) order="base pa pb pc";; 2) order="pa pb pc base";; 3) order="pc base pa pb";; esac
  for b in $order; do /tmp/$b/fa-bench $SB --kernel wgmma_fp8 --dtype Float8E4M3FN --csv $L/fp8_$b.csv "$@" >> $L/ab.log 2>&1; done
  /tmp/base/fa-bench $SB --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --csv $L/bf16.csv "$@" >> $L/ab.log 2>&1
}
for round in 1 2 3; do
  run4 --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --num_head 16 --head_dim 128 --causal 0,1
  run4 --batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --num_head 16 --head_dim 128 --causal 0,1
done
echo "ab done"
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
