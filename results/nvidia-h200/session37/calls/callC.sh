#!/usr/bin/env bash
# Session 37 call C (a fresh machine; fa-bench builds only, no peer). Calls A-B's grid leaves head_dim 128
# non-causal short of FA4 at 4k-16k (0.971-0.997x), where rungs 7 and 9 run the 160-key tile.
# 1. Rungs 7 and 9 there on the 128-key tile (--n_block_size 128) beside the 160-key one: since session
#    36 rung 9's 128-key tile computes the exponents' arguments first (+0.6-1.5 % causal), and 8,192
#    keys leave a 32-key last tile at 160.
# 2. Build x: rung 9's 128-key tile (PersistentD128) without the -inf start (kNegInfStart = false: +1.1-
#    1.6 % at head_dim 128 non-causal on the other tiles in session 31; -1.2 % causal on this one then,
#    before kArgsFirst), against base (HEAD bc56da5's device code, .exp/s36g.tar.xz). The 160-key rows
#    are the same kernels in both builds: their ratio is the call's noise.
# ab.py, three rounds (one with the reference check), order rotating.
set -uo pipefail
tar -xJf .exp/s36g.tar.xz -C /tmp; tar -xJf .exp/s37c.tar.xz -C /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $OUT/smi.txt
/tmp/s36g/fa-bench --kernel wgmma_overlap --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
s() { echo "--kernel $1 --dtype BFloat16 --batch_size $2 --num_head 16 --seqlen_q $3 --seqlen_k $3 --head_dim 128 --causal $4 --m_block_size 128 --num_threads 256 --n_block_size $5"; }
K=wgmma_overlap,wgmma_persistent
python3 scripts/ab.py --build base=/tmp/s36g/fa-bench --build x=/tmp/s37c/x/fa-bench \
    --rounds 3 --deadline 400 --out $OUT/ab \
    --problem "$(s $K 2 8192 0 128,160)" --problem "$(s $K 1 16384 0 128,160)" \
    --problem "$(s $K 4 4096 0 128,160)" --problem "$(s $K 4 8192 0 128,160)" \
    --problem "$(s wgmma_persistent 2 8192 1 128)" --problem "$(s wgmma_persistent 1 16384 1 128)" > $OUT/ab.txt 2>&1
echo "ab rc=$? at $SECONDS s"; grep -E "geometric|round" $OUT/ab.txt
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $OUT/smi.txt
