#!/usr/bin/env bash
# Session 5 call 6: CuTe DSL example (seed 001) and fa-bench's mma.sync rungs in one call, final tree (#13).
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b /tmp/site
tar -xJf .deps/bin.tar.xz -C /tmp/b; B=/tmp/b
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s)
cat /tmp/stash/cute_site.part.aa .whl/p2/cute_site.part.ab | tar -xJ -C /tmp/site || echo "CuTe unpack failed"
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$B/fa-bench --kernel wgmma_overlap --iterations 300 --skip_ref_check > /dev/null 2>&1
A="--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
D="--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64"
C="--batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
fb() {  # $1 = round
  for s in "$D" "$A" "$C"; do
    timeout 60 $B/fa-bench $s --kernel mma,warp_specialized --causal 0,1 --csv $L/fabench.csv >> $L/fabench.log 2>&1
  done
  timeout 40 $B/fb_noskip $D --kernel mma --causal 0,1 --csv $L/fb_noskip.csv >> $L/fabench.log 2>&1
}
cute() {
  for s in "$D" "$A" "$C"; do
    timeout 150 python3 scripts/peers.py --fa-bench $B/fa-bench --backends cute --cute-example .whl/p2/flash_attention_v2.py \
      $s --causal 0,1 --warmup_iterations 20 --iterations 50 --csv $L/cute.csv >> $L/cute.log 2>&1
  done
}
fb 1; echo "fb1 t=$(( $(date +%s)-t0 ))"
cute; echo "cute1 t=$(( $(date +%s)-t0 ))"
fb 2; echo "fb2 t=$(( $(date +%s)-t0 ))"
cute; echo "cute2 t=$(( $(date +%s)-t0 ))"
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
python3 - $L <<'PY'
import csv,sys,collections
d=collections.defaultdict(list)
for f,tag in (('fabench.csv',''),('fb_noskip.csv','noskip'),('cute.csv','')):
    try: rows=list(csv.DictReader(open(sys.argv[1]+'/'+f)))
    except FileNotFoundError: continue
    for r in rows:
        if not r.get('tflops'): continue
        d[(r['batch_size'],r['num_head'],r['seqlen_q'],r['head_dim'],r['is_causal'],r['kernel']+tag)].append(float(r['tflops']))
for k in sorted(d): print(*k, ' '.join('%.1f'%x for x in d[k]))
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
