#!/usr/bin/env bash
# Session 37 call E (after stash.sh three times on the same machine; carries .exp/s35site/p4).
# 1. Build x (d128_no_neginf.patch: rung 9's 128-key head_dim-128 tile from the finite running-max start,
#    as every other bf16/fp16 tile; call C measured it +0.55 / +0.66 % causal at 2x16x8192 and
#    1x16x16384): its GPU tests, compute-sanitizer on rung 9 at head_dim 128, and ab.py against base
#    (HEAD's device code) on the rows that run that tile (causal from 2,048 rows; the FA2 grid's 512 and
#    1,024 rows non-causal), three rounds: a second call for call C's result.
# 2. Nsight Compute's per-instruction warp-state samples (as session 36 call C4) for FA4 and rungs 7 and 9
#    at 1x32x16384x64 non-causal (FA4 ahead by 1.8 % in call A), one launch each, clocks left alone.
set -uo pipefail
L=$OUT/logs; mkdir -p $L
tar -xJf /tmp/stash/s36g.tar.xz -C /tmp; tar -xJf /tmp/stash/s37e.tar.xz -C /tmp; N=/tmp/s36g/fa-bench
( time timeout 150 /tmp/s37e/x/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(grep -E 'assertions|FAILED' $L/gpu_tests.log | tail -2 | tr '\n' ' ') at $SECONDS s"
DTYPES="BFloat16 Float16" HEAD_DIMS="128" timeout 60 scripts/sanitize.sh /tmp/s37e/x/fa-bench wgmma_persistent > $L/sanitize.log 2>&1
echo "sanitize rc=$? $(grep -c clean $L/sanitize.log) clean at $SECONDS s"
$N --kernel wgmma_overlap --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
s() { echo "--kernel wgmma_persistent --dtype BFloat16 --batch_size $1 --num_head 16 --seqlen_q $2 --seqlen_k $2 --head_dim 128 --causal $3"; }
python3 scripts/ab.py --build base=$N --build x=/tmp/s37e/x/fa-bench --rounds 3 --deadline 150 --out $L/ab \
    --problem "$(s 2 8192 1)" --problem "$(s 1 16384 1)" --problem "$(s 4 4096 1)" --problem "$(s 8 2048 1)" \
    --problem "$(s 32 512 0,1)" --problem "$(s 16 1024 0,1)" > $L/ab.txt 2>&1
echo "ab rc=$? at $SECONDS s"; grep -E "geometric|round" $L/ab.txt
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
  timeout 60 ncu --import /tmp/$tag.ncu-rep --page details --csv > $L/details_$tag.csv 2>/dev/null
  timeout 60 ncu --import /tmp/$tag.ncu-rep --page source --csv --print-source sass > $L/source_$tag.csv 2>/dev/null
}
prof fa4 --nvtx-include "peer/" -f -o /tmp/fa4 python3 $C/peer_once.py fa4 0 1 32 16384 64
F="--profile --dtype BFloat16 --batch_size 1 --num_head 32 --seqlen_q 16384 --seqlen_k 16384 --head_dim 64 --causal 0"
prof r9 --nvtx-include "regex:fa-bench@.*/" -f -o /tmp/r9 $N $F --kernel wgmma_persistent
prof r7 --nvtx-include "regex:fa-bench@.*/" -f -o /tmp/r7 $N $F --kernel wgmma_overlap
for t in r9 r7; do python3 scripts/ncu_hotspots.py $L/source_$t.csv --compare $L/source_fa4.csv > $L/hotspots_${t}_vs_fa4.txt 2>&1; done
gzip -9 $L/source_*.csv
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
