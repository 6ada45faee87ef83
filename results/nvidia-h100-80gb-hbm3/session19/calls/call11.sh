#!/usr/bin/env bash
# Session 19 call 11: does sharing K/V between two CTAs cut the energy per launch? s19p = HEAD with
# session 17's CTA-pair experiment (commit 8637f3f, -DFA_WS_PAIRS=1: rungs 6-7 on 2-CTA clusters
# that multicast each K/V tile, non-causal, even row-block counts) re-applied; s19e = the same
# kernels without it. Rung 7 (wgmma_overlap) both ways, rung 9 for reference, in steady state
# (3 s warm-up, >= 1 s timed, so energy_mj is measured), four non-causal points, two rounds, order
# alternating; round 1 reference-checked.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/e /tmp/p
tar -xJf .exp/s19e.tar.xz -C /tmp/e; tar -xJf .exp/s19p.tar.xz -C /tmp/p
export PATH=/usr/local/cuda/bin:$PATH
/tmp/e/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
W="--warmup_time 3 --gpu_warmup_time 3 --min_time 1"
points=("--batch_size 32 --num_head 16 --seqlen_q 512 --seqlen_k 512 --head_dim 128"
        "--batch_size 32 --num_head 16 --seqlen_q 512 --seqlen_k 512 --head_dim 256"
        "--batch_size 16 --num_head 16 --seqlen_q 1024 --seqlen_k 1024 --head_dim 128"
        "--batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128")
for round in 1 2; do
  chk=--skip_ref_check; [[ $round == 1 ]] && chk=
  for s in "${points[@]}"; do
    if [[ $SECONDS -gt 500 ]]; then echo "time guard at $SECONDS s"; break 2; fi
    base() { timeout 60 /tmp/e/fa-bench $s --kernel wgmma_overlap,wgmma_persistent $W $chk --csv $L/base.csv >> $L/fa.log 2>&1; }
    pair() { timeout 60 /tmp/p/fa-bench $s --kernel wgmma_overlap $W $chk --csv $L/pairs.csv >> $L/fa.log 2>&1; }
    if [[ $round == 1 ]]; then base; pair; else pair; base; fi
  done
  echo "round $round done at $SECONDS s"
done
python3 - $L <<'PY'
# Per point: rung 7 with and without pairs and rung 9, each as median TFLOP/s, MHz and GFLOP/J over
# the rounds, and the pairs' ratios to rung 7 alone.
import csv, sys, statistics
L = sys.argv[1]
rows = [dict(r, variant='pairs') for r in csv.DictReader(open(f'{L}/pairs.csv'))] + \
       [dict(r, variant=r['kernel']) for r in csv.DictReader(open(f'{L}/base.csv'))]
def med(point, variant, column):
    xs = [float(r[column]) for r in rows if r['variant'] == variant and r[column] and
          (r['head_dim'], r['batch_size'], r['seqlen_q']) == point]
    return statistics.median(xs) if xs else float('nan')
for point in sorted({(r['head_dim'], r['batch_size'], r['seqlen_q']) for r in rows}, key=lambda p: tuple(map(int, p))):
    cells = {v: (med(point, v, 'tflops'), med(point, v, 'sm_clock_mean_mhz'), med(point, v, 'gflop_per_j'))
             for v in ('wgmma_overlap', 'pairs', 'wgmma_persistent')}
    base, pair = cells['wgmma_overlap'], cells['pairs']
    print('d%s %sx%s' % point, '; '.join(f'{v}: {t:.1f} TF, {c:.0f} MHz, {g:.0f} GF/J' for v, (t, c, g) in cells.items()),
          f'| pairs / rung 7: TFLOP/s {pair[0] / base[0]:.3f}x, energy per launch {base[2] / pair[2]:.3f}x',
          '| checks', sorted({r['check'] for r in rows if (r['head_dim'], r['batch_size'], r['seqlen_q']) == point}))
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
