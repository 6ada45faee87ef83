#!/usr/bin/env bash
# Session 11 call 8 (right after call 7): FA4 4.0.0b36's sm90 forward kernels as compiled on the
# device (CUTE_DSL_KEEP=cubin,ptx), for SASS comparison with rungs 7 and 9 on the development
# machine: bf16 2x16x8192x128 and 2x32x8192x64, causal and not (one launch each, peer_once.py).
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/site $OUT/fa4dump
export PATH=/usr/local/cuda/bin:$PATH
cat /tmp/stash/cute_site.part.aa .whl/p2/cute_site.part.ab | tar -xJ -C /tmp/site || echo "CuTe site unpack failed"
pip install --quiet --no-deps --no-index --target /tmp/site .whl/p2/fa4/*.whl > $L/pip.log 2>&1 || echo "fa4 install failed"
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
C=results/nvidia-h100-80gb-hbm3/session11/calls
for args in "0 2 16 8192 128" "1 2 16 8192 128" "0 2 32 8192 64" "1 2 32 8192 64"; do
  set -- $args
  mkdir -p $OUT/fa4dump/d$5_c$1
  CUTE_DSL_KEEP=cubin,ptx CUTE_DSL_DUMP_DIR=$OUT/fa4dump/d$5_c$1 timeout 120 python3 $C/peer_once.py fa4 $1 $2 $3 $4 $5 >> $L/dump.log 2>&1
  echo "d$5 c$1 rc=$? $(ls $OUT/fa4dump/d$5_c$1 | wc -l) files"
done
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
