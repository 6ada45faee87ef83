#!/usr/bin/env bash
# Session 27 call 5: t4 = t3 + a named barrier between the merge flag's reads and store_o's writes over it
# (call 4's racecheck); p1 = t4 with the 192 x 64 row persistent (EXPERIMENT: one CTA per SM, tiles in a
# snake order, Q of the next tile loaded once the consumers hold this one's in registers, the ring's position
# running on; the tail chunks as in t4). GPU tests on both; racecheck on t4's tail; memcheck / racecheck /
# synccheck on p1 with more tiles than SMs; t4 / p1 A/B, two rounds; bf16 rungs at 1x16x16384x128.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; for b in t4 p1; do tar -xJf .exp/s27$b.tar.xz -C /tmp; done
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
for b in t4 p1; do
  ( time timeout 150 /tmp/$b/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests_$b.log 2>&1; echo "gpu tests $b rc=$? $(grep -E 'assertions|FAILED' $L/gpu_tests_$b.log | tail -2 | tr '\n' ' ') at $SECONDS s"
done
san() {  # binary tool args...
  local b=$1 t=$2; shift 2; local f=$L/san_${b}_${t}_$(echo "$*" | tr -d ' -' | cut -c1-60).log
  timeout 150 compute-sanitizer --tool $t --error-exitcode 99 /tmp/$b/fa-bench --kernel wgmma_fp8 --dtype Float8E4M3FN \
    --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 "$@" > $f 2>&1
  echo "$b $t [$*] rc=$? $(grep -E 'SUMMARY' $f | tail -1) $(grep -cE ' PASS ' $f) PASS $(grep -o 'tail split[^,]*' $f | head -1) at $SECONDS s"
}
san t4 racecheck --batch_size 1 --num_head 4 --num_head_kv 2 --seqlen_q 777 --seqlen_k 2100 --head_dim 128 --m_block_size 192 --n_block_size 64 --num_threads 384
for t in memcheck racecheck synccheck; do
  san p1 $t --batch_size 1 --num_head 32 --num_head_kv 16 --seqlen_q 1000 --seqlen_k 200 --head_dim 128 --causal 0,1 --m_block_size 192 --n_block_size 64 --num_threads 384
done
san p1 memcheck --batch_size 2 --num_head 16 --seqlen_q 2051 --seqlen_k 300 --head_dim 128 --causal 0,1 --m_block_size 192 --n_block_size 64 --num_threads 384
san p1 memcheck --batch_size 1 --num_head 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --causal 0
# odd shapes against the reference (fa-bench's GPU FP32 reference, default tile = 192 x 64 where the rule holds)
for b in t4 p1; do
  timeout 60 /tmp/$b/fa-bench --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size 3 --num_head 6 --num_head_kv 3 --seqlen_q 3001 --seqlen_k 2777 \
    --head_dim 128 --causal 0,1 --m_block_size 192 --n_block_size 64 --num_threads 384 --iterations 3 --warmup_iterations 1 --warmup_time 0 --csv $L/odd_$b.csv > $L/odd_$b.log 2>&1
  echo "odd $b rc=$? $(grep -cE ' PASS ' $L/odd_$b.log) PASS $(grep -cE ' FAIL ' $L/odd_$b.log) FAIL"
done
/tmp/t4/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
ab=("--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128 --causal 0"
    "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128 --causal 1"
    "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --causal 0"
    "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --causal 1"
    "--batch_size 4 --seqlen_q 4096 --seqlen_k 4096 --head_dim 128 --causal 0"
    "--batch_size 1 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --causal 0 --num_head 4")
for round in 1 2; do
  order="t4 p1"; [[ $round == 2 ]] && order="p1 t4"
  for s in "${ab[@]}"; do
    [[ $s == *"num_head"* ]] || s="$s --num_head 16"
    for b in $order; do
      timeout 60 /tmp/$b/fa-bench $s --kernel wgmma_fp8 --dtype Float8E4M3FN --csv $L/ab_$b.csv >> $L/ab.log 2>&1
    done
  done
  timeout 60 /tmp/t4/fa-bench --batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128 --num_head 16 --causal 0,1 --skip_ref_check --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --csv $L/bf16.csv >> $L/bf16.log 2>&1
  echo "ab round $round at $SECONDS s"
done
python3 - $L <<'PY'
import csv, sys, statistics, collections, glob, os
L = sys.argv[1]
runs = collections.defaultdict(list)
for f in sorted(glob.glob(f'{L}/*.csv')):
    tag = os.path.basename(f)[:-4]
    for r in csv.DictReader(open(f)):
        if r['tflops']:
            runs[(r['dtype'][:4], r['head_dim'], r['batch_size'], r['num_head'], r['seqlen_q'], r['is_causal'], r['kernel'], r['m_block_size'], tag)].append(
                (float(r['tflops']), r['sm_clock_mean_mhz'], r['check'], r['rel_l2_err'][:6], r['note'][:50]))
for k, v in sorted(runs.items()):
    print(' '.join(k), round(statistics.median(x[0] for x in v), 1), [x[0] for x in v], [x[1] for x in v], v[0][2:])
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
