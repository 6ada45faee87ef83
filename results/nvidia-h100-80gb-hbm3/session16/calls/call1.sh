#!/usr/bin/env bash
# Session 16 call 1: issue #13's d64 gap on the mma rung. Binaries (.exp/s16a.tar.xz, not committed):
# head = c730582; v0 = softmax_fragment.cuh split into a max half (softmax_max_fragment) and an
# exponent half, same order of work (rungs 3 and 4 rebuilt); v1 = mma computes each k16 step's
# exponentials inside the P·V loop (softmax_exp_kstep); v2 = V's copies issued with K's after Q·Kᵀ
# (no branch between softmax and P·V); v3 = v1 + v2; v5 = v1 with the exponentials one k16 step
# ahead of the MMAs in source order; v7 = v3 + that. Default timing rule (steady state), three
# rounds at 2x32x8192x64, order rotated; d128 shapes for head, v0, v1, v3; warp_specialized for
# head and v0. Reference check on round 1.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/x
tar -xJf .exp/s16a.tar.xz -C /tmp/x
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
cuobjdump -sass -fun '_ZN2fa41_GLOBAL__N__d45e92a8_9_03_mma_cu_c9b13cb614mma_fwd_kernelINS0_9MmaTraitsI13__nv_bfloat16Li64ELi128ELi64ELi4EEEEEvNS_9FwdParamsE' /tmp/x/fa-bench-v1 > $L/v1_d64.sass 2>&1 || true
cuobjdump -sass /tmp/x/fa-bench-head 2>/dev/null | awk '/Function : .*03_mma.*Li64ELi128ELi64ELi4/{p=1} p&&/Function : /&&!/Li64ELi128ELi64ELi4/{p=0} p' > $L/head_d64.sass || true
/tmp/x/fa-bench-head --kernel mma --iterations 300 --skip_ref_check > /dev/null 2>&1
D64="--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64"
A="--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
C="--batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
for round in 1 2 3; do
  order="head v0 v1 v2 v3 v5 v7"; [[ $round == 2 ]] && order="v7 v5 v3 v2 v1 v0 head"; [[ $round == 3 ]] && order="v1 v3 head v7 v0 v5 v2"
  chk=--skip_ref_check; [[ $round == 1 ]] && chk=
  for t in $order; do
    b=/tmp/x/fa-bench-$t
    timeout 60 $b $D64 --kernel mma --causal 0,1 $chk --csv $L/ab_$t.csv >> $L/fa.log 2>&1
    case $t in head|v0|v1|v3) for s in "$A" "$C"; do timeout 60 $b $s --kernel mma --causal 0,1 $chk --csv $L/ab_$t.csv >> $L/fa.log 2>&1; done;; esac
    case $t in head|v0) timeout 60 $b $D64 --kernel warp_specialized --causal 0,1 $chk --csv $L/ab_$t.csv >> $L/fa.log 2>&1;; esac
  done
done
python3 - $L <<'PY'
import csv, sys, statistics, collections, os
for t in ('head', 'v0', 'v1', 'v2', 'v3', 'v5', 'v7'):
    f = f'{sys.argv[1]}/ab_{t}.csv'
    if not os.path.exists(f): print(t, 'missing'); continue
    runs = collections.defaultdict(list); chk = {}
    for r in csv.DictReader(open(f)):
        if r['tflops']:
            k = (r['kernel'], r['head_dim'], r['batch_size'], r['is_causal'])
            runs[k].append((float(r['tflops']), float(r['sm_clock_mean_mhz'] or 0)))
            if r['check']: chk[k] = r['check'] + ' ' + r['rel_l2_err'][:8]
    for k, v in sorted(runs.items()):
        print(t, ' '.join(k), f"{statistics.median(x for x, _ in v):.1f}", [f'{x:.0f}@{c:.0f}' for x, c in v], chk.get(k, ''))
PY
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
