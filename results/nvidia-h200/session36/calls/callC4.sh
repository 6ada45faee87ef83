#!/usr/bin/env bash
# Session 36 call C4 (after C1-C3 on the same machine; carries .exp/s35site/p4): Nsight Compute's
# per-instruction warp-state samples (SourceCounters, WarpStateStats; clocks left alone; one launch
# each) for FA4 and for rung 7 at 2x16x8192x128 non-causal, rung 7 on its default 160-key tile and on
# FA4's 128 x 128 one, compared by scripts/ncu_hotspots.py. FA4's SASS itself was compiled without a
# GPU this session (session36/README.md says how), so the samples can be read against it line by line.
set -uo pipefail
L=$OUT/logs; mkdir -p $L
tar -xJf /tmp/stash/s35b.tar.xz -C /tmp; N=/tmp/s35/fa-bench
cat /tmp/stash/site29.q00 /tmp/stash/site29.q01 /tmp/stash/site29.q02 .exp/s35site/p4/site29.q03 | xz -d | tar -x -C /tmp || echo "site unpack failed"
python3 -c "import google.protobuf" 2>/dev/null && rm -rf /tmp/site29/google /tmp/site29/protobuf-*.dist-info
export PYTHONPATH=/tmp/site29:/tmp/site29/nvidia_cutlass_dsl/dsl_packages
export PATH=/usr/local/cuda/bin:$PATH
C=results/nvidia-h100-80gb-hbm3/session11/calls
prof() {  # tag, command...
  local tag=$1; shift
  timeout 150 ncu --section SourceCounters --section WarpStateStats --metrics sm__cycles_elapsed.avg,smsp__inst_executed.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active \
      --clock-control none --nvtx "$@" > $L/ncu_$tag.log 2>&1
  echo "ncu $tag rc=$? at $SECONDS s"
  timeout 60 ncu --import /tmp/$tag.ncu-rep --page source --csv --print-source sass > $L/source_$tag.csv 2>/dev/null
}
$N --kernel wgmma_overlap --iterations 200 --skip_ref_check > /dev/null 2>&1  # warm-up
prof fa4 --nvtx-include "peer/" -f -o /tmp/fa4 python3 $C/peer_once.py fa4 0 2 16 8192 128
F="--profile --kernel wgmma_overlap --dtype BFloat16 --batch_size 2 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --causal 0"
prof r7_160 --nvtx-include "regex:fa-bench@.*/" -f -o /tmp/r7_160 $N $F
prof r7_128 --nvtx-include "regex:fa-bench@.*/" -f -o /tmp/r7_128 $N $F --m_block_size 128 --n_block_size 128 --num_threads 256
for t in r7_160 r7_128; do python3 scripts/ncu_hotspots.py $L/source_$t.csv --compare $L/source_fa4.csv > $L/hotspots_${t}_vs_fa4.txt 2>&1; done
grep -E "sm__cycles_elapsed|inst_executed.sum|hmma_cycles" $L/ncu_*.log
gzip -9 $L/source_*.csv
