#!/usr/bin/env bash
# Session 8 call 1: head_dim 256 on the Hopper rungs. new = 80-key d256 tile + K and V released
# separately (rungs 6-7); old = main 07134f5 (64-key tile, joint release). Two rounds each on the
# d256 FA2-grid points (B = 16384 / S, 16 heads), the d128/d64 points the release change touches,
# cuDNN on the whole fa2 grid (now with d256), then the GPU tests of the new binary.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/new /tmp/old
tar -xJf .deps/bin.tar.xz -C /tmp/new; tar -xJf .deps/old.tar.xz -C /tmp/old
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.limit --format=csv > $L/smi.txt
/tmp/new/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
K=wgmma_tma,wgmma_ws,wgmma_overlap
d256() {  # binary csv extra...
    local b=$1 csv=$2; shift 2
    for s in 512 1024 2048 4096 8192 16384; do
        $b --kernel $K --dtype BFloat16 --batch_size $((16384 / s)) --seqlen_q $s --seqlen_k $s --num_head 16 \
            --head_dim 256 --causal 0,1 --iterations 30 --csv $csv "$@" >> $L/bench.log 2>&1
    done
}
others() {  # binary csv extra...
    local b=$1 csv=$2; shift 2
    for shape in "4 8192 16 128" "1 16384 16 128" "32 512 16 128" "2 8192 32 64"; do
        read -r B S H D <<< "$shape"
        $b --kernel wgmma_ws,wgmma_overlap --dtype BFloat16 --batch_size $B --seqlen_q $S --seqlen_k $S --num_head $H \
            --head_dim $D --causal 0,1 --iterations 30 --csv $csv "$@" >> $L/bench.log 2>&1
    done
}
d256 /tmp/new/fa-bench $L/d256_new_r1.csv
d256 /tmp/old/fa-bench $L/d256_old_r1.csv --skip_ref_check
others /tmp/new/fa-bench $L/others_new_r1.csv --skip_ref_check
others /tmp/old/fa-bench $L/others_old_r1.csv --skip_ref_check
d256 /tmp/new/fa-bench $L/d256_new_r2.csv --skip_ref_check
d256 /tmp/old/fa-bench $L/d256_old_r2.csv --skip_ref_check
others /tmp/new/fa-bench $L/others_new_r2.csv --skip_ref_check
others /tmp/old/fa-bench $L/others_old_r2.csv --skip_ref_check
timeout 150 python3 scripts/peers.py --grid fa2 --backends cudnn --fa-bench /tmp/new/fa-bench --iterations 30 \
    --csv $L/cudnn_fa2grid.csv > $L/peers.log 2>&1; echo "peers rc=$?"
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
timeout 200 /tmp/new/fa_gpu_tests "~[large]" > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; tail -n 3 $L/gpu_tests.log
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
