#!/usr/bin/env bash
# Session 32 call 7c (after 7a / 7b on the same machine): the peers' SASS, for issue #13's and #10's
# head_dim-64 gaps, compared here with fa-bench's (cuobjdump): the CuTe DSL keeps what it compiled
# (CUTE_DSL_KEEP=cubin,ptx into CUTE_DSL_DUMP_DIR) while peers.py runs seed 001's example at its
# 128x64x128 and FA4 (its sm90 path, 192 x 128 at head_dim 64) at 2x32x8192x64 non-causal.
set -uo pipefail
L=$OUT/logs; mkdir -p $L $OUT/cute_dump $OUT/fa4_dump
tar -xJf /tmp/stash/s32fin.tar.xz -C /tmp; N=/tmp/fin3/fa-bench
cat /tmp/stash/site29.part.aa .exp/s29w2/site29.part.ab /tmp/stash/site29.part.ac | xz -d | tar -x -C /tmp || echo "site unpack failed"
python3 -c "import google.protobuf" 2>/dev/null && rm -rf /tmp/site29/google /tmp/site29/protobuf-*.dist-info
export PYTHONPATH=/tmp/site29:/tmp/site29/nvidia_cutlass_dsl/dsl_packages
S="--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64 --causal 0"
CUTE_DSL_KEEP=cubin,ptx CUTE_DSL_DUMP_DIR=$OUT/cute_dump timeout 200 python3 scripts/peers.py --fa-bench $N \
    --backends cute --cute-example /tmp/stash/flash_attention_v2.py $S --csv $L/peers.csv > $L/cute.log 2>&1
echo "cute rc=$? at $SECONDS s"
CUTE_DSL_KEEP=cubin,ptx CUTE_DSL_DUMP_DIR=$OUT/fa4_dump timeout 200 python3 scripts/peers.py --fa-bench $N \
    --backends fa4 $S --csv $L/peers.csv > $L/fa4.log 2>&1
echo "fa4 rc=$? at $SECONDS s"
find $OUT -type f | head -40; du -sh $OUT/cute_dump $OUT/fa4_dump
tail -n 3 $L/cute.log $L/fa4.log
echo "total $SECONDS s"
