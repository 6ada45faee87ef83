#!/usr/bin/env bash
# Session 36 call B (a fresh H200 after call A's): three candidate builds against the committed device
# code (.exp/s35b.tar.xz, dir s35/, commit 8003e0e) on issue #10's head_dim-128 misses, built here
# (.exp/s36b.tar.xz, dir s36/):
#   nar:  the CTA's last key tile's P·V issued for the keys each warpgroup sees (last_batch, 2/4/6/8 of
#         the tile's k16 steps), rungs 6, 7 and 9 at head_dim 64 and 128; with its GPU tests
#   vat:  FA4's order at head_dim 128 (V(t) waited between S(t+1)'s and P(t)·V(t)'s issue, the P·V
#         wait after the whole softmax): session36/v_at_issue.patch
#   pw32: the 160-key tile's P·V wait after 32 columns instead of 64: session36/pv_wait_32.patch
# GPU tests and compute-sanitizer on nar first, then ab.py, three rounds (one with the reference check).
set -uo pipefail
for t in s35b s36b; do tar -xJf .exp/$t.tar.xz -C /tmp; done
( time timeout 150 /tmp/s36/nar/fa_gpu_tests "~[large]" ) > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(grep -E 'assertions|FAILED' $OUT/gpu_tests.log | tail -2 | tr '\n' ' ') at $SECONDS s"
DTYPES=BFloat16 HEAD_DIMS="64 128" timeout 120 scripts/sanitize.sh /tmp/s36/nar/fa-bench wgmma_overlap,wgmma_persistent > $OUT/sanitize.log 2>&1
echo "sanitize rc=$? $(grep -c clean $OUT/sanitize.log) clean at $SECONDS s"
DTYPES=BFloat16 HEAD_DIMS=128 FA_ARGS="--m_block_size 128 --n_block_size 160 --num_threads 256" \
    timeout 60 scripts/sanitize.sh /tmp/s36/nar/fa-bench wgmma_overlap > $OUT/sanitize_160.log 2>&1
echo "sanitize 160 rc=$? $(grep -c clean $OUT/sanitize_160.log) clean at $SECONDS s"
/tmp/s35/fa-bench --kernel wgmma_overlap --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
s() { echo "--batch_size $1 --num_head $2 --seqlen_q $3 --seqlen_k $3 --head_dim $4 --causal 0,1"; }
python3 scripts/ab.py --build base=/tmp/s35/fa-bench --build nar=/tmp/s36/nar/fa-bench --build vat=/tmp/s36/vat/fa-bench \
    --build pw32=/tmp/s36/pw32/fa-bench --rounds 3 --deadline 330 --out $OUT/ab \
    --flags "--kernel wgmma_overlap,wgmma_persistent --dtype BFloat16" \
    --problem "$(s 2 16 8192 128)" --problem "$(s 1 16 16384 128)" --problem "$(s 4 16 4096 128)" \
    --problem "$(s 4 16 8192 128)" --problem "$(s 2 32 8192 64)" > $OUT/ab.txt 2>&1
echo "ab rc=$? at $SECONDS s"; grep -E "geometric|round" $OUT/ab.txt
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv
