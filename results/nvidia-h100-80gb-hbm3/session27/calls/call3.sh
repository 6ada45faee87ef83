#!/usr/bin/env bash
# Session 27 call 3: c1 = tailx with the tail decode branch-free (grid_part); skip = c1 + each consumer
# warpgroup of the pre-pass ways computes only the key tiles its own rows see (causal diagonal, rows past
# seqlen_q) and releases the rest unread. GPU tests and memcheck / racecheck / synccheck on skip; base / c1 /
# skip A/B on issue #11's shapes, two rounds (order rotating); the bf16 rungs 7 and 9 at 1x16x16384x128.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; for b in base c1 skip; do tar -xJf .exp/s27$b.tar.xz -C /tmp; done; N=/tmp/skip/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 150 /tmp/skip/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests_skip.log 2>&1; echo "gpu tests skip rc=$? $(grep -E 'assertions' $L/gpu_tests_skip.log | tail -1) at $SECONDS s"
san() {  # tool head_dim flags sq
  local f=$L/san_$1_$2_$4_${3// /}.log
  timeout 100 compute-sanitizer --tool $1 --error-exitcode 99 $N --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size 1 \
    --seqlen_q $4 --seqlen_k 2100 --head_dim $2 $3 --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $f 2>&1
  echo "$1 d$2 sq$4 [$3] rc=$? $(grep -E 'SUMMARY' $f | tail -1) $(grep -cE ' PASS ' $f) PASS $(grep -o 'tail split[^,]*' $f | head -1) at $SECONDS s"
}
for t in memcheck racecheck synccheck; do
  san $t 128 "--num_head 4 --num_head_kv 2 --causal 1" 2051; san $t 256 "--num_head 4 --num_head_kv 2 --causal 1" 2051
  san $t 128 "--num_head 4 --num_head_kv 2 --causal 0" 777
done
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
ab=("--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128 --causal 1"
    "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128 --causal 0"
    "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --causal 1"
    "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --causal 0"
    "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256 --causal 1")
for round in 1 2; do
  order="base c1 skip"; [[ $round == 2 ]] && order="skip c1 base"
  for s in "${ab[@]}"; do
    for b in $order; do
      timeout 60 /tmp/$b/fa-bench $s --num_head 16 --kernel wgmma_fp8 --dtype Float8E4M3FN --csv $L/ab_$b.csv >> $L/ab.log 2>&1
    done
  done
  timeout 60 $N --batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128 --num_head 16 --causal 0,1 --skip_ref_check --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --csv $L/bf16.csv >> $L/bf16.log 2>&1
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
            runs[(r['dtype'][:4], r['head_dim'], r['batch_size'], r['seqlen_q'], r['is_causal'], r['kernel'], r['m_block_size'], tag)].append(
                (float(r['tflops']), r['sm_clock_mean_mhz'], r['check'], r['rel_l2_err'][:6], r['note'][:50]))
for k, v in sorted(runs.items()):
    print(' '.join(k), round(statistics.median(x[0] for x in v), 1), [x[0] for x in v], [x[1] for x in v], v[0][2:])
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
