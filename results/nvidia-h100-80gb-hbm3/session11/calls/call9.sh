#!/usr/bin/env bash
# Session 11 call 9: FA4's order of the softmax and the P·V wait (its sm90 SASS, call 8): the O
# rescale and the packing of P done after wait_group 0 in the same basic block as the softmax,
# so that ptxas places them between the exponentials. o1: the wait after the whole softmax (ptxas
# hoists it above the row max); o2: the V wait and wait_group 0 after the first half of the
# exponentials. GPU tests on both; A/B/C against commit 23b4101 (base) on rungs 7 and 9, three
# rounds of 5 + 30 launches, the order of the binaries rotating between rounds.
set -uo pipefail
L=$OUT/logs; mkdir -p $L
for b in base o1 o2; do mkdir -p /tmp/$b && tar -xJf .deps/$b.tar.xz -C /tmp/$b; done
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
for b in o1 o2; do
  ( time timeout 150 /tmp/$b/fa_gpu_tests "~[large]" ) > $L/gpu_tests_$b.log 2>&1; echo "gpu tests $b rc=$?"; grep -E "passed|failed" $L/gpu_tests_$b.log | tail -2
done
/tmp/base/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1
SB="--iterations 30 --warmup_iterations 5 --warmup_time 0 --skip_ref_check --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16"
abc() {
  case $round in 1) order="base o1 o2";; 2) order="o1 o2 base";; 3) order="o2 base o1";; esac
  for b in $order; do /tmp/$b/fa-bench $SB --csv $L/ab_$b.csv "$@" >> $L/ab.log 2>&1; done
}
for round in 1 2 3; do
  abc --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --num_head 16 --head_dim 128 --causal 0,1
  abc --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --num_head 32 --num_head_kv 8 --head_dim 128 --causal 0,1
  abc --batch_size 8 --seqlen_q 2048 --seqlen_k 2048 --num_head 16 --head_dim 128 --causal 0,1
  abc --batch_size 32 --seqlen_q 512 --seqlen_k 512 --num_head 16 --head_dim 128 --causal 0,1
  abc --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --num_head 32 --head_dim 64 --causal 0,1
  abc --batch_size 32 --seqlen_q 512 --seqlen_k 512 --num_head 32 --head_dim 64 --causal 1
  abc --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --num_head 16 --head_dim 256 --causal 0,1
done
echo "abc done"
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
