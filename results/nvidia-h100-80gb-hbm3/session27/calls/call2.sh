#!/usr/bin/env bash
# Session 27 call 2: tailx = the tail split (rung 8 cuts the grid's last wave, when at most half full, into
# key chunks merged in the kernel) + lpt_env.patch (FA_LPT_GROUP overrides the causal tile order's group, an
# experiment hook). GPU tests on tailx; memcheck / racecheck / synccheck on split launches (132 SMs: all 20-28
# tiles split) at both head_dims and both ways; then base vs tailx on the shapes the rule splits and controls,
# two rounds; the causal group at 4 / 8 / 16 (1x16x16384x128, 4x16x8192x128) and 2 / 4 / 8 / 16 (d256);
# the bf16 rungs 7 and 9 on issue #11's d128 shape.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; for b in base tailx; do tar -xJf .exp/s27$b.tar.xz -C /tmp; done; N=/tmp/tailx/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 150 /tmp/tailx/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests_tailx.log 2>&1; echo "gpu tests tailx rc=$? $(grep -E 'assertions' $L/gpu_tests_tailx.log | tail -1) at $SECONDS s"
san() {  # tool head_dim tile-flags
  timeout 100 compute-sanitizer --tool $1 --error-exitcode 99 $N --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size 1 \
    --seqlen_q $4 --seqlen_k 2100 --head_dim $2 $3 --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 > $L/san_$1_$2_$4_${3// /}.log 2>&1
  echo "$1 d$2 sq$4 [$3] rc=$? $(grep -E 'SUMMARY' $L/san_$1_$2_$4_${3// /}.log | tail -1) $(grep -cE ' PASS ' $L/san_$1_$2_$4_${3// /}.log) PASS $(grep -o 'tail split[^,]*' $L/san_$1_$2_$4_${3// /}.log | head -1) at $SECONDS s"
}
for t in memcheck racecheck synccheck; do
  san $t 128 "--num_head 4 --num_head_kv 2" 777; san $t 128 "--num_head 4 --num_head_kv 2 --m_block_size 192 --n_block_size 64 --num_threads 384" 777
  san $t 256 "--num_head 4 --num_head_kv 2" 777; san $t 128 "--num_head 2 --num_head_kv 1 --m_block_size 128 --n_block_size 128 --num_threads 256" 2051; san $t 256 "--num_head 2 --num_head_kv 1" 2051
done
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
ab=("--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128 --causal 0"
    "--batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --causal 0"
    "--batch_size 1 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --causal 0 --num_head 1"
    "--batch_size 1 --seqlen_q 8192 --seqlen_k 8192 --head_dim 256 --causal 0 --num_head 1"
    "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --causal 0"
    "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128 --causal 1")
for round in 1 2; do
  for s in "${ab[@]}"; do
    [[ $s == *"num_head 1"* ]] || s="$s --num_head 16"
    for b in base tailx; do
      timeout 60 /tmp/$b/fa-bench $s --kernel wgmma_fp8 --dtype Float8E4M3FN --csv $L/ab_$b.csv >> $L/ab.log 2>&1
    done
  done
  echo "ab round $round at $SECONDS s"
done
for round in 1 2; do
  for g in 4 8 16 2; do
    FA_LPT_GROUP=$g timeout 60 $N --batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128 --num_head 16 --causal 1 --kernel wgmma_fp8 --dtype Float8E4M3FN --csv $L/lpt_$g.csv >> $L/lpt.log 2>&1
    FA_LPT_GROUP=$g timeout 60 $N --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128 --num_head 16 --causal 1 --kernel wgmma_fp8 --dtype Float8E4M3FN --csv $L/lpt_$g.csv >> $L/lpt.log 2>&1
    FA_LPT_GROUP=$g timeout 60 $N --batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256 --num_head 16 --causal 1 --kernel wgmma_fp8 --dtype Float8E4M3FN --csv $L/lpt_$g.csv >> $L/lpt.log 2>&1
  done
  timeout 60 $N --batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128 --num_head 16 --causal 0,1 --skip_ref_check --kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --csv $L/bf16.csv >> $L/bf16.log 2>&1
  echo "lpt round $round at $SECONDS s"
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
                (float(r['tflops']), r['sm_clock_mean_mhz'], r['check'], r['rel_l2_err'][:6], r['waves'], r['note'][:60]))
for k, v in sorted(runs.items()):
    print(' '.join(k), round(statistics.median(x[0] for x in v), 1), [x[0] for x in v], [x[1] for x in v], v[0][2:])
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
