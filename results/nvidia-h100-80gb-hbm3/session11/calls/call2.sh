#!/usr/bin/env bash
# Session 11 call 2 (first of a pair: stashes the CuTe DSL site's first half for call 3's FA4;
# binary of commit 23b4101): Nsight Compute at the base clock on rungs 7 and 9, 2x16x8192x128 bf16,
# causal and not (session 10 call 7's FA4 and rung 9 numbers are the reference); compute-sanitizer
# on rungs 5 and 6 (bf16) and rungs 7 and 9 (fp16) at head_dim 128 (call 1 ran bf16 on 7, 9);
# issue #9's GQA prefill against cuDNN, three interleaved rounds of 5 + 30 launches, then one
# round with both on their default rule.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/new /tmp/stash
cp .whl/p1/cute_site.part.aa /tmp/stash/ &
tar -xJf .deps/bin.tar.xz -C /tmp/new; N=/tmp/new/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
M=$(cat results/nvidia-h100-80gb-hbm3/session10/calls/ncu_metrics.txt)
for c in 0 1; do
  timeout 120 ncu --metrics "$M" --print-metric-instances values --clock-control base --nvtx \
    --nvtx-include "regex:fa-bench@.*/" $N --profile --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 \
    --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --num_head 16 --head_dim 128 --causal $c > $L/ncu_fabench_c$c.txt 2>&1
  echo "ncu fa-bench c$c rc=$?"
done
HEAD_DIMS=128 DTYPES=BFloat16 timeout 60 scripts/sanitize.sh $N wgmma_tma,wgmma_ws > $L/sanitize.log 2>&1
HEAD_DIMS=128 DTYPES=Float16 timeout 60 scripts/sanitize.sh $N wgmma_overlap,wgmma_persistent >> $L/sanitize.log 2>&1
echo "sanitize clean=$(grep -c clean $L/sanitize.log) of $(wc -l < $L/sanitize.log)"; grep -v -E "clean|n/a" $L/sanitize.log | head -5
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1
GQA="--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --num_head 32 --num_head_kv 8,32 --head_dim 128 --causal 0,1"
SB="--iterations 30 --warmup_iterations 5 --warmup_time 0"
for round in 1 2 3; do
  $N --dtype BFloat16 --kernel wgmma_overlap,wgmma_persistent --skip_ref_check $SB --csv $L/gqa_burst.csv $GQA >> $L/fa.log 2>&1
  timeout 100 python3 scripts/peers.py --backends cudnn --fa-bench $N --csv $L/gqa_burst.csv $GQA $SB >> $L/peers.log 2>&1
done
$N --dtype BFloat16 --kernel wgmma_overlap,wgmma_persistent --skip_ref_check --csv $L/gqa_default.csv $GQA >> $L/fa.log 2>&1
timeout 100 python3 scripts/peers.py --backends cudnn --fa-bench $N --csv $L/gqa_default.csv $GQA >> $L/peers.log 2>&1
echo "gqa rc=$?"
wait
ls -la /tmp/stash
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
