#!/usr/bin/env bash
# Session 35 call A (a fresh one-chip H200; fa-bench's first call on one): the committed build (`s35`, 4766a45,
# device SASS md5 0b8d3f1e as session 34's) to /tmp/stash with the CuTe example and the cudnn-frontend wheel for
# calls D-E; the GPU's facts; --calibrate (this GPU's copy and GEMM peaks); the GPU tests, both parts; every rung
# at the default problem (4x16x8192x128, reference check on); issue #11's six points, FP8 against the bf16 top
# rungs, three rounds through ab.py (one build, --versus); --explain of the FP8 rung.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/stash
cp .exp/s35a.tar.xz .exp/cute/flash_attention_v2.py .whl/cudnn_fe/*.whl /tmp/stash/
tar -xJf .exp/s35a.tar.xz -C /tmp; N=/tmp/s35/fa-bench; T=/tmp/s35/fa_gpu_tests
nvidia-smi > $L/smi_full.txt 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.max.mem,power.draw,power.limit,temperature.gpu,memory.total --format=csv > $L/smi.txt
python3 -c "import torch; p = torch.cuda.get_device_properties(0); print('torch:', p.name, p.multi_processor_count, 'SMs, L2', p.L2_cache_size, 'B, memory', p.total_memory, 'B')" >> $L/smi.txt 2>&1
$N --version >> $L/smi.txt
( time timeout 90 $N --calibrate --peaks_file $L/peaks.csv ) > $L/calibrate.log 2>&1; echo "calibrate rc=$? at $SECONDS s"
( time timeout 150 $T "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$? $(grep -E 'assertions|FAILED' $L/gpu_tests.log | tail -2 | tr '\n' ' ') at $SECONDS s"
( time timeout 90 $T "[large]" ) > $L/gpu_tests_large.log 2>&1; echo "gpu tests [large] rc=$? $(grep -E 'assertions|FAILED' $L/gpu_tests_large.log | tail -2 | tr '\n' ' ') at $SECONDS s"
timeout 150 $N --kernel all --causal 0,1 --peaks_file $L/peaks.csv --csv $L/ladder_default.csv > $L/ladder_default.log 2>&1
echo "ladder rc=$? $(grep -c ',PASS,' $L/ladder_default.csv) PASS $(grep -c ',FAIL,' $L/ladder_default.csv) FAIL at $SECONDS s"
s() { echo "--batch_size $1 --num_head $2 --seqlen_q $3 --seqlen_k $3 --head_dim $4 --causal 0,1"; }
F8="--kernel wgmma_fp8 --dtype Float8E4M3FN"; BF="--kernel wgmma_overlap,wgmma_persistent --dtype BFloat16"
python3 scripts/ab.py --build s35=$N --rounds 3 --deadline $(( SECONDS < 420 ? 520 - SECONDS : 100 )) --out $L/ab --versus wgmma_fp8:wgmma_overlap,wgmma_persistent \
    --problem "$F8 $(s 4 16 8192 128)" --problem "$F8 $(s 1 16 16384 128)" --problem "$F8 $(s 1 16 16384 256)" \
    --problem "$BF $(s 4 16 8192 128)" --problem "$BF $(s 1 16 16384 128)" --problem "$BF $(s 1 16 16384 256)" > $L/ab.txt 2>&1
echo "ab rc=$? at $SECONDS s"; grep versus $L/ab.txt
timeout 30 $N --explain --kernel wgmma_fp8 --dtype Float8E4M3FN --peaks_file $L/peaks.csv > $L/explain_fp8.txt 2>&1
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
ls -la /tmp/stash; echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
