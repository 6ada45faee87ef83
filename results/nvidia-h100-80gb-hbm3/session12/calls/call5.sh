#!/usr/bin/env bash
# Session 12 call 5: Nsight Compute at the base clock on cuDNN's FP8 attention kernel (cudnn_fp8
# peer, 4x16x8192x128 non-causal): launch shape, registers, shared memory, pipes, stall reasons
# (session 11's metric list) and the per-SASS-line samples, to compare with rung 8 (call 2).
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b
tar -xJf .deps/s12c.tar.xz -C /tmp/b; N=/tmp/b/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
python3 -m pip install -q --no-deps --no-index --disable-pip-version-check --target /tmp/cfe .whl/cudnn_fe/nvidia_cudnn_frontend-1.26.0-*.whl
export PYTHONPATH=/tmp/cfe${PYTHONPATH:+:$PYTHONPATH}
M=$(cat results/nvidia-h100-80gb-hbm3/session11/calls/ncu_metrics.txt),launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,launch__shared_mem_per_block_static,launch__occupancy_limit_registers
P="scripts/peers.py --fa-bench $N --backends cudnn_fp8 --dtype Float8E4M3FN --batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --causal 0 --iterations 1 --warmup_iterations 0 --warmup_time 0"
timeout 200 ncu --target-processes all -k "regex:(?i)(sdpa|fprop|flash|fmha|attn)" --launch-count 1 --metrics "$M" \
  --print-metric-instances values --clock-control base python3 $P --csv /tmp/p1.csv > $L/ncu_cudnn_fp8.txt 2>&1
echo "ncu metrics rc=$?"; grep -E "^  [a-z_]|launch__|duration|cycles_elapsed|inst_executed.sum |hmma|pipe_xu|issue_active" $L/ncu_cudnn_fp8.txt | head -20
timeout 200 ncu --target-processes all -k "regex:(?i)(sdpa|fprop|flash|fmha|attn)" --launch-count 1 --set none \
  --section SourceCounters --section WarpStateStats --clock-control base -o $L/cudnn_src python3 $P --csv /tmp/p2.csv > $L/src.log 2>&1
echo "ncu src rc=$?"
ncu --import $L/cudnn_src.ncu-rep --page source --csv --print-source sass > $L/cudnn_fp8_src.sass.csv 2>&1
ncu --import $L/cudnn_src.ncu-rep --page details --print-details all > $L/cudnn_fp8_src.details.txt 2>&1
rm -f $L/cudnn_src.ncu-rep
ls -la $L
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
