#!/usr/bin/env bash
# Session 9 call 6 (right after call 5, whose machine holds the CuTe DSL site's first half; same
# binary): the decode grid (scripts/sweep.sh --grid decode) with the split-KV rungs 3, 5, 6, 7, 9
# and all three peers, the copy calibrated first; then, 5 + 30 launches for everyone, GQA prefill
# and the FA2 grid's short head_dim-64 points with rungs 7 and 9, cuDNN and FA4.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/new /tmp/site
tar -xJf .deps/bin.tar.xz -C /tmp/new; N=/tmp/new/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
cat /tmp/stash/cute_site.part.aa .whl/p2/cute_site.part.ab | tar -xJ -C /tmp/site || echo "CuTe site unpack failed"
pip install --quiet --no-deps --no-index --target /tmp/site .whl/p2/fa4/*.whl > $L/pip.log 2>&1 || echo "fa4 install failed"
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
python3 -c "import flash_attn.cute, torch; print('fa4 import ok')" >> $L/pip.log 2>&1; tail -1 $L/pip.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$N --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1
KERNELS=mma,wgmma_tma,wgmma_ws,wgmma_overlap,wgmma_persistent PEERS=fa2,cudnn,fa4 timeout 330 \
    scripts/sweep.sh --grid decode $N $L/decode > $L/sweep.log 2>&1
echo "sweep rc=$?"; tail -n 2 $L/sweep.log
SB="--iterations 30 --warmup_iterations 5 --warmup_time 0"
PB="--iterations 30 --warmup_iterations 5"
C=$L/short.csv
for S in 512 1024 2048; do
  B=$((16384 / S))
  $N --dtype BFloat16 --batch_size $B --seqlen_q $S --seqlen_k $S --num_head 32 --head_dim 64 --causal 0,1 \
     --kernel wgmma_overlap,wgmma_persistent $SB --csv $C >> $L/short.log 2>&1
  python3 scripts/peers.py --backends cudnn,fa4 --fa-bench $N --csv $C --batch_size $B --seqlen_q $S --seqlen_k $S \
     --num_head 32 --head_dim 64 --causal 0,1 $PB >> $L/short.log 2>&1
done
$N --dtype BFloat16 --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --num_head 32 --num_head_kv 32,8 --head_dim 128 \
   --causal 0,1 --kernel wgmma_overlap,wgmma_persistent $SB --csv $C >> $L/short.log 2>&1
python3 scripts/peers.py --backends cudnn,fa4 --fa-bench $N --csv $C --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 \
   --num_head 32 --num_head_kv 32,8 --head_dim 128 --causal 0,1 $PB >> $L/short.log 2>&1
echo "short rc=$?"
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
