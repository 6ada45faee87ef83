#!/usr/bin/env bash
# Session 15 call 1: the causal tile order (FwdParams::lpt_group, fa/grid_order.h). Binaries:
# s15old (.deps/s15old.tar.xz: commit 0defd83, session 14's last) and s15a (.deps/s15a.tar.xz:
# the grouped causal order; kernels otherwise the same). GPU tests of s15a first; then the FA2
# grid's causal points (bf16; 32 heads at d64, 16 at d128 and d256; 16k tokens; plus 4x16x8192x128)
# on the Hopper rungs 7 and 9, 5 + 30 launches as the README table, two rounds with the binary
# order swapped; one non-causal control point per head_dim (the order is unchanged there); then
# the mma.sync rungs on issue #13's causal shapes.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/old /tmp/new
tar -xJf .deps/s15old.tar.xz -C /tmp/old; tar -xJf .deps/s15a.tar.xz -C /tmp/new
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 240 /tmp/new/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -3
/tmp/new/fa-bench --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1
COMMON="--iterations 30 --warmup_iterations 5 --warmup_time 0 --gpu_warmup_time 0.3 --dtype BFloat16 --kernel wgmma_overlap,wgmma_persistent"
run() {  # binary-tag extra-args...
  local tag=$1; shift
  /tmp/$tag/fa-bench $COMMON "$@" --csv $L/ab_$tag.csv >> $L/ab.log 2>&1 || echo "FAIL $tag $*"
}
for round in 1 2; do
  chk=--skip_ref_check; [[ $round == 1 ]] && chk=
  order="old new"; [[ $round == 2 ]] && order="new old"
  for hd in 64 128 256; do
    heads=16; [[ $hd == 64 ]] && heads=32
    for s in 512 1024 2048 4096 8192 16384; do
      for tag in $order; do run $tag $chk --num_head $heads --head_dim $hd --causal 1 --batch_size $((16384 / s)) --seqlen_q $s --seqlen_k $s; done
    done
    for tag in $order; do run $tag $chk --num_head $heads --head_dim $hd --causal 0 --batch_size 2 --seqlen_q 8192 --seqlen_k 8192; done
  done
  for tag in $order; do run $tag $chk --num_head 16 --head_dim 128 --causal 1 --batch_size 4 --seqlen_q 8192 --seqlen_k 8192; done
  echo "round $round done"
done
for tag in old new; do
  /tmp/$tag/fa-bench --iterations 30 --warmup_iterations 5 --warmup_time 0 --gpu_warmup_time 0.3 --skip_ref_check --kernel mma,warp_specialized \
    --causal 1 --num_head 16 --head_dim 128 --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --csv $L/mma_$tag.csv >> $L/mma.log 2>&1
  /tmp/$tag/fa-bench --iterations 30 --warmup_iterations 5 --warmup_time 0 --gpu_warmup_time 0.3 --skip_ref_check --kernel mma,warp_specialized \
    --causal 1 --num_head 32 --head_dim 64 --batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --csv $L/mma_$tag.csv >> $L/mma.log 2>&1
done
python3 - $L <<'PY'
import csv, sys, statistics, collections, glob, os
runs = collections.defaultdict(list); chk = {}
for f in glob.glob(sys.argv[1] + '/*_old.csv') + glob.glob(sys.argv[1] + '/*_new.csv'):
    tag = os.path.basename(f).split('_')[1][:3]
    for r in csv.DictReader(open(f)):
        if not r['tflops']: continue
        k = (int(r['head_dim']), int(r['seqlen_q']), int(r['batch_size']), r['is_causal'], r['kernel'])
        runs[k, tag].append((float(r['tflops']), float(r['sm_clock_mean_mhz'] or 0)))
        if r['check']: chk[k, tag] = r['check']
for k in sorted({k for k, _ in runs}):
    o = runs.get((k, 'old'), []); n = runs.get((k, 'new'), [])
    if not o or not n: continue
    mo = statistics.median(t for t, _ in o); mn = statistics.median(t for t, _ in n)
    print(f"d{k[0]:3d} S={k[1]:5d} B={k[2]:2d} c={k[3]} {k[4]:17s} old {mo:6.1f} new {mn:6.1f} x{mn / mo:5.3f}  "
          f"old {' '.join(f'{t:.0f}@{c:.0f}' for t, c in o)}  new {' '.join(f'{t:.0f}@{c:.0f}' for t, c in n)}  {chk.get((k, 'new'), '')}")
PY
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
