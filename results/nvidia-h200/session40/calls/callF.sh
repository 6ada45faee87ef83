#!/usr/bin/env bash
# Session 40 call F (carry [".exp/s40e.tar.xz"], the landed build): the decode grid at head_dim 64
# and 256 through sweep.sh (HEAD_DIMS, new this session): the copy calibrated first, the four anchors
# and the B = 1 series (1k-256k keys), 32 and 8 K/V heads, rungs 10, 7 and 9 interleaved with cuDNN
# and FA2 (FA4 not carried). Without reference checks, to fit the ~250 s of device time left: call E
# ran the GPU tests on this build (199,324 assertions) and checked every anchor row (PASS).
set -uo pipefail
tar -xJf .exp/s40e.tar.xz -C /
HEAD_DIMS=64,256 KERNELS=mma_decode,wgmma_overlap,wgmma_persistent PEERS=cudnn,fa2 PEERS_ARGS="" \
  FA_BENCH_ARGS="--skip_ref_check" timeout 235 scripts/sweep.sh --grid decode /tmp/s40e/fa-bench $OUT/decode \
  > $OUT/sweep.log 2>&1
echo "sweep rc=$? at $SECONDS s; $(grep -c . $OUT/decode/decode.csv) CSV lines"
tail -3 $OUT/sweep.log
