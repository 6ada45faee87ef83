#!/usr/bin/env bash
# Session 12 call 2: Nsight Compute at the base clock on rung 8 (FP8) d128 and d256 and rung 7
# (bf16) d128 for comparison (calls/ncu_metrics.txt of session 11), and the per-SASS-line stall
# samples (SourceCounters) of rung 8 at d128 and d256, to see where the FP8 rung's time goes.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b
tar -xJf .deps/s12a.tar.xz -C /tmp/b; N=/tmp/b/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
M=$(cat results/nvidia-h100-80gb-hbm3/session11/calls/ncu_metrics.txt)
prof() {  # tag, kernel, dtype, shape flags
  local tag=$1 k=$2 t=$3; shift 3
  timeout 100 ncu --metrics "$M" --print-metric-instances values --clock-control base --nvtx \
    --nvtx-include "regex:fa-bench@.*/" $N --profile --kernel $k --dtype $t "$@" > $L/ncu_$tag.txt 2>&1
  echo "ncu $tag rc=$?"
}
prof fp8_d128 wgmma_fp8 Float8E4M3FN --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --num_head 16 --head_dim 128 --causal 0
prof fp8_d256 wgmma_fp8 Float8E4M3FN --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --num_head 16 --head_dim 256 --causal 0
prof bf16_d128 wgmma_overlap BFloat16 --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --num_head 16 --head_dim 128 --causal 0
for d in 128 256; do
  timeout 150 ncu --set none --section SourceCounters --section WarpStateStats --clock-control base --nvtx \
    --nvtx-include "regex:fa-bench@.*/" -o $L/fp8_src_d$d $N --profile --kernel wgmma_fp8 --dtype Float8E4M3FN \
    --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --num_head 16 --head_dim $d --causal 0 > $L/src_d$d.log 2>&1
  echo "src d$d rc=$?"
  ncu --import $L/fp8_src_d$d.ncu-rep --page source --csv --print-source sass > $L/fp8_src_d$d.sass.csv 2>&1
  ncu --import $L/fp8_src_d$d.ncu-rep --page details --print-details all > $L/fp8_src_d$d.details.txt 2>&1
  rm -f $L/fp8_src_d$d.ncu-rep
done
ls -la $L
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
