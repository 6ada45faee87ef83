#!/usr/bin/env bash
# Session 8 call 7: the GPU tests of the final binary (call 6's), run as one command line.
mkdir -p /tmp/new && tar -xJf .deps/bin.tar.xz -C /tmp/new && timeout 170 /tmp/new/fa_gpu_tests "~[large]" > $OUT/gpu_tests_final.log 2>&1
echo "rc=$?"; tail -n 3 $OUT/gpu_tests_final.log
