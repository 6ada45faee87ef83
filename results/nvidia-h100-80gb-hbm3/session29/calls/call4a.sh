#!/usr/bin/env bash
# Session 29 calls 4a / 4b and 5a / 5b: the first two of three parts of a site built from PyPI's wheels (nvidia-cutlass-dsl
# 4.8.1 with -libs-base, -libs-core, -libs-cu13; flash-attn-4 4.0.0b36, quack-kernels 0.6.5, apache-tvm-ffi
# 0.1.15.post2, torch-c-dlpack-ext 0.1.5, protobuf 7.36.2; unzipped, tar | xz -9, 68.8 MB, split in 23 MB
# parts: one call carries at most 64 MiB with the tree) and seed 001's example (CUTLASS main,
# examples/python/CuTeDSL/cute/ampere/kernel/attention/flash_attention_v2.py) to /tmp/stash on the warm
# machine, for calls 4c and 4d (5c and 5d).
set -uo pipefail
mkdir -p /tmp/stash && cp .exp/s29w[12]/* /tmp/stash/ && { [[ -f .exp/cute/flash_attention_v2.py ]] && cp .exp/cute/flash_attention_v2.py /tmp/stash/; true; } && ls -la /tmp/stash
