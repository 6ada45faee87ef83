#!/usr/bin/env bash
# Session 19 call 4: rung 8 (FP8) without the consumers' issue token (s19b: FA_FP8_PINGPONG=0, both
# warpgroups issue their batches as soon as their operands are ready; the rings' barriers are
# unchanged), and the same with the ldmatrix.trans / stmatrix V transpose at head_dim 128 too (s19c:
# kTransposeLdsm = true in WgmmaFp8D128), against s19a (the token, as committed). Issue #11's shapes plus 2x16x8192x256, causal 0
# and 1, each row on the default timing rule (warm-up, then the stopping rule: the 700 W clock), two
# rounds, binaries rotating; round 1 checks every row against the reference.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/a /tmp/b /tmp/c
tar -xJf .exp/s19a.tar.xz -C /tmp/a; tar -xJf .exp/s19b.tar.xz -C /tmp/b; tar -xJf .exp/s19c.tar.xz -C /tmp/c
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
/tmp/a/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
shapes=("--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
        "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
        "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --head_dim 256"
        "--batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --head_dim 256")
for round in 1 2; do
  order="a b c"; [[ $round == 2 ]] && order="c b a"
  chk=--skip_ref_check; [[ $round == 1 ]] && chk=
  for s in "${shapes[@]}"; do
    for v in $order; do
      timeout 60 /tmp/$v/fa-bench $s --num_head 16 --causal 0,1 --kernel wgmma_fp8 --dtype Float8E4M3FN $chk \
        --csv $L/ab_$v.csv >> $L/fa.log 2>&1 || echo "rc=$? $v $s"
    done
  done
  echo "round $round done at $SECONDS s"
done
python3 - $L <<'PY'
import csv, sys, statistics, collections
L = sys.argv[1]
runs = collections.defaultdict(list)
for v in 'abc':
    for r in csv.DictReader(open(f'{L}/ab_{v}.csv')):
        runs[(r['head_dim'], r['batch_size'], r['seqlen_q'], r['is_causal'], v)].append(
            (float(r['tflops'] or 0), r['sm_clock_mean_mhz'][:4], r['check'], r['rel_l2_err'][:6]))
for k in sorted({k[:4] for k in runs}):
    med = {v: statistics.median(t for t, *_ in runs[k + (v,)]) for v in 'abc' if runs.get(k + (v,))}
    print(' '.join(k), ' '.join(f'{v} {m:.1f} ({m / med["a"]:.3f}x)' for v, m in med.items()), '|',
          ' | '.join(v + ' ' + ' '.join(f'{t:.0f}@{c}{x}/{e}' for t, c, x, e in runs[k + (v,)]) for v in med))
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
