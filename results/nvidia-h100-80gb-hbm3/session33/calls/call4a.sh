#!/usr/bin/env bash
# Session 33 call 4a: the build to commit (`fin4`: the committed kernels of session 32 with head_dim 64's
# unmasked key loop on rungs 7 and 9, SASS md5 4e87665c; its head_dim-64 loops identical to call 3's `spl`,
# every other kernel's loops to `fin3`'s): GPU tests; then it and the peers' site's third part (session 29's
# s29w3) to /tmp/stash for call 4c on the same machine.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/stash; cp .exp/s33fin.tar.xz .exp/s29w3/* /tmp/stash/; tar -xJf .exp/s33fin.tar.xz -C /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 120 /tmp/fin4/fa_gpu_tests "~[large]" ) > $L/gpu_tests_fin4.log 2>&1; echo "gpu tests rc=$? $(grep -E 'assertions|FAILED' $L/gpu_tests_fin4.log | tail -2 | tr '\n' ' ') at $SECONDS s"
ls -la /tmp/stash
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
