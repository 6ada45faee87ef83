#!/usr/bin/env bash
# Session 20 call 12: rung 8 with both ways of getting Vᵀ (s20f): the pre-pass where seqlen_q x
# heads_per_kv >= 8,192, the in-kernel transpose below (call 11: the pre-pass lost 1-21 % at 512-2,048
# rows). GPU tests (the whole matrix and the new pre-pass case), compute-sanitizer on both paths at
# both head_dims, then the dispatch checked against the two single-path binaries in one call: FP8
# 32x16x512 and 8x16x2048 (in-kernel: as s20h = eed2954) and 4x16x8192 (pre-pass: as s20e), head_dim
# 128 and 256, causal 0 / 1, steady state (3 s warm-up, >= 1 s timed), one round.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/f /tmp/e /tmp/h
tar -xJf .exp/s20f.tar.xz -C /tmp/f; tar -xJf .exp/s20e.tar.xz -C /tmp/e; tar -xJf .exp/s20h.tar.xz -C /tmp/h
export PATH=/usr/local/cuda/bin:$PATH
F=/tmp/f/fa-bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 200 /tmp/f/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -3
for d in 128 256; do
  for sq in 4099 600; do
    for tool in memcheck racecheck synccheck; do
      timeout 100 compute-sanitizer --tool $tool --error-exitcode 99 $F --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size 1 --num_head 4 \
        --num_head_kv 2 --seqlen_q $sq --seqlen_k 777 --head_dim $d --causal 0,1 --skip_ref_check \
        --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $L/san_${tool}_${d}_$sq.log 2>&1
      echo "$tool d$d sq$sq rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/san_${tool}_${d}_$sq.log | tail -1)"
    done
  done
done
$F --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
W="--warmup_time 3 --gpu_warmup_time 3 --min_time 1"
for d in 128 256; do
  for s in 512 2048 8192; do
    (( SECONDS > 520 )) && { echo "time guard at $SECONDS s"; break 2; }
    ref=/tmp/h/fa-bench; [[ $s == 8192 ]] && ref=/tmp/e/fa-bench
    for b in $F $ref; do
      tag=f; [[ $b != $F ]] && tag=ref
      timeout 60 $b --batch_size $((32768 / s)) --num_head 16 --seqlen_q $s --seqlen_k $s --head_dim $d --causal 0,1 --kernel wgmma_fp8 \
        --dtype Float8E4M3FN $W --skip_ref_check --csv $L/st_$tag.csv >> $L/fa.log 2>&1
    done
  done
done
python3 - $L <<'PY'
import csv, sys, collections, os
L = sys.argv[1]
def load(f):
    out = {}
    if os.path.exists(f):
        for r in csv.DictReader(open(f)):
            if r['tflops']:
                out[(int(r['head_dim']), int(r['batch_size']), int(r['seqlen_q']), int(r['is_causal']))] = (float(r['tflops']), float(r['sm_clock_mean_mhz'] or 0))
    return out
f, ref = load(f'{L}/st_f.csv'), load(f'{L}/st_ref.csv')
for k in sorted(f):
    r = ref.get(k, (float('nan'), 0))
    print('d%d %dx%d causal %d' % k, f'dual {f[k][0]:.1f} ({f[k][1]:.0f} MHz)', f'single-path {r[0]:.1f} ({r[1]:.0f} MHz)', f'x{f[k][0] / r[0]:.3f}')
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
