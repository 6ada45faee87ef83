#!/usr/bin/env bash
# Session 28 call 1: base = f314a59's kernels (device code identical but for a global's constant-bank
# offset); p2 = base with rung 8's 192 x 64 tile persistent (EXPERIMENT: session 27's p1 with the tiles
# from a global counter in fwd_grid's order, heaviest causal first, as rung 9); tl = base with clock64
# stamps per CTA (DIAGNOSTIC: entry, Q landed, each warpgroup's S(0), loop end, store done).
# GPU tests and sanitizers on p2; the timeline at four shapes; base / p2 A/B, two rounds.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s28a.tar.xz -C /tmp
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 150 /tmp/p2/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests_p2.log 2>&1; echo "gpu tests p2 rc=$? $(grep -E 'assertions|FAILED' $L/gpu_tests_p2.log | tail -2 | tr '\n' ' ') at $SECONDS s"
san() {  # binary tool args...
  local b=$1 t=$2; shift 2; local f=$L/san_${b}_${t}_$(echo "$*" | tr -d ' -' | cut -c1-60).log
  timeout 150 compute-sanitizer --tool $t --error-exitcode 99 /tmp/$b/fa-bench --kernel wgmma_fp8 --dtype Float8E4M3FN \
    --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 "$@" > $f 2>&1
  echo "$b $t [$*] rc=$? $(grep -E 'SUMMARY' $f | tail -1) $(grep -cE ' PASS ' $f) PASS $(grep -o 'tail split[^,]*' $f | head -1) at $SECONDS s"
}
for t in memcheck racecheck synccheck; do
  san p2 $t --batch_size 1 --num_head 32 --num_head_kv 16 --seqlen_q 1000 --seqlen_k 200 --head_dim 128 --causal 0,1 --m_block_size 192 --n_block_size 64 --num_threads 384
done
san p2 memcheck --batch_size 2 --num_head 16 --seqlen_q 2051 --seqlen_k 300 --head_dim 128 --causal 0,1 --m_block_size 192 --n_block_size 64 --num_threads 384
san p2 memcheck --batch_size 1 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --causal 1
timeout 60 /tmp/p2/fa-bench --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size 3 --num_head 6 --num_head_kv 3 --seqlen_q 3001 --seqlen_k 2777 \
  --head_dim 128 --causal 0,1 --m_block_size 192 --n_block_size 64 --num_threads 384 --iterations 3 --warmup_iterations 1 --warmup_time 0 --csv $L/odd_p2.csv > $L/odd_p2.log 2>&1
echo "odd p2 rc=$? $(grep -cE ' PASS ' $L/odd_p2.log) PASS $(grep -cE ' FAIL ' $L/odd_p2.log) FAIL"
/tmp/base/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
tls=("--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --causal 0" "--batch_size 2 --seqlen_q 16384 --seqlen_k 16384 --causal 0"
     "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --causal 1" "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --causal 1")
i=0
for s in "${tls[@]}"; do
  FA_FP8_TIMELINE=$L/timeline_$i.bin timeout 60 /tmp/tl/fa-bench $s --num_head 16 --head_dim 128 --kernel wgmma_fp8 --dtype Float8E4M3FN \
    --warmup_iterations 3 --warmup_time 0 --iterations 5 --skip_ref_check > $L/timeline_$i.log 2>&1
  echo "timeline $i [$s] rc=$? $(ls -la $L/timeline_$i.bin 2>&1 | awk '{print $5}') bytes"; i=$((i+1))
done
ab=("--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128 --causal 0"
    "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128 --causal 1"
    "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --causal 0"
    "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --causal 1"
    "--batch_size 2 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128 --causal 0"
    "--batch_size 4 --seqlen_q 4096 --seqlen_k 4096 --head_dim 128 --causal 0")
for round in 1 2; do
  order="base p2"; [[ $round == 2 ]] && order="p2 base"
  for s in "${ab[@]}"; do
    for b in $order; do
      timeout 60 /tmp/$b/fa-bench $s --num_head 16 --kernel wgmma_fp8 --dtype Float8E4M3FN --csv $L/ab_$b.csv >> $L/ab.log 2>&1
    done
  done
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
