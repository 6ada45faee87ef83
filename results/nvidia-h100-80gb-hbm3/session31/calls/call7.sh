#!/usr/bin/env bash
# Session 31 call 7: where the head_dim-64 key loop stands per clock: ncu at its base clock
# (--clock-control base, the default), cycles and warp instructions of one launch, rungs 7 and 9 at
# 2x32x8192x64 (causal and not) and 1x32x16384x64, base (416ae70) against fin3 (the committed build).
# Session 11 measured FA4 at 2x32x8192x64 the same way: 3.30 M cycles, 889 M instructions (README).
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s31b.tar.xz -C /tmp base; tar -xJf .exp/s31c.tar.xz -C /tmp
for b in base fin3; do
  for k in wgmma_overlap wgmma_persistent; do
    for s in "2 8192 0" "2 8192 1" "1 16384 0"; do
      set -- $s
      timeout 60 ncu --nvtx --nvtx-include "regex:fa-bench@.*/" --metrics smsp__inst_executed.sum,sm__cycles_elapsed.max,gpu__time_duration.sum \
        --csv /tmp/$b/fa-bench --profile --kernel $k --dtype BFloat16 --batch_size $1 --num_head 32 --seqlen_q $2 --seqlen_k $2 \
        --head_dim 64 --causal $3 > $L/ncu_${b}_${k}_$1x$2_c$3.csv 2> $L/ncu_${b}_${k}_$1x$2_c$3.err
      echo "$b $k $1x$2 c$3 rc=$? $(grep -E 'smsp__inst_executed.sum|sm__cycles_elapsed.max' $L/ncu_${b}_${k}_$1x$2_c$3.csv | awk -F'","' '{printf "%s=%s ", $(NF-2), $NF}') at $SECONDS s"
    done
  done
done
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
