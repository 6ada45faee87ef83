#!/usr/bin/env bash
# Session 31 call 3: the build to commit (`fin3` = call 2's fin2 with rung 9's 128-key head_dim-128 tile
# back on the -inf start: its SASS, and rung 8's, identical to 416ae70's; every other kernel fin2's):
# GPU tests; then the build and the peers' site's third part (session 29's s29w3) to /tmp/stash for call 5.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/stash; cp .exp/s31c.tar.xz .exp/s29w3/* /tmp/stash/; tar -xJf .exp/s31c.tar.xz -C /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 200 /tmp/fin3/fa_gpu_tests "~[large]" ) > $L/gpu_tests_fin3.log 2>&1; echo "gpu tests rc=$? $(grep -E 'assertions|FAILED' $L/gpu_tests_fin3.log | tail -2 | tr '\n' ' ') at $SECONDS s"
ls -la /tmp/stash
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
