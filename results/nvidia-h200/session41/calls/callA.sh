#!/usr/bin/env bash
# Session 41 call A: session 40's next_combine.sh as written, on a rebuild of its patch (.exp/s41g.tar.xz =
# main 4837347 + combine_groups.patch, both commits), plus a forced split-count scan at head_dim 64 with 8 K/V heads.
# Session 40's header follows. Prepared in session 40, not run (device time spent): the split-KV combine with lane groups and 32
# loads in flight, and the GPU decode matrix at head_dim 256 and 70 splits (branch combine-groups,
# results/nvidia-h200/session40/combine_groups.patch, two commits; build
# .exp/s40g.tar.xz, against main's s40e). Why: at head_dim 64 with 8 K/V heads along B = 1 rung 10 is
# 0.83-0.96x cuDNN (call F); those launches split 8 CTAs up to 64 ways, and the combine read 16
# splits per round trip to L2 with half its lanes idle at head_dim 64 (a row is 16 float4), so 64
# splits took four dependent round trips. Now a round covers 32 splits a lane group, two groups at
# head_dim 64: one round. Builds (.exp/ does not outlive a checkout: rebuild them): s40e = main (its device
# code as at 0a2de78), s40g = that plus the patch (git apply), each with -DCMAKE_CUDA_ARCHITECTURES=90, fa-bench and
# tests/fa_gpu_tests tarred as tmp/<name>/. A fresh machine, carry [".exp/s40e.tar.xz", ".exp/s40g.tar.xz"], ~300 s:
# GPU tests of s40g, memcheck / racecheck on split decode shapes at head_dim 64, 128, 256 (the
# combine's three lane layouts), then scripts/ab.py, s40e against s40g, rung 10 along B = 1 at head_dim 64 and
# 128 with 8 and 32 K/V heads, three rounds, order rotating; then cuDNN once on the same problems.
set -uo pipefail
for b in s40e s41g; do tar -xJf .exp/$b.tar.xz -C /; done
N=/tmp/s41g/fa-bench
( time timeout 200 /tmp/s41g/fa_gpu_tests "~[large]" ) > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(grep -E 'assertions|FAILED' $OUT/gpu_tests.log | tail -2 | tr '\n' ' ') at $SECONDS s"
for tool in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 99 $N --kernel mma_decode --batch_size 1 --seqlen_q 1 \
      --seqlen_k 2055 --num_head 8 --num_head_kv 8,2 --num_splits 3,33,0 --head_dim 64,128,256 --causal 0 \
      --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $OUT/combine_$tool.log 2>&1
  echo "combine $tool rc=$? $(grep -c PASS $OUT/combine_$tool.log) PASS rows at $SECONDS s"
done
$N --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
probs=()
for s in 1024 4096 16384 65536 131072; do
  probs+=(--problem "--batch_size 1 --seqlen_q 1 --seqlen_k $s --num_head 32 --num_head_kv 8,32 --head_dim 64,128")
done
timeout 330 python3 scripts/ab.py --build base=/tmp/s40e/fa-bench --build groups=$N "${probs[@]}" \
    --flags "--kernel mma_decode" --rounds 3 --check-rounds 1 --deadline 300 --out $OUT/ab > $OUT/ab.txt 2>&1
echo "ab rc=$? at $SECONDS s"; tail -n 30 $OUT/ab.txt
timeout 60 python3 scripts/peers.py --backends cudnn --batch_size 1 --seqlen_q 1 --seqlen_k 1024,4096,16384,65536,131072 \
    --num_head 32 --num_head_kv 8,32 --head_dim 64,128 --fa-bench $N --csv $OUT/cudnn.csv > /dev/null 2>&1; echo "cudnn rc=$?"
# The speculative-GQA point (16x32x16x8192x128, 8 K/V heads: 64 packed rows a K/V head) where rung
# 7's 64-row tile reads 0.90x FA4 (session 39 call D): 128 CTAs on 132 SMs, left unsplit by the
# balance rule (2-4 splits give the same waves per split); does a split or rung 9 read more?
/tmp/s40e/fa-bench --kernel wgmma_overlap,wgmma_persistent --num_splits 1,2,3,4 --batch_size 16 --seqlen_q 16 \
    --seqlen_k 8192 --num_head 32 --num_head_kv 8 --head_dim 128 --csv $OUT/spec_gqa.csv > $OUT/spec_gqa.txt 2>&1
echo "spec gqa rc=$?"; grep -E "^wgmma" $OUT/spec_gqa.txt | cut -c1-160
# Which split count the lane-grouped combine wants along B = 1 at head_dim 64, 8 K/V heads (the heuristic
# takes 16 / 64 / 64 / 64 splits at 1k / 8k / 32k / 131k keys: chunks of 1-2 key tiles at 8k).
for b in /tmp/s40e /tmp/s41g; do
  $b/fa-bench --kernel mma_decode --batch_size 1 --seqlen_q 1 --seqlen_k 4096,8192,32768,131072 --num_head 32 --num_head_kv 8 \
      --head_dim 64 --num_splits 0,8,16,32,64 --skip_ref_check --csv $OUT/splits_$(basename $b).csv > /dev/null 2>&1
  echo "splits $(basename $b) rc=$? at $SECONDS s"
done
cd $OUT && tar -czf ab.tgz ab && rm -rf ab
