#!/usr/bin/env bash
# Session 14 call 1: wider key tiles at head_dim 128 (issue #10). Binary s14a (.deps/s14a.tar.xz):
# rungs 6-7 with 128x160x256 and 128x176x256 (2 stages) beside their 128x128x256, rung 9 with
# 128x160x256 (2 stages, 2 Q buffers) beside its 128x128x256; kernels otherwise session 13's.
# GPU tests (with the new long-key-rows case) first; then bf16 d128 at 16 heads, 5 + 30 launches
# (the FA2 grid's rule), causal 0 and 1, three rounds with the tile order rotating, cuDNN per shape
# per round.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b
tar -xJf .deps/s14a.tar.xz -C /tmp/b; N=/tmp/b/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 240 /tmp/b/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -3
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1
SHAPES=("--batch_size 32 --seqlen_q 512 --seqlen_k 512" "--batch_size 8 --seqlen_q 2048 --seqlen_k 2048"
        "--batch_size 4 --seqlen_q 4096 --seqlen_k 4096" "--batch_size 2 --seqlen_q 8192 --seqlen_k 8192"
        "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192" "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384")
declare -A V
V[a]="--kernel wgmma_overlap,wgmma_persistent"
V[b]="--kernel wgmma_overlap,wgmma_persistent --m_block_size 128 --n_block_size 160 --num_threads 256"
V[c]="--kernel wgmma_overlap --m_block_size 128 --n_block_size 176 --num_threads 256"
ORDERS=("a b c" "b c a" "c a b")
COMMON="--iterations 30 --warmup_iterations 5 --warmup_time 0 --gpu_warmup_time 0.3 --num_head 16 --head_dim 128 --causal 0,1 --dtype BFloat16"
for round in 1 2 3; do
  chk=--skip_ref_check; [[ $round == 1 ]] && chk=
  for shape in "${SHAPES[@]}"; do
    for v in ${ORDERS[$((round - 1))]}; do
      $N $chk $COMMON ${V[$v]} $shape --csv $L/ab.csv >> $L/ab.log 2>&1 || echo "FAIL $v $shape"
    done
    timeout 60 python3 scripts/peers.py --backends cudnn --iterations 30 --warmup_iterations 5 --warmup_time 0 \
      --num_head 16 --head_dim 128 --causal 0,1 --dtype BFloat16 --fa-bench $N --csv $L/ab.csv $shape >> $L/peers.log 2>&1 || echo "peer FAIL $shape"
  done
  echo "round $round done"
done
python3 - $L/ab.csv <<'PY'
import csv, sys, statistics, collections
runs = collections.defaultdict(list); chk = collections.defaultdict(set)
for r in csv.DictReader(open(sys.argv[1])):
    if not r['tflops']: continue
    k = (int(r['seqlen_q']), r['batch_size'], r['is_causal'])
    name = r['kernel'] if r['kernel'].startswith('torch') else f"{r['kernel'][6:]}@{r['n_block_size']}"
    runs[k, name].append((float(r['tflops']), float(r['sm_clock_mean_mhz'] or 0)))
    if r['check']: chk[k, name].add(r['check'] + ' ' + r['rel_l2_err'][:7])
shapes = sorted({k for k, _ in runs}); names = sorted({n for _, n in runs})
for k in shapes:
    cud = statistics.median(t for t, _ in runs.get((k, 'torch_cudnn'), [(float('nan'), 0)]))
    print(f"S={k[0]} B={k[1]} causal={k[2]}  cuDNN {cud:.0f}")
    for n in names:
        if (k, n) not in runs or n.startswith('torch'): continue
        v = runs[k, n]; m = statistics.median(t for t, _ in v); c = statistics.median(c for _, c in v)
        print(f"   {n:22s} {m:6.1f} @{c:5.0f}  /cuDNN {m / cud:5.3f}  rounds {' '.join(f'{t:.0f}' for t, _ in v)}  {' '.join(sorted(chk[k, n]))}")
PY
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
