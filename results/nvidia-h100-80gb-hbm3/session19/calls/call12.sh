#!/usr/bin/env bash
# Session 19 call 12: does the tensor layout move the energy per launch? fa-bench's default layout
# is bshd (the CuTe example's: a head's rows 2 * H * D bytes apart), while peers.py hands SDPA
# (cuDNN, FA2) contiguous bhsd tensors. Rungs 7 and 9 (s19e) with --layout bshd and bhsd, steady
# state with energy (3 s warm-up, >= 1 s timed), three non-causal points, two rounds, order
# alternating; round 1 reference-checked.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/e
tar -xJf .exp/s19e.tar.xz -C /tmp/e; N=/tmp/e/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
W="--warmup_time 3 --gpu_warmup_time 3 --min_time 1"
points=("--batch_size 32 --num_head 16 --seqlen_q 512 --seqlen_k 512 --head_dim 128"
        "--batch_size 32 --num_head 16 --seqlen_q 512 --seqlen_k 512 --head_dim 256"
        "--batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128")
for round in 1 2; do
  chk=--skip_ref_check; [[ $round == 1 ]] && chk=
  order="bshd bhsd"; [[ $round == 2 ]] && order="bhsd bshd"
  for s in "${points[@]}"; do
    for layout in $order; do
      timeout 60 $N $s --layout $layout --kernel wgmma_overlap,wgmma_persistent $W $chk --csv $L/layout.csv >> $L/fa.log 2>&1
    done
  done
  echo "round $round done at $SECONDS s"
done
python3 - $L/layout.csv <<'PY'
# Per point and kernel: bshd and bhsd as median TFLOP/s, MHz and GFLOP/J over the rounds.
import csv, sys, statistics
rows = list(csv.DictReader(open(sys.argv[1])))
def med(sel, column):
    xs = [float(r[column]) for r in rows if sel(r) and r[column]]
    return statistics.median(xs) if xs else float('nan')
for point in sorted({(r['head_dim'], r['batch_size'], r['seqlen_q']) for r in rows}):
    for kernel in ('wgmma_overlap', 'wgmma_persistent'):
        out = []
        for layout in ('bshd', 'bhsd'):
            sel = lambda r: (r['head_dim'], r['batch_size'], r['seqlen_q'], r['kernel'], r['layout']) == point + (kernel, layout)
            out.append(f"{layout} {med(sel, 'tflops'):.1f} TF {med(sel, 'sm_clock_mean_mhz'):.0f} MHz {med(sel, 'gflop_per_j'):.0f} GF/J")
        print('d%s %sx%s' % point, kernel, ' | '.join(out),
              sorted({r['check'] for r in rows if (r['head_dim'], r['batch_size'], r['seqlen_q']) == point}))
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
