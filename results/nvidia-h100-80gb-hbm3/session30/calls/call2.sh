#!/usr/bin/env bash
# Session 30 call 2: the tail-split GPU test at 2,600 keys (call 1's 2,100 gave the 160-key tile only 14
# key tiles: no split planned, its 16 failed checks were the plan's, every output passed), the whole
# ~[large] GPU suite again, and compute-sanitizer on tail-split launches (--num_splits 1, so that 6 tiles
# are a tail of 2 key chunks each instead of split-KV's 17 splits as call 1 ran them), rungs 7 and 9 at
# head_dim 64, 128 and 256. Also stashes the new build and the third part of the peers' site for call 4.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/stash; cp .exp/s29w3/* .exp/s30b.tar.xz /tmp/stash/; tar -xJf .exp/s30b.tar.xz -C /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 200 /tmp/tail/fa_gpu_tests "~[large]" ) > $L/gpu_tests_tail.log 2>&1; echo "gpu tests rc=$? $(grep -E 'assertions|FAILED' $L/gpu_tests_tail.log | tail -2 | tr '\n' ' ') at $SECONDS s"
for tool in memcheck racecheck synccheck; do
  for k in wgmma_overlap wgmma_persistent; do
    for d in 64 128 256; do
      timeout 60 compute-sanitizer --tool $tool --error-exitcode 99 /tmp/tail/fa-bench --kernel $k --dtype BFloat16 \
        --batch_size 1 --num_head 2 --seqlen_q 300 --seqlen_k 2100 --head_dim $d --causal 0 --num_splits 1 \
        --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $L/san_${tool}_${k}_$d.log 2>&1
      echo "$tool $k d$d rc=$? $(grep -c 'tail split' $L/san_${tool}_${k}_$d.log) tail rows, $(grep -cw PASS $L/san_${tool}_${k}_$d.log) PASS, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/san_${tool}_${k}_$d.log | head -1)"
    done
  done
done
echo "total $SECONDS s"; ls /tmp/stash
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
