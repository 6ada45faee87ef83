#!/usr/bin/env bash
# Session 22 call 2: where rung 8's time goes now that Q is in registers (issue #11): Nsight Compute at
# the base clock, one launch each, on rung 8 (s22q = the committed b028507 kernels) at
# 1x16x16384x256 and 4x16x8192x128 non-causal (both on the pre-pass way) and on cuDNN's FP8 kernel
# at 1x16x16384x256: session 11's metric list; per-SASS-line samples of rung 8 at d256.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s22a.tar.xz -C /tmp; N=/tmp/q/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
python3 -m pip install -q --no-deps --no-index --disable-pip-version-check --target /tmp/cfe .whl/cudnn_fe/nvidia_cudnn_frontend-1.26.0-*.whl
export PYTHONPATH=/tmp/cfe${PYTHONPATH:+:$PYTHONPATH}
M=$(cat results/nvidia-h100-80gb-hbm3/session11/calls/ncu_metrics.txt),launch__grid_size,launch__block_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,dram__bytes.sum
for shape in "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256" "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"; do
  timeout 120 ncu --metrics "$M" --clock-control base --nvtx --nvtx-include "regex:fa-bench@.*/" $N --profile --kernel wgmma_fp8 \
    --dtype Float8E4M3FN --num_head 16 $shape >> $L/ncu_rung8.txt 2>&1
  echo "ncu rung8 $shape rc=$?"
done
timeout 150 ncu --set none --section SourceCounters --section WarpStateStats --clock-control base --nvtx --nvtx-include "regex:fa-bench@.*/" \
  -k regex:wgmma_fp8_fwd -o $L/r8src $N --profile --kernel wgmma_fp8 --dtype Float8E4M3FN --num_head 16 --batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256 > $L/src.log 2>&1
echo "ncu src rc=$?"
ncu --import $L/r8src.ncu-rep --page source --csv --print-source sass > $L/r8_d256_src.sass.csv 2>&1
ncu --import $L/r8src.ncu-rep --page details --print-details all > $L/r8_d256_src.details.txt 2>&1
rm -f $L/r8src.ncu-rep
P="scripts/peers.py --fa-bench $N --backends cudnn_fp8 --dtype Float8E4M3FN --batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256 --causal 0 --iterations 1 --warmup_iterations 0 --warmup_time 0"
timeout 200 ncu --target-processes all -k "regex:(?i)(sdpa|fprop|flash|fmha|attn)" --launch-count 1 --metrics "$M" \
  --print-metric-instances values --clock-control base python3 $P --csv /tmp/p1.csv > $L/ncu_cudnn_fp8_d256.txt 2>&1
echo "ncu cudnn rc=$?"
for f in $L/ncu_rung8.txt $L/ncu_cudnn_fp8_d256.txt; do
  grep -E "^  [a-zA-Z_]|gpu__time|sm__cycles_elapsed.avg |inst_executed.sum |hmma_cycles|pipe_xu|issue_active|launch__(grid|block|reg)|bank_conf|dram__bytes|warps_active" $f | grep -v "sass__inst" | sed 's/  */ /g' | cut -c1-160
done
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
