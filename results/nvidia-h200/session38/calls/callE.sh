#!/usr/bin/env bash
# Session 38 call E: why the top rungs read the KV cache at ~0.93x cuDNN's rate on the H200 (call D): the
# decode anchors on rungs 7 and 9 with bshd (fa-bench's default, FA4's) and bhsd (the layout
# PyTorch's SDPA backends run: peers.py's torch_sdpa) tensors, and rung 7 on its 128-row tile
# instead of the 64-row decode tile. HEAD's device code (.exp/s36g.tar.xz); a fresh machine.
set -uo pipefail
tar -xJf .exp/s36g.tar.xz -C /tmp; N=/tmp/s36g/fa-bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $OUT/smi.txt
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
pt() { echo "--batch_size $1 --seqlen_q $2 --seqlen_k $3 --num_head 32 --num_head_kv 32,8 --head_dim 128"; }
for layout in bshd bhsd; do
  for s in "64 1 8192" "8 1 32768" "1 1 131072" "16 16 8192"; do
    $N $(pt $s) --layout $layout --kernel wgmma_overlap,wgmma_persistent --csv $OUT/e.csv > /dev/null 2>&1 || echo "rc=$? $layout $s"
  done
done
for s in "64 1 8192" "8 1 32768" "1 1 131072" "16 16 8192"; do
  $N $(pt $s) --kernel wgmma_overlap --m_block_size 128 --n_block_size 128 --num_threads 256 --csv $OUT/e.csv > /dev/null 2>&1 || echo "rc=$? m128 $s"
done
echo "done at $SECONDS s"
python3 - <<'P'
import csv, os
for r in csv.DictReader(open(os.environ['OUT'] + '/e.csv')):
    print(r['kernel'][:16].ljust(16), r['layout'], r['batch_size'], r['seqlen_q'], r['seqlen_k'], r['num_head_kv'],
          r['m_block_size'], r['num_splits'], r['pack_gqa'], round(float(r['time_ms_median']) * 1000, 1),
          round(float(r['bandwidth_gbs'])), r['sm_clock_mean_mhz'], r['power_w_mean'])
P
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $OUT/smi.txt
