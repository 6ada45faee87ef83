#!/usr/bin/env bash
# Session 42 call D: where call C's in-kernel merge lost. Nsight Compute durations (one --profile launch,
# warm caches, clocks free) of every kernel a launch runs, s42h (chunk rule, combine launch) against
# s42c (merge in the last split), rung 10 at 1x32x1xSk: 8 K/V heads at 4k keys head_dim 64 (16 splits,
# merged in s42c's kernel) and 8k (32, the combine in both); 32 K/V heads at 1k head_dim 128 (8, in
# s42c's kernel). Carry [".exp/s42c.tar.xz"].
set -uo pipefail
tar -xJf .exp/s42c.tar.xz -C /
mkdir -p $OUT/d
/tmp/s42h/fa-bench --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
for b in s42h s42c; do
  for prob in "--seqlen_k 4096,8192 --num_head_kv 8 --head_dim 64" "--seqlen_k 1024 --num_head_kv 32 --head_dim 128"; do
    timeout 60 ncu --nvtx --nvtx-include "regex:fa-bench@.*/" --cache-control none --clock-control none \
        --metrics gpu__time_duration.sum,sm__cycles_elapsed.max,smsp__inst_executed.sum --csv \
        /tmp/$b/fa-bench --profile --kernel mma_decode --batch_size 1 --seqlen_q 1 --num_head 32 $prob \
        >> $OUT/d/ncu_$b.csv 2>> $OUT/d/ncu_$b.err
    echo "$b rc=$? at $SECONDS s"
  done
done
grep -h "gpu__time_duration" $OUT/d/ncu_*.csv | cut -c1-20 | head -2
