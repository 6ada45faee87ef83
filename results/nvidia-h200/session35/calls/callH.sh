#!/usr/bin/env bash
# Session 35 call H (a fresh H200): which of rung 7's SASS instructions take the dispatch and wait stalls that
# call G4 found (2x16x8192x128 non-causal, one launch, clocks left alone): Nsight Compute's source counters
# (warp-state samples per instruction), printed per SASS line as CSV; rung 9 beside it.
set -uo pipefail
L=$OUT/logs; mkdir -p $L
tar -xJf .exp/s35b.tar.xz -C /tmp; N=/tmp/s35/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
ncu --help | grep -A3 -- "--print-source\|--page " > $L/ncu_help.txt 2>&1
for k in wgmma_overlap wgmma_persistent; do
  timeout 150 ncu --section SourceCounters --section WarpStateStats --clock-control none --nvtx \
    --nvtx-include "regex:fa-bench@.*/" -f -o /tmp/$k $N --profile --kernel $k --dtype BFloat16 --batch_size 2 \
    --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --causal 0 > $L/ncu_$k.log 2>&1
  echo "ncu $k rc=$? at $SECONDS s"
  timeout 60 ncu --import /tmp/$k.ncu-rep --page source --csv --print-source sass > $L/source_$k.csv 2>$L/source_$k.err
  echo "source $k rc=$? $(wc -l < $L/source_$k.csv) lines at $SECONDS s"
  timeout 30 ncu --import /tmp/$k.ncu-rep --page details --print-details all > $L/details_$k.txt 2>&1
done
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
