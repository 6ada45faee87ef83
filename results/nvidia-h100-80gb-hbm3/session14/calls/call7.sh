#!/usr/bin/env bash
# Session 14 call 7 (right after call 6, same machine): peers.py's warm-up after an idle GPU
# (--gpu_warmup_time, default 1 s, for the first row and any row >= 0.5 s after the last timed
# launches: FA4 compiles each new shape). FA4 and cuDNN on their new default rule and with a 3 s
# warm-up (as call 5), fa-bench's rungs 7 and 9 on the default rule and with 3 s, bf16 d128
# 2x16x8192 and 1x16x16384, causal 0 and 1, interleaved. Binary: the committed fa-bench (pv64 of
# .deps/s14d.tar.xz).
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b /tmp/site
tar -xJf .deps/s14d.tar.xz -C /tmp/b; N=/tmp/b/fa-bench-pv64
export PATH=/usr/local/cuda/bin:$PATH
cat /tmp/stash/cute_site.part.aa .whl/cute/p2/cute_site.part.ab | xz -d | tar -x -C /tmp/site || echo "CuTe site unpack failed"
python3 -c "import google.protobuf" 2>/dev/null && rm -rf /tmp/site/google /tmp/site/protobuf-*.dist-info
pip install --quiet --no-deps --no-index --target /tmp/site .whl/fa4/*.whl > $L/pip.log 2>&1 || echo "fa4 install failed"
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
python3 -c "import flash_attn.cute, torch; print('fa4 import ok')" >> $L/pip.log 2>&1; tail -1 $L/pip.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
fb() { $N --dtype BFloat16 --kernel wgmma_overlap,wgmma_persistent --skip_ref_check --csv $L/$1.csv ${@:2} >> $L/fa.log 2>&1; }
pe() { timeout 150 python3 scripts/peers.py --backends cudnn,fa4 --fa-bench $N --csv $L/$1.csv ${@:2} >> $L/peers.log 2>&1 || echo "peers rc=$? $*"; }
S1="--batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --num_head 16 --head_dim 128 --causal 0,1"
S2="--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --num_head 16 --head_dim 128 --causal 0,1"
pe default $S1; fb default $S1; pe warm3 $S1 --warmup_time 3; fb warm3 $S1 --warmup_time 3
fb warm3 $S2 --warmup_time 3; pe warm3 $S2 --warmup_time 3; fb default $S2; pe default $S2
python3 - $L <<'PY'
import csv, sys
R = {}
for name in ('default', 'warm3'):
    for r in csv.DictReader(open(f'{sys.argv[1]}/{name}.csv')):
        R[(r['kernel'], r['seqlen_q'], r['is_causal'], name)] = r
for k in sorted({k[:3] for k in R}):
    a, b = R.get((*k, 'default')), R.get((*k, 'warm3'))
    f = lambda r: f"{float(r['tflops']):.0f} @{float(r['sm_clock_mean_mhz'] or 0):.0f} {r['power_w_mean'][:3]}W wu{float(r['warmup_ms'] or 0):.0f}ms" if r and r['tflops'] else '-'
    ratio = float(a['tflops']) / float(b['tflops']) if a and b and a['tflops'] and b['tflops'] else float('nan')
    print(*k, 'default', f(a), '| 3 s', f(b), f'| default/3s {ratio:.3f}')
PY
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
