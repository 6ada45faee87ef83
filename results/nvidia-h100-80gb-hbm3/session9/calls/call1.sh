#!/usr/bin/env bash
# Session 9 call 1: the 64-row decode tile (WgmmaWsD128Decode, rungs 6-7) — GPU tests of the new
# build, then A/B on the decode shapes (128-row vs 64-row tile of wgmma_overlap, rung 9), split
# counts past one wave, and GQA prefill with rung 9; cuDNN in the same call.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/new
tar -xJf .deps/bin.tar.xz -C /tmp/new; N=/tmp/new/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 240 /tmp/new/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; tail -n 4 $L/gpu_tests.log
$N --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1
C=$L/ab.csv
T128="--m_block_size 128 --n_block_size 128 --num_threads 256"
T64="--m_block_size 64 --n_block_size 128 --num_threads 128"
pt() { $N --dtype BFloat16 --head_dim 128 --num_head 32 --causal 0 --csv $C "$@" >> $L/ab.log 2>&1; }
for round in 1 2; do
  for shape in "64 1 8192" "8 1 32768" "16 16 8192" "1 1 131072"; do
    read -r B SQ SK <<< "$shape"
    for hkv in 32 8; do
      S="--batch_size $B --seqlen_q $SQ --seqlen_k $SK --num_head_kv $hkv"
      pt $S --kernel wgmma_overlap $T128
      pt $S --kernel wgmma_overlap $T64
      pt $S --kernel wgmma_ws $T64
      pt $S --kernel wgmma_persistent
    done
  done
done
echo "ab rc=$?"
# Split counts past one wave (decode tile, the default now)
pt --batch_size 1 --seqlen_q 1 --seqlen_k 131072 --num_head_kv 32 --kernel wgmma_overlap --num_splits 0,4,8,16,33,66
pt --batch_size 1 --seqlen_q 1 --seqlen_k 131072 --num_head_kv 8 --kernel wgmma_overlap --num_splits 0,16,32,33,66,132
pt --batch_size 8 --seqlen_q 1 --seqlen_k 32768 --num_head_kv 32 --kernel wgmma_overlap --num_splits 0,1,2,3,4,8
pt --batch_size 8 --seqlen_q 1 --seqlen_k 32768 --num_head_kv 8 --kernel wgmma_overlap --num_splits 0,1,2,3,4,8,16
pt --batch_size 16 --seqlen_q 16 --seqlen_k 8192 --num_head_kv 8 --kernel wgmma_overlap --num_splits 1,2,3,4,8
pt --batch_size 1 --seqlen_q 1 --seqlen_k 4096,16384 --num_head_kv 32,8 --kernel wgmma_overlap --num_splits 0,8,16,32,33
echo "splits rc=$?"
# GQA prefill: rung 7 and rung 9 against cuDNN
$N --dtype BFloat16 --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --num_head 32 --num_head_kv 32,8 --head_dim 128 \
   --causal 0,1 --kernel wgmma_overlap,wgmma_persistent --csv $L/gqa.csv > $L/gqa.log 2>&1
python3 scripts/peers.py --backends cudnn --fa-bench $N --csv $L/gqa.csv --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 \
   --num_head 32 --num_head_kv 32,8 --head_dim 128 --causal 0,1 >> $L/gqa.log 2>&1
python3 scripts/peers.py --backends cudnn --fa-bench $N --csv $C --batch_size 64 --seqlen_q 1 --seqlen_k 8192 \
   --num_head 32 --num_head_kv 32,8 --head_dim 128 --causal 0 >> $L/peers.log 2>&1
for shape in "8 1 32768" "16 16 8192" "1 1 131072"; do
  read -r B SQ SK <<< "$shape"
  python3 scripts/peers.py --backends cudnn --fa-bench $N --csv $C --batch_size $B --seqlen_q $SQ --seqlen_k $SK \
     --num_head 32 --num_head_kv 32,8 --head_dim 128 --causal 0 >> $L/peers.log 2>&1
done
echo "peers rc=$?"
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
