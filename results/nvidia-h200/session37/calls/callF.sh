#!/usr/bin/env bash
# Session 37 call F (a fresh machine, after stash.sh four times: the builds, then p1-p3; carries
# .exp/s35site/p4). Build ps (producer_sleep.patch): the producer's waits for an empty ring slot
# (wgmma_ws_kernel.cuh's produce_tile: rungs 6, 7, 9) with FA4's 10 ms suspend-time hint, so its
# failed waits sleep (NANOSLEEP.SYNCS) instead of polling on the issue slots of the sub-partition it
# shares with consumer warps; the consumers' waits and rung 8 as they are. Session 36 call D had the
# hint on every wait: head_dim 64 +0.3 to +1.3 % (all four rows), head_dim 128 level, FP8 -0.6 to
# -1.7 %; call E here: at 1x32x16384x64 rung 9 executes 51 M SYNCS, 49 M BRA and 33 M YIELD against
# FA4's 23 / 17 / 0. Its GPU tests, compute-sanitizer, ab.py against base (HEAD's device code) three
# rounds; then FA4 and cuDNN at the head_dim-64 grid points from 8,192 rows with ps's rows beside.
set -uo pipefail
L=$OUT/logs; mkdir -p $L
tar -xJf /tmp/stash/s36g.tar.xz -C /tmp; tar -xJf /tmp/stash/s37f.tar.xz -C /tmp; N=/tmp/s36g/fa-bench; P=/tmp/s37f/ps/fa-bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 150 /tmp/s37f/ps/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(grep -E 'assertions|FAILED' $L/gpu_tests.log | tail -2 | tr '\n' ' ') at $SECONDS s"
DTYPES="BFloat16" HEAD_DIMS="64 128" timeout 60 scripts/sanitize.sh $P wgmma_overlap,wgmma_persistent > $L/sanitize.log 2>&1
echo "sanitize rc=$? $(grep -c clean $L/sanitize.log) clean at $SECONDS s"
$N --kernel wgmma_overlap --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
s() { echo "--kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --batch_size $1 --num_head $2 --seqlen_q $3 --seqlen_k $3 --head_dim $4 --causal $5"; }
python3 scripts/ab.py --build base=$N --build ps=$P --rounds 3 --deadline 110 --out $L/ab \
    --problem "$(s 2 32 8192 64 0,1)" --problem "$(s 1 32 16384 64 0,1)" --problem "$(s 2 16 8192 128 0)" > $L/ab.txt 2>&1
echo "ab rc=$? at $SECONDS s"; grep -E "geometric|round" $L/ab.txt
cat /tmp/stash/site29.q00 /tmp/stash/site29.q01 /tmp/stash/site29.q02 .exp/s35site/p4/site29.q03 | xz -d | tar -x -C /tmp || echo "site unpack failed"
python3 -c "import google.protobuf" 2>/dev/null && rm -rf /tmp/site29/google /tmp/site29/protobuf-*.dist-info
export PYTHONPATH=/tmp/site29:/tmp/site29/nvidia_cutlass_dsl/dsl_packages
for sh in "--batch_size 2 --seqlen_q 8192 --seqlen_k 8192" "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384"; do
  (( SECONDS > 330 )) && { echo "time guard at $SECONDS s"; break; }
  timeout 80 python3 scripts/peers.py --backends cudnn,fa4 --num_head 32 --head_dim 64 --causal 0,1 --fa-bench $P --csv $L/peers.csv $sh >> $L/peers.log 2>&1
  timeout 30 $P $sh --num_head 32 --head_dim 64 --causal 0,1 --kernel wgmma_overlap,wgmma_persistent --skip_ref_check --csv $L/peers.csv >> $L/peers.log 2>&1
done
echo "peers at $SECONDS s"
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
