#!/usr/bin/env bash
# Session 8 call 3: rung 9 v2 (double-buffered Q at d64/d128 with a 2-stage ring at d128, the issue
# token kept across tiles) against rung 7 on the fa2 grid with head_dim 256, reference checked,
# two rounds (rung order swapped in round 2); decode rows; then the GPU tests of this binary.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/new
tar -xJf .deps/bin.tar.xz -C /tmp/new; N=/tmp/new/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.limit --format=csv > $L/smi.txt
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
grid() {  # kernels csv extra...
    local k=$1 csv=$2; shift 2
    for cfg in "64 32" "128 16" "256 16"; do
        read -r D H <<< "$cfg"
        for s in 512 1024 2048 4096 8192 16384; do
            $N --kernel $k --dtype BFloat16 --batch_size $((16384 / s)) --seqlen_q $s --seqlen_k $s --num_head $H \
                --head_dim $D --causal 0,1 --iterations 30 --csv $csv "$@" >> $L/bench.log 2>&1
        done
    done
}
grid wgmma_overlap,wgmma_persistent $L/grid_r1.csv
grid wgmma_persistent,wgmma_overlap $L/grid_r2.csv --skip_ref_check
$N --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --batch_size 1,8 --seqlen_q 1 --seqlen_k 32768 \
    --num_head 32 --num_head_kv 32,8 --head_dim 128 --iterations 50 --csv $L/decode.csv >> $L/bench.log 2>&1
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
timeout 200 /tmp/new/fa_gpu_tests "~[large]" > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; tail -n 3 $L/gpu_tests.log
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
