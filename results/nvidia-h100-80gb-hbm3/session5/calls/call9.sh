#!/usr/bin/env bash
# Session 5 call 9: ncu of the final mma rung at the CuTe example's d64 shape (compare with call 2's CuTe profile).
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b
tar -xJf .deps/bin.tar.xz -C /tmp/b; B=/tmp/b
export PATH=/usr/local/cuda/bin:$PATH
D="--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64"
timeout 100 ncu --nvtx --nvtx-include "regex:fa-bench@.*/" --set full -o $L/mma_d64_final $B/fa-bench $D --kernel mma --profile > $L/ncu.log 2>&1
ncu --import $L/mma_d64_final.ncu-rep --page raw --csv > $L/mma_d64_final.raw.csv 2>&1
ncu --import $L/mma_d64_final.ncu-rep --page source --csv --print-source sass > $L/mma_d64_final.sass.csv 2>&1
rm -f $L/mma_d64_final.ncu-rep
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
