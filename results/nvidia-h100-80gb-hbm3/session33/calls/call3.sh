#!/usr/bin/env bash
# Session 33 call 3: rungs 7 and 9 with the key loop split in two (`spl`: the tiles that need no mask first, in
# a loop whose softmax has no mask test, then the rest; overlap_schedule.cuh, mask.cuh's unmasked_key_tiles),
# against the committed build (`fin3`), through scripts/ab.py: three rounds, order rotating, the reference
# check in round 1. Then spl's GPU tests and compute-sanitizer on rungs 7 and 9 (bf16, the three head_dims).
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s32fin.tar.xz -C /tmp; tar -xJf .exp/s33spl.tar.xz -C /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
/tmp/fin3/fa-bench --kernel wgmma_overlap --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
s() { echo "--batch_size $1 --num_head $2 --seqlen_q $3 --seqlen_k $3 --head_dim $4 --causal $5"; }
python3 scripts/ab.py --build fin3=/tmp/fin3/fa-bench --build spl=/tmp/spl/fa-bench \
    --flags "--kernel wgmma_overlap,wgmma_persistent" --rounds 3 --deadline 330 --out $L/ab \
    --problem "$(s 1 32 16384 64 0)" --problem "$(s 2 32 8192 64 0,1)" --problem "$(s 4 32 4096 64 0)" \
    --problem "$(s 32 32 512 64 1)" --problem "$(s 4 16 8192 128 0,1)" --problem "$(s 1 16 16384 128 0)" \
    --problem "$(s 2 16 8192 256 0,1)"
echo "ab done at $SECONDS s"
( time timeout 80 /tmp/spl/fa_gpu_tests "~[large]" ) > $L/gpu_tests_spl.log 2>&1; echo "gpu tests spl rc=$? $(grep -E 'assertions|FAILED' $L/gpu_tests_spl.log | tail -2 | tr '\n' ' ') at $SECONDS s"
if (( SECONDS < 480 )); then
  DTYPES=BFloat16 timeout $(( 590 - SECONDS )) bash scripts/sanitize.sh /tmp/spl/fa-bench wgmma_overlap,wgmma_persistent > $L/sanitize_spl.log 2>&1
  echo "sanitize rc=$? $(grep -c clean $L/sanitize_spl.log) clean, $(grep -c FAILED $L/sanitize_spl.log) failed at $SECONDS s"
fi
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
