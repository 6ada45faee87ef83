#!/usr/bin/env bash
# Session 11 call 6 (right after call 5, whose machine holds the CuTe DSL site's first half; binary
# of commit 23b4101): Nsight Compute at the base clock on FA4 4.0.0b36 at call 5's shapes; then
# session 10 call 13 again on this binary: rungs 7 and 9 against cuDNN 9.19 and FA4 with both sides
# on fa-bench's default rule (0.2 s warm-up, >= 0.2 s timed), clocks on every row.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/new /tmp/site
tar -xJf .deps/bin.tar.xz -C /tmp/new; N=/tmp/new/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
cat /tmp/stash/cute_site.part.aa .whl/p2/cute_site.part.ab | tar -xJ -C /tmp/site || echo "CuTe site unpack failed"
pip install --quiet --no-deps --no-index --target /tmp/site .whl/p2/fa4/*.whl > $L/pip.log 2>&1 || echo "fa4 install failed"
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
python3 -c "import flash_attn.cute, torch; print('fa4 import ok')" >> $L/pip.log 2>&1; tail -1 $L/pip.log
C=results/nvidia-h100-80gb-hbm3/session11/calls
M=$(cat $C/ncu_metrics.txt)
for args in "1 2 32 8192 64 d64_c1" "0 2 32 8192 64 d64_c0" "0 2 16 8192 128 d128_c0"; do
  set -- $args
  timeout 120 ncu --metrics "$M" --print-metric-instances values --clock-control base --nvtx --nvtx-include "peer/" \
    python3 $C/peer_once.py fa4 $1 $2 $3 $4 $5 > $L/ncu_fa4_$6.txt 2>&1
  echo "ncu fa4 $6 rc=$?"
done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$N --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1
CL=$L/clocks.csv
one() {  # fa-bench then the peers, each with its default timing rule
  $N --dtype BFloat16 --kernel wgmma_overlap,wgmma_persistent --skip_ref_check --csv $CL "$@" >> $L/fa.log 2>&1
  timeout 150 python3 scripts/peers.py --backends cudnn,fa4 --fa-bench $N --csv $CL "$@" >> $L/peers.log 2>&1
  echo "$* rc=$?"
}
one --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --num_head 16 --head_dim 128 --causal 0,1
one --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --num_head 32 --num_head_kv 8 --head_dim 128 --causal 0,1
one --batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --num_head 16 --head_dim 128 --causal 0,1
one --batch_size 4 --seqlen_q 4096 --seqlen_k 4096 --num_head 16 --head_dim 128 --causal 0,1
one --batch_size 8 --seqlen_q 2048 --seqlen_k 2048 --num_head 16 --head_dim 128 --causal 0,1
one --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --num_head 16 --head_dim 128 --causal 0,1
one --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --num_head 32 --head_dim 64 --causal 0,1
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
