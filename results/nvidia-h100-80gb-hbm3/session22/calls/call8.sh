#!/usr/bin/env bash
# Session 22 call 8: s22B = d774e73 + the lazy row max on the bf16 Hopper rungs at head_dim 256
# (WgmmaTileD256::kLazyMax: a row's max rises only past 8 base-2 logits, and wgmma::rescale_o's warp
# vote skips O's 128-FMUL rescale, which at head_dim 256 runs after all the exponentials) against
# s22g (d774e73's fa-bench). GPU tests on s22B; rungs 7 and 9 on the FA2 grid's head_dim-256 rows,
# fa-bench's default timing rule, two rounds, order alternating.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b; tar -xJf .exp/s22h.tar.xz -C /tmp/b
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 150 /tmp/b/B/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests_B.log 2>&1; echo "gpu tests B rc=$?"; grep -E "passed|failed" $L/gpu_tests_B.log | tail -2
/tmp/b/g/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
for round in 1 2; do
  order="g B"; [[ $round == 2 ]] && order="B g"
  for bs in "32 512" "16 1024" "8 2048" "4 4096" "2 8192" "1 16384"; do
    set -- $bs
    (( SECONDS > 520 )) && { echo "time guard at $SECONDS s"; break 2; }
    for t in $order; do
      timeout 60 /tmp/b/$t/fa-bench --batch_size $1 --seqlen_q $2 --seqlen_k $2 --num_head 16 --head_dim 256 --kernel wgmma_overlap,wgmma_persistent \
        --causal 0,1 --csv $L/d256_$t.csv >> $L/fa.log 2>&1
    done
  done
  echo "round $round done at $SECONDS s"
done
python3 - $L <<'PY'
import csv, sys, statistics, collections
L = sys.argv[1]
def load(f):
    runs = collections.defaultdict(list)
    for r in csv.DictReader(open(f)):
        if r['tflops']: runs[(r['kernel'], int(r['seqlen_q']), int(r['is_causal']))].append((float(r['tflops']), float(r['sm_clock_mean_mhz'] or 0), r['check']))
    return runs
a, b = load(f'{L}/d256_g.csv'), load(f'{L}/d256_B.csv')
med = lambda xs, i: statistics.median(x[i] for x in xs)
for k in sorted(a):
    if k not in b: continue
    print('%s d256 S=%d causal %d' % k, f'g {med(a[k],0):.1f} ({med(a[k],1):.0f} MHz)', f'B {med(b[k],0):.1f} ({med(b[k],1):.0f} MHz) x{med(b[k],0)/med(a[k],0):.3f}',
          [round(x[0]) for x in a[k]], [round(x[0]) for x in b[k]], {x[2] for x in a[k] + b[k]})
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
