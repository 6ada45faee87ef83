#!/usr/bin/env bash
# Session 15 call 11 (right after calls 10a-b, same machine): session 14 call 5 on the final binary,
# causal rows only (the causal tile order changes nothing non-causal), plus head_dim 256. Steady
# state with a long warm-up on both
# sides. Call 3's default-rule rows gave every side 0.2 s of warm-up, but a peer's process starts
# from an idle GPU (its JIT and set-up), and its rows read 270-340 W mean power at 1,600-1,720
# MHz where fa-bench's read ~700 W at ~1,500 MHz: the peer's rows may end before the 700 W cap
# has settled. Here every row, fa-bench's and the peers', warms up for 3 s of back-to-back
# launches (--warmup_time 3) and is then timed by the default rule (>= 0.2 s, noise target,
# <= 2 s): rungs 7 and 9 against cuDNN 9.19 and FA4 4.0.0b36 (as call 3), bf16, head_dim 128
# (16 heads), 64 (32 heads) and 256 (16 heads), causal. Binary: s15d (stashed by call 10b).
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b /tmp/site
tar -xJf /tmp/stash/s15d-bench.tar.xz -C /tmp/b; N=/tmp/b/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
cat /tmp/stash/cute_site.part.aa .whl/cute/p2/cute_site.part.ab | xz -d | tar -x -C /tmp/site || echo "CuTe site unpack failed"
python3 -c "import google.protobuf" 2>/dev/null && rm -rf /tmp/site/google /tmp/site/protobuf-*.dist-info
pip install --quiet --no-deps --no-index --target /tmp/site .whl/fa4/*.whl > $L/pip.log 2>&1 || echo "fa4 install failed"
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
python3 -c "import flash_attn.cute, torch; print('fa4 import ok')" >> $L/pip.log 2>&1; tail -1 $L/pip.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
CL=$L/steady3.csv
fb() { $N --dtype BFloat16 --kernel wgmma_overlap,wgmma_persistent --skip_ref_check --warmup_time 3 --csv $CL "$@" >> $L/fa.log 2>&1; }
pe() { timeout 150 python3 scripts/peers.py --backends cudnn,fa4 --warmup_time 3 --fa-bench $N --csv $CL "$@" >> $L/peers.log 2>&1 || echo "peers rc=$? $*"; }
S1="--batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --num_head 16 --head_dim 128 --causal 1"
S2="--batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --num_head 16 --head_dim 128 --causal 1"
S3="--batch_size 1 --seqlen_q 16384 --seqlen_k 16384 --num_head 16 --head_dim 128 --causal 1"
S4="--batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --num_head 32 --head_dim 64 --causal 1"
S5="--batch_size 2 --seqlen_q 8192 --seqlen_k 8192 --num_head 16 --head_dim 256 --causal 1"
fb $S1; pe $S1; pe $S2; fb $S2; fb $S3; pe $S3; pe $S4; fb $S4; fb $S5; pe $S5
python3 - $CL <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    t = float(r['tflops']) if r['tflops'] else float('nan'); c = float(r['sm_clock_mean_mhz'] or 'nan')
    print(r['kernel'][:16].ljust(17), r['head_dim'], r['batch_size'], r['seqlen_q'], r['is_causal'], r['n_block_size'] or '-',
          f"{t:.0f} @{c:.0f} MHz {r['power_w_mean'][:5]} W capped {r['capped_pct'][:5]} per-GHz {1000 * t / c:.1f}", r['note'][:50])
PY
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
