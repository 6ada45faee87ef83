#!/usr/bin/env bash
# Session 19 call 1: stashes, in /tmp/stash on the warm machine, the first half of the CuTe DSL site
# (FA4 runs on it; call 2) and the cudnn-frontend wheel (call 3): one call carries at most 64 MiB with
# the tree. Also records the GPU.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/stash
cp .whl/cute/p1/cute_site.part.aa .whl/cudnn_fe/*.whl /tmp/stash/ && ls -la /tmp/stash > $L/stash.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
cat $L/stash.txt $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
