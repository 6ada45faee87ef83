#!/usr/bin/env bash
# Session 39 call D: the decode grid with rung 10 (mma_decode) on main (build .exp/s39a.tar.xz: commit
# 5dbfc91, rung 10 and the decode wave balance of choose_num_splits), the top rungs 7 and 9, and FA2,
# cuDNN 9.19, FA4 4.0.0b36 (session 35's site) interleaved point by point: scripts/sweep.sh --grid
# decode, copy calibrated first, reference checks on both sides. After session 37's calls/stash.sh
# with the build (carry [".exp/s39a.tar.xz"], GPU tests in the same call), then p1, p2, p3 one a call
# on the same warm machine; this call carries .exp/s35site/p4. Then rung 10 at 64x32x1x8192 MHA over
# explicit splits (does the balance rule earn a place past two waves: 2,048 CTAs, 5.17 waves?).
set -uo pipefail
L=$OUT/logs; mkdir -p $L
tar -xJf /tmp/stash/s39a.tar.xz -C /; N=/tmp/s39a/fa-bench
[[ -d /tmp/site29 ]] || { cat /tmp/stash/site29.q00 /tmp/stash/site29.q01 /tmp/stash/site29.q02 .exp/s35site/p4/site29.q03 | xz -d | tar -x -C /tmp || echo "site unpack failed"; }
python3 -c "import google.protobuf" 2>/dev/null && rm -rf /tmp/site29/google /tmp/site29/protobuf-*.dist-info
export PYTHONPATH=/tmp/site29:/tmp/site29/nvidia_cutlass_dsl/dsl_packages
python3 -c "import flash_attn.cute; print('fa4 import ok')" 2>&1 | tail -1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
KERNELS=mma_decode,wgmma_overlap,wgmma_persistent PEERS=fa2,cudnn,fa4 timeout 480 \
    scripts/sweep.sh --grid decode $N $L/decode > $L/sweep.log 2>&1
echo "sweep rc=$? at $SECONDS s"; tail -n 2 $L/sweep.log
$N --kernel mma_decode --batch_size 64 --seqlen_q 1 --seqlen_k 8192 --num_head 32 --num_head_kv 32 --head_dim 128 \
   --num_splits 1,2,3,4,0,1,2,3,4,0 --csv $L/splits_mha.csv > $L/splits_mha.log 2>&1
grep -E "^mma_decode" $L/splits_mha.log | awk '{print $11, $15, $18}' | tr '\n' ';'; echo
python3 scripts/plot.py $L/decode/decode.csv --decode-table --fa-bench $N 2>&1 | head -14
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
