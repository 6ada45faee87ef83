#!/usr/bin/env bash
# Session 14 call 13: smoke test of peers.py after its timing harness moved to peer_backends/timing.py
# (commit 721dfc4): cuDNN and FA2 on one problem with the check, the default rule (the idle warm-up
# applies to the first row), and in burst mode; fa-bench's final binary (.deps/s14h.tar.xz) for the
# analytic columns.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b
tar -xJf .deps/s14h.tar.xz -C /tmp/b; N=/tmp/b/fa-bench
python3 scripts/peers.py --backends fa2,cudnn --batch_size 2 --seqlen_q 1024 --seqlen_k 1024 --num_head 16 --head_dim 128 \
  --causal 0,1 --check --fa-bench $N --csv $L/smoke.csv 2>&1 | tee $L/peers.log | tail -6
python3 scripts/peers.py --backends cudnn --batch_size 2 --seqlen_q 1024 --seqlen_k 1024 --num_head 16 --head_dim 128 \
  --iterations 30 --warmup_iterations 5 --warmup_time 0 --gpu_warmup_time 0 --fa-bench $N --csv $L/smoke.csv 2>&1 | tail -3
python3 -c "
import csv
for r in csv.DictReader(open('$L/smoke.csv')): print(r['kernel'], r['is_causal'], r['tflops'][:6], r['check'], 'warmup_ms', r['warmup_ms'][:7], r['iterations'])"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
