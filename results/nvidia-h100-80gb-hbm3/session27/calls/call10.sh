#!/usr/bin/env bash
# Session 27 call 10: rev = the review commit (every Hopper launch and the split-KV combine through one
# launch_kernel helper, cudaLaunchKernelEx; the tail partials at the split workspace's start; device code
# md5-identical to fin). GPU tests; rung 8 at 1x16x16384x128 (tail split) and the split-KV decode shape.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s27rev.tar.xz -C /tmp; N=/tmp/rev/fa-bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 150 /tmp/rev/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests_rev.log 2>&1; echo "gpu tests rev rc=$? $(grep -E 'assertions|FAILED' $L/gpu_tests_rev.log | tail -2 | tr '\n' ' ') at $SECONDS s"
timeout 60 $N --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128 --csv $L/rev.csv > $L/rev.log 2>&1
timeout 60 $N --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --batch_size 16 --num_head 32 --num_head_kv 8 --seqlen_q 1 --seqlen_k 8192 --head_dim 128 --csv $L/rev.csv >> $L/rev.log 2>&1
grep -E "wgmma" $L/rev.log | cut -c1-200
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
