#!/usr/bin/env bash
# Prepared in session 38, not run (the device time left could not start a machine): does an
# sm80-style CTA (cuDNN's decode kernel is one: call F) read the KV cache faster here? Rung 3
# (`mma`: mma.sync, cp.async, 64x64x128 at 80 KiB, two CTAs an SM, split-KV and packed GQA) at the
# decode anchors beside rung 7's decode tile, one pass. HEAD's device code. A fresh machine, carry
# [".exp/s36g.tar.xz"], ~60 s.
set -uo pipefail
tar -xJf .exp/s36g.tar.xz -C /tmp; N=/tmp/s36g/fa-bench
$N --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
pt() { echo "--batch_size $1 --seqlen_q $2 --seqlen_k $3 --num_head 32 --num_head_kv 32,8 --head_dim 128"; }
for s in "64 1 8192" "8 1 32768" "1 1 131072" "16 16 8192"; do
  $N $(pt $s) --kernel wgmma_overlap --csv $OUT/h.csv > /dev/null 2>&1 || echo "rc=$? w7 $s"
  $N $(pt $s) --kernel mma --m_block_size 64 --n_block_size 64 --num_threads 128 --csv $OUT/h.csv > /dev/null 2>&1 || echo "rc=$? mma $s"
done
echo "done at $SECONDS s"
python3 - <<'P'
import csv, os
for r in csv.DictReader(open(os.environ['OUT'] + '/h.csv')):
    print(r['kernel'][:14].ljust(14), r['batch_size'], r['seqlen_q'], r['seqlen_k'], r['num_head_kv'], r['m_block_size'],
          r['n_block_size'], r['num_splits'], r['pack_gqa'], round(float(r['time_ms_median']) * 1000, 1),
          round(float(r['bandwidth_gbs'])), r['sm_clock_mean_mhz'], r['power_w_mean'], r['check'])
P
