#!/usr/bin/env bash
# Session 29 call 3: the peers' timing harness, old (HEAD 6ff9ee2's scripts/: each batch of 20 behind a spin
# kernel, waited for with torch.cuda.synchronize()) against new (pipelined batches, the spin kernel only where a
# launch is shorter than the backend's host cost) on the same kernels (SDPA's cuDNN and FA2), with fa-bench's
# rungs 3, 7, 9 beside them; non-causal bf16 at 2x32x8192x64, 4x16x8192x128, 32x16x512x128; two rounds,
# harness order alternating. Question: do the old harness's gaps give the peers' kernels a higher clock?
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/old; tar -xJf .exp/s29c.tar.xz -C /tmp; tar -xf .exp/s29_old_scripts.tar -C /tmp/old
N=/tmp/base/fa-bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
shapes=("--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64"
        "--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
        "--batch_size 32 --num_head 16 --seqlen_q 512 --seqlen_k 512 --head_dim 128")
for round in 1 2; do
  order="old new"; [[ $round == 2 ]] && order="new old"
  for s in "${shapes[@]}"; do
    timeout 60 $N $s --causal 0 --kernel mma,wgmma_overlap,wgmma_persistent --dtype BFloat16 --skip_ref_check --csv $L/fa.csv >> $L/fa.log 2>&1
    for h in $order; do
      d=scripts; [[ $h == old ]] && d=/tmp/old/scripts
      timeout 100 python3 $d/peers.py --backends cudnn,fa2 --dtype BFloat16 $s --causal 0 --fa-bench $N --csv $L/peers_$h.csv >> $L/peers_$h.log 2>&1
    done
  done
  echo "round $round at $SECONDS s"
done
python3 - $L <<'PY'
import csv, sys, statistics, collections, glob, os
L = sys.argv[1]
runs = collections.defaultdict(list)
for f in sorted(glob.glob(f'{L}/*.csv')):
    tag = os.path.basename(f)[:-4]
    for r in csv.DictReader(open(f)):
        if r['tflops']:
            runs[(r['head_dim'], r['batch_size'], r['seqlen_q'], r['kernel'], tag)].append(
                (float(r['tflops']), r['sm_clock_mean_mhz'], r['sm_clock_min_mhz'], r['power_w_mean'], r['iterations']))
for k, v in sorted(runs.items()):
    print(' '.join(k), round(statistics.median(x[0] for x in v), 1), [round(x[0], 1) for x in v], 'MHz', [x[1] for x in v],
          'min', [x[2] for x in v], 'W', [x[3] for x in v], 'n', [x[4] for x in v])
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
