#!/usr/bin/env bash
# Prepared in session 35, not run (the device budget was spent): the next step on issue #10's head_dim-128 gap.
# After the peers' site is stashed in four parts (calls G1-G3's carries: .exp/s35b.tar.xz + .exp/s35site/p1,
# then p2, then p3; this script carries p4), on the same machine: FA4's own cubin and SASS (the CuTe DSL keeps
# the cubin it compiles: CUTE_DSL_KEEP=cubin), and Nsight Compute's per-instruction warp-state samples for FA4
# and for rungs 7 and 9 at 2x16x8192x128 non-causal (clocks left alone), compared by scripts/ncu_hotspots.py:
# which lines of FA4's key loop take its stalls where rung 7's dispatch stalls sit (session 35 call H).
set -uo pipefail
L=$OUT/logs; mkdir -p $L/fa4_dump
tar -xJf /tmp/stash/s35b.tar.xz -C /tmp; N=/tmp/s35/fa-bench
cat /tmp/stash/site29.q00 /tmp/stash/site29.q01 /tmp/stash/site29.q02 .exp/s35site/p4/site29.q03 | xz -d | tar -x -C /tmp || echo "site unpack failed"
python3 -c "import google.protobuf" 2>/dev/null && rm -rf /tmp/site29/google /tmp/site29/protobuf-*.dist-info
export PYTHONPATH=/tmp/site29:/tmp/site29/nvidia_cutlass_dsl/dsl_packages
export PATH=/usr/local/cuda/bin:$PATH
C=results/nvidia-h100-80gb-hbm3/session11/calls
CUTE_DSL_KEEP=cubin CUTE_DSL_DUMP_DIR=$L/fa4_dump timeout 120 python3 $C/peer_once.py fa4 0 2 16 8192 128 > $L/fa4_dump.log 2>&1
for f in $L/fa4_dump/*.cubin; do [[ -f $f ]] && cuobjdump -sass "$f" > "${f%.cubin}.sass"; done
ls -la $L/fa4_dump
prof() {  # tag, command...
  local tag=$1; shift
  timeout 150 ncu --section SourceCounters --section WarpStateStats --clock-control none --nvtx "$@" > $L/ncu_$tag.log 2>&1
  echo "ncu $tag rc=$? at $SECONDS s"
  timeout 60 ncu --import /tmp/$tag.ncu-rep --page source --csv --print-source sass > $L/source_$tag.csv 2>/dev/null
}
prof fa4 --nvtx-include "peer/" -f -o /tmp/fa4 python3 $C/peer_once.py fa4 0 2 16 8192 128
for k in wgmma_overlap wgmma_persistent; do
  prof $k --nvtx-include "regex:fa-bench@.*/" -f -o /tmp/$k $N --profile --kernel $k --dtype BFloat16 --batch_size 2 \
    --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --causal 0
done
python3 scripts/ncu_hotspots.py $L/source_wgmma_overlap.csv --compare $L/source_fa4.csv > $L/hotspots_r7_vs_fa4.txt 2>&1
gzip -9 $L/source_*.csv
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
