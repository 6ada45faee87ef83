#!/usr/bin/env bash
# Prepared in session 38, not run (no device time left): rung 10, mma_decode (results/nvidia-h200/session38/
# mma_decode.patch, on branch decode-proto: one 16-row band a CTA, its 4 warps splitting each 64-key
# tile, three CTAs an SM), never run on a GPU. Its build (fa-bench and fa_gpu_tests at 111879b, every
# other kernel's device code as HEAD's) is .exp/s38d.tar.xz. A fresh machine, carry
# [".exp/s38d.tar.xz"], ~350 s: the GPU tests (every kernel over the shape matrix, rung 10 included),
# compute-sanitizer on rung 10 (sanitize.sh's shapes and decode shapes: Sq 1 and 5, packed GQA,
# split-KV), then the decode grid with rungs 7, 9 and 10 and cuDNN (scripts/sweep.sh --grid decode), and
# rung 3's 64x64 tile at the anchors (does an sm80-style CTA, two an SM, read the cache faster?).
set -uo pipefail
tar -xJf .exp/s38d.tar.xz -C /; N=/tmp/s38d/fa-bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $OUT/smi.txt
( time timeout 170 /tmp/s38d/fa_gpu_tests "~[large]" ) > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(grep -E 'assertions|FAILED' $OUT/gpu_tests.log | tail -2 | tr '\n' ' ') at $SECONDS s"
DTYPES="BFloat16 Float16" HEAD_DIMS="128" timeout 90 scripts/sanitize.sh $N mma_decode > $OUT/sanitize.log 2>&1
echo "sanitize rc=$? $(grep -c clean $OUT/sanitize.log) clean at $SECONDS s"
for tool in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 99 $N --kernel mma_decode --batch_size 2 --seqlen_q 1,5 \
      --seqlen_k 4099 --num_head 8 --num_head_kv 8,2 --num_splits 1,3,0 --head_dim 128 --causal 0,1 \
      --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $OUT/sanitize_decode_$tool.log 2>&1
  echo "decode $tool rc=$? $(grep -c PASS $OUT/sanitize_decode_$tool.log) PASS rows"
done
$N --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
KERNELS=mma_decode,wgmma_overlap,wgmma_persistent PEERS=cudnn timeout 330 \
    scripts/sweep.sh --grid decode $N $OUT/decode > $OUT/sweep.log 2>&1
echo "sweep rc=$? at $SECONDS s"; tail -n 2 $OUT/sweep.log
# Rung 3's 64x64 tile (two CTAs an SM, 64 rows) at the anchors, beside rung 10 in the same CSV.
for s in "64 1 8192" "8 1 32768" "1 1 131072" "16 16 8192"; do
  set -- $s
  $N --kernel mma --m_block_size 64 --n_block_size 64 --num_threads 128 --batch_size $1 --seqlen_q $2 --seqlen_k $3 \
      --num_head 32 --num_head_kv 32,8 --head_dim 128 --csv $OUT/decode/decode.csv \
      --peaks_file $OUT/decode/peaks.csv > /dev/null 2>&1 || echo "rc=$? mma 64x64 $s"
done
echo "rung 3 64x64 done at $SECONDS s"
python3 scripts/plot.py $OUT/decode/decode.csv --decode-table --fa-bench $N 2>&1 | head -14
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $OUT/smi.txt
cd $OUT && tar -czf decode.tgz decode && rm -rf decode
