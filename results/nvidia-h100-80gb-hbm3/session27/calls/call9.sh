#!/usr/bin/env bash
# Session 27 call 9: fin = the commit (t5's device code, md5-identical; the chunks' launch plain where every
# tile is split, programmatic only after a tiles' kernel). GPU tests; memcheck where every tile is split
# and where some are; 1x1x8192x256 and 1x4x8192x128 (all / some split), two rounds.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s27fin.tar.xz -C /tmp; N=/tmp/fin/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 150 /tmp/fin/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests_fin.log 2>&1; echo "gpu tests fin rc=$? $(grep -E 'assertions|FAILED' $L/gpu_tests_fin.log | tail -2 | tr '\n' ' ') at $SECONDS s"
for s in "--num_head 1 --head_dim 256" "--num_head 4 --head_dim 128"; do
  timeout 100 compute-sanitizer --tool memcheck --error-exitcode 99 $N --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size 1 $s \
    --seqlen_q 8192 --seqlen_k 8192 --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 2 > "$L/san_${s// /}.log" 2>&1
  echo "memcheck [$s] rc=$? $(grep -E 'SUMMARY' "$L/san_${s// /}.log" | tail -1) $(grep -cE ' PASS ' "$L/san_${s// /}.log") PASS $(grep -o 'tail split[^,]*' "$L/san_${s// /}.log" | head -1)"
done
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
for round in 1 2; do
  for s in "--num_head 1 --head_dim 256" "--num_head 4 --head_dim 128"; do
    timeout 60 $N --kernel wgmma_fp8 --dtype Float8E4M3FN --batch_size 1 $s --seqlen_q 8192 --seqlen_k 8192 --csv $L/fin.csv >> $L/fin.log 2>&1
  done
done
python3 -c "
import csv, statistics, collections
r = collections.defaultdict(list)
for x in csv.DictReader(open('$L/fin.csv')): r[(x['head_dim'], x['num_head'])].append((float(x['tflops']), x['check'], x['note']))
for k, v in r.items(): print(k, round(statistics.median(t for t, _, _ in v), 1), v)
"
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
