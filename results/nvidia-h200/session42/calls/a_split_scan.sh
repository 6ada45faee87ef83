#!/usr/bin/env bash
# Session 42 call A (prepared in session 41): the data for a split rule with a minimum chunk.
# Session 41 call B found 16 splits beating the heuristic's 64 at 1x32x1x{4096,8192}x64 with 8 K/V heads
# (10.88 / 12.74 against 13.60 / 14.75 us, main's build; cuDNN 11.17 / 12.45), i.e. chunks of 4 key tiles
# against 1-2. Before a rule moves every split rung's count at short key ranges, this scans rung 10's split
# counts along B = 1 (1k-32k keys, 8 and 32 K/V heads, head_dim 64 / 128 / 256) on the landed build, two
# rounds, with cuDNN once. Build: main with -DCMAKE_CUDA_ARCHITECTURES=90, fa-bench tarred as tmp/s42/
# (.exp/s42.tar.xz). ~150 s on a fresh machine. Carry [".exp/s42.tar.xz"].
set -uo pipefail
tar -xJf .exp/s42.tar.xz -C /
N=/tmp/s42/fa-bench
mkdir -p $OUT/scan
$N --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
for round in 1 2; do
  for d in 64 128 256; do
    tile=64; [ $d = 256 ] && tile=32
    for s in 1024 2048 4096 8192 16384 32768; do
      blocks=$((s / tile)); list=0
      for n in 2 4 8 16 32 64 128; do [ $n -le $blocks ] && list="$list,$n"; done
      $N --kernel mma_decode --batch_size 1 --seqlen_q 1 --seqlen_k $s --num_head 32 --num_head_kv 8,32 --head_dim $d \
          --num_splits $list --skip_ref_check --csv $OUT/scan/scan.csv > /dev/null 2>&1 || echo "d$d s$s rc=$?"
    done
  done
  echo "round $round at $SECONDS s"
done
timeout 90 python3 scripts/peers.py --backends cudnn --batch_size 1 --seqlen_q 1 --seqlen_k 1024,2048,4096,8192,16384,32768 \
    --num_head 32 --num_head_kv 8,32 --head_dim 64,128,256 --fa-bench $N --csv $OUT/scan/cudnn.csv > /dev/null 2>&1
echo "cudnn rc=$? at $SECONDS s"
cd $OUT && tar -czf scan.tgz scan && rm -rf scan
