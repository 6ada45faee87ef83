#!/usr/bin/env bash
# Session 15 call 13: compute-sanitizer on the causal tile order's grouped launches (s15d's
# fa-bench): 1 x 3 heads x 2,100 x 2,100 causal (over kLptMinKeys: 3 head slots -> a group of 2 and
# a last group of 1) on rungs 7 and 9 and mma, bf16; memcheck at head_dim 64 and 128, racecheck and
# synccheck at 128 on rungs 7 and 9. (scripts/sanitize.sh's Sq 300 x Sk 777 x 2 heads covers rung
# 9's short-problem groups.)
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/d
if [[ -f /tmp/stash/s15d-bench.tar.xz ]]; then tar -xJf /tmp/stash/s15d-bench.tar.xz -C /tmp/d; else tar -xJf .deps/s15d-bench.tar.xz -C /tmp/d; fi
N=/tmp/d/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
ARGS="--dtype BFloat16 --batch_size 1 --num_head 3 --seqlen_q 2100 --seqlen_k 2100 --causal 1 --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1"
one() {  # tool kernel head_dim
  local log=$L/$1_$2_d$3.log
  timeout 150 compute-sanitizer --tool $1 --error-exitcode 99 $N --kernel $2 --head_dim $3 $ARGS > $log 2>&1
  local rc=$?; echo "$1 $2 d$3 rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $log | tail -1) $(grep -oE 'PASS|FAIL' $log | sort | uniq -c | tr '\n' ' ')"
}
for k in wgmma_overlap wgmma_persistent mma; do for d in 64 128; do one memcheck $k $d; done; done
for k in wgmma_overlap wgmma_persistent; do one racecheck $k 128; one synccheck $k 128; done
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
