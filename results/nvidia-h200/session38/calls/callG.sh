#!/usr/bin/env bash
# Session 38 call G: rung 6/7's 64-row decode tile (WgmmaWsD128Decode, 128 keys x 3 stages) with smaller
# ring slots, so a slot frees after less consumer work and the ring keeps more of its bytes in
# flight: d64s6 (64 keys x 6 stages, 208 KB) and d80s5 (80 keys x 5 stages, 216 KB) (builds in
# .exp/s38v.tar.xz: /tmp/s38a, /tmp/s38b; HEAD otherwise) against base (.exp/s36g.tar.xz). Call F:
# rung 7 at 88.7 % of the H200's DRAM peak, cuDNN 94.2 %. GPU tests of both, memcheck / racecheck
# / synccheck with the tile forced, then ab.py three rounds at the decode anchors (rung 7).
set -uo pipefail
tar -xJf .exp/s36g.tar.xz -C /tmp; tar -xJf .exp/s38v.tar.xz -C /
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $OUT/smi.txt
( timeout 120 /tmp/s38a/fa_gpu_tests "~[large]" > $OUT/gpu_tests_a.log 2>&1; echo "a tests rc=$?" ) &
( timeout 120 /tmp/s38b/fa_gpu_tests "~[large]" > $OUT/gpu_tests_b.log 2>&1; echo "b tests rc=$?" ) &
wait
for t in a b; do echo "$t: $(grep -E 'assertions|FAILED' $OUT/gpu_tests_$t.log | tail -2 | tr '\n' ' ')"; done
echo "tests done at $SECONDS s"
DTYPES="BFloat16" HEAD_DIMS="128" FA_ARGS="--m_block_size 64 --n_block_size 64 --num_threads 128" timeout 60 \
    scripts/sanitize.sh /tmp/s38a/fa-bench wgmma_overlap > $OUT/sanitize_a.log 2>&1; echo "a sanitize rc=$? $(grep -c clean $OUT/sanitize_a.log) clean"
DTYPES="BFloat16" HEAD_DIMS="128" FA_ARGS="--m_block_size 64 --n_block_size 80 --num_threads 128" timeout 60 \
    scripts/sanitize.sh /tmp/s38b/fa-bench wgmma_overlap > $OUT/sanitize_b.log 2>&1; echo "b sanitize rc=$? $(grep -c clean $OUT/sanitize_b.log) clean at $SECONDS s"
/tmp/s36g/fa-bench --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
s() { echo "--kernel wgmma_overlap --batch_size $1 --seqlen_q $2 --seqlen_k $3 --num_head 32 --num_head_kv 32,8 --head_dim 128"; }
python3 scripts/ab.py --build base=/tmp/s36g/fa-bench --build d64s6=/tmp/s38a/fa-bench --build d80s5=/tmp/s38b/fa-bench \
    --rounds 3 --deadline 150 --out $OUT/ab \
    --problem "$(s 64 1 8192)" --problem "$(s 8 1 32768)" --problem "$(s 1 1 131072)" --problem "$(s 16 16 8192)" > $OUT/ab.txt 2>&1
echo "ab rc=$? at $SECONDS s"; grep -E "geometric|round|deadline" $OUT/ab.txt; grep -v "round\|geometric\|deadline" $OUT/ab.txt | cut -c1-150
