#!/usr/bin/env bash
# Session 9 call 5 (the final binary: DefaultRule picks the decode tile on rungs 6-7 and the
# head_dim-64 128-row tile on rung 9 for short causal problems, fp16 row of the latter added):
# stash the CuTe DSL site's first half for call 6 (FA4); GPU tests; compute-sanitizer on the fp16
# head_dim-64 128-row tile of rung 9 (the bf16 row: call 4).
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/new /tmp/stash
cp .whl/p1/cute_site.part.aa /tmp/stash/ &
tar -xJf .deps/bin.tar.xz -C /tmp/new; N=/tmp/new/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
( time timeout 200 /tmp/new/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -2
for tool in memcheck racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 99 $N --kernel wgmma_persistent --dtype Float16 --head_dim 64 \
    --batch_size 40 --num_head 4 --seqlen_q 300 --seqlen_k 777 --causal 0,1 --warmup_iterations 0 --warmup_time 0 \
    --gpu_warmup_time 0 --iterations 1 > /tmp/san.log 2>&1
  echo "$tool fp16 d64 (causal: 128-row tile) rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/san.log | tail -1)"
done | tee $L/sanitize_fp16_d64.log
$N --kernel wgmma_persistent --head_dim 64 --seqlen_q 512 --seqlen_k 512 --causal 0,1 --dtype BFloat16,Float16 \
   --batch_size 32 --num_head 32 > $L/default_tiles.log 2>&1; cat $L/default_tiles.log | cut -c1-120 | tail -5
wait
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
