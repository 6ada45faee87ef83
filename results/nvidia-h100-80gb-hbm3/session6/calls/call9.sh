#!/usr/bin/env bash
# Session 6 call 9: seed 001's CuTe DSL example (128x64x128) against rung 3 at d64, before (I2: the
# copies behind `if`) and after (branch-free copies), two interleaved rounds.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b /tmp/site
tar -xJf .deps/bin.tar.xz -C /tmp/b; B=/tmp/b
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s)
cat /tmp/stash/cute_site.part.aa .whl/p2/cute_site.part.ab | tar -xJ -C /tmp/site || echo "CuTe unpack failed"
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
D="--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64"
for r in 1 2; do
  timeout 40 $B/fa-bench $D --kernel mma --causal 0,1 --csv $L/fabench.csv >> $L/fabench.log 2>&1
  timeout 40 $B/fa-bench-I2 $D --kernel mma --causal 0,1 --csv $L/fabench_I2.csv >> $L/fabench.log 2>&1
  timeout 100 python3 scripts/peers.py --fa-bench $B/fa-bench --backends cute --cute-example .whl/p2/flash_attention_v2.py \
      $D --causal 0,1 --warmup_iterations 20 --iterations 50 --csv $L/cute.csv >> $L/cute.log 2>&1
  echo "round $r t=$(( $(date +%s)-t0 ))"
done
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
python3 - $L <<'PY'
import csv,sys,collections
d=collections.defaultdict(list)
for f,tag in (('fabench.csv',''),('fabench_I2.csv','_I2'),('cute.csv','')):
    try: rows=list(csv.DictReader(open(sys.argv[1]+'/'+f)))
    except FileNotFoundError: continue
    for r in rows:
        if not r.get('tflops'): continue
        d[(r['batch_size'],r['num_head'],r['seqlen_q'],r['head_dim'],r['is_causal'],r['kernel']+tag)].append(float(r['tflops']))
for k in sorted(d): print(*k, ' '.join('%.1f'%x for x in d[k]))
PY
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
