#!/usr/bin/env bash
# Session 14 call 11: a 48-key head_dim-256 tile on rung 9 only, where 2 stages of 48 keys (96 KB) leave room for its second Q buffer (2 x 64 KB): Q(i+1) loads under tile i as at d128
# (226 KiB), bf16, selectable by tile only (binary s14g, .deps/s14g.tar.xz, stripped, xz -9e). GPU
# tests; compute-sanitizer on it (bf16 d256, Sq 300 x Sk 777); then d256, 16 heads, 32x512,
# 16x1024, 8x2048, causal 0 and 1, rung 9 at 80 and 48 keys, 5 + 30 launches with no idle warm-up
# on either side, three rounds, order alternating, cuDNN per shape per round; then one round on the
# default rule (steady state) at 32x512 and 16x1024 with cuDNN.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b
tar -xJf .deps/s14g.tar.xz -C /tmp/b; N=/tmp/b/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 300 /tmp/b/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -3
FA_ARGS="--m_block_size 128 --n_block_size 48 --num_threads 256" DTYPES=BFloat16 HEAD_DIMS=256 \
  timeout 150 scripts/sanitize.sh $N wgmma_persistent > $L/sanitize.log 2>&1; echo "sanitize rc=$? clean=$(grep -c clean $L/sanitize.log) of $(wc -l < $L/sanitize.log)"
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1
SHAPES=("--batch_size 32 --seqlen_q 512 --seqlen_k 512" "--batch_size 16 --seqlen_q 1024 --seqlen_k 1024" "--batch_size 8 --seqlen_q 2048 --seqlen_k 2048")
declare -A V
V[a]="--m_block_size 128 --n_block_size 80 --num_threads 256"
V[b]="--m_block_size 128 --n_block_size 48 --num_threads 256"
ORDERS=("a b" "b a" "a b")
C="--kernel wgmma_persistent --num_head 16 --head_dim 256 --causal 0,1 --dtype BFloat16"
B="--iterations 30 --warmup_iterations 5 --warmup_time 0 --gpu_warmup_time 0"
for round in 1 2 3; do
  chk=--skip_ref_check; [[ $round == 1 ]] && chk=
  for s in "${SHAPES[@]}"; do
    for v in ${ORDERS[$((round - 1))]}; do $N $chk $C $B ${V[$v]} $s --csv $L/ab.csv >> $L/ab.log 2>&1 || echo "FAIL $v $s"; done
    timeout 60 python3 scripts/peers.py --backends cudnn $B --num_head 16 --head_dim 256 --causal 0,1 --dtype BFloat16 --fa-bench $N --csv $L/ab.csv $s >> $L/peers.log 2>&1 || echo "peer FAIL"
  done
done
for s in "${SHAPES[@]:0:2}"; do
  for v in a b; do $N --skip_ref_check $C ${V[$v]} $s --csv $L/steady.csv >> $L/ab.log 2>&1; done
  timeout 60 python3 scripts/peers.py --backends cudnn --num_head 16 --head_dim 256 --causal 0,1 --dtype BFloat16 --fa-bench $N --csv $L/steady.csv $s >> $L/peers.log 2>&1
done
python3 - $L <<'PY'
import csv, sys, statistics, collections
for f in ('ab.csv', 'steady.csv'):
    runs = collections.defaultdict(list); chk = collections.defaultdict(set)
    for r in csv.DictReader(open(f'{sys.argv[1]}/{f}')):
        if not r['tflops']: continue
        name = r['kernel'] if r['kernel'].startswith('torch') else f"{r['kernel'][6:]}@{r['n_block_size']}"
        k = (int(r['seqlen_q']), r['is_causal'])
        runs[k, name].append((float(r['tflops']), float(r['sm_clock_mean_mhz'] or 0)))
        if r['check']: chk[k, name].add(r['check'])
    print(f)
    for k in sorted({k for k, _ in runs}):
        cud = statistics.median(t for t, _ in runs[k, 'torch_cudnn'])
        print(f"  S={k[0]} causal={k[1]} cuDNN {cud:.0f}")
        for n in sorted({n for kk, n in runs if kk == k and not n.startswith('torch')}):
            v = runs[k, n]; m = statistics.median(t for t, _ in v)
            print(f"    {n:16s} {m:6.1f} @{statistics.median(c for _, c in v):5.0f} /cuDNN {m / cud:5.3f}  {' '.join(f'{t:.0f}' for t, _ in v)} {' '.join(sorted(chk[k, n]))}")
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
