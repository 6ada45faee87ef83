#!/usr/bin/env bash
# Session 32 call 4: rung 3 (mma) at head_dim 64, issue #13's 2 % to seed 001's kernel. Against the
# committed build (`fin3` = d04aad1): `rs` = each tile's row sums on the tensor core (one more m16n8k16
# per m-tile and k16 step, against a B fragment of ones, in place of the softmax's 64 FADDs a thread:
# the unmasked trip 615 -> 569 SASS instructions); `f4` / `f8` = one exponential in 4 / 8 on the FMA
# pipe (softmax_fragment.cuh's exp2_fma: clamp, round, cubic, exponent add; 615 -> 728 / 672), the SFU's
# share 64 -> 48 / 56 a thread and tile. GPU tests on `rs`; three rounds, order rotating, the reference
# check in round 1.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; tar -xJf .exp/s31c.tar.xz -C /tmp; tar -xJf .exp/s32c.tar.xz -C /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 200 /tmp/rs/fa_gpu_tests "~[large]" ) > $L/gpu_tests_rs.log 2>&1; echo "gpu tests rs rc=$? $(grep -E 'assertions|FAILED' $L/gpu_tests_rs.log | tail -2 | tr '\n' ' ') at $SECONDS s"
/tmp/fin3/fa-bench --kernel mma --head_dim 64 --iterations 400 --skip_ref_check > /dev/null 2>&1  # warm-up
K="--kernel mma --m_block_size 128 --n_block_size 64 --num_threads 128 --dtype BFloat16 --head_dim 64"
ab=("--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --causal 0,1"
    "--batch_size 1 --num_head 32 --seqlen_q 16384 --seqlen_k 16384 --causal 0,1"
    "--batch_size 4 --num_head 32 --seqlen_q 4096 --seqlen_k 4096 --causal 0")
builds=(fin3 rs f4 f8)
for round in 1 2 3; do
  chk=""; (( round > 1 )) && chk="--skip_ref_check"
  for s in "${ab[@]}"; do
    (( SECONDS > 540 )) && { echo "time guard at $SECONDS s"; break 2; }
    for i in 0 1 2 3; do
      b=${builds[$(( (i + round) % 4 ))]}
      timeout 90 /tmp/$b/fa-bench $s $K $chk --csv $L/ab_$b.csv >> $L/ab.log 2>&1
    done
  done
  echo "ab round $round at $SECONDS s"
done
python3 - $L <<'PY'
import csv, sys, statistics, collections, glob, os
L = sys.argv[1]
runs = collections.defaultdict(list)
for f in sorted(glob.glob(f'{L}/ab_*.csv')):
    tag = os.path.basename(f)[3:-4]
    for r in csv.DictReader(open(f)):
        if r['tflops']:
            runs[(r['batch_size'], r['seqlen_q'], r['is_causal'], r['kernel'], tag)].append((float(r['tflops']), r['sm_clock_mean_mhz'][:4], r['check'], r['rel_l2_err']))
med = {}
for k, v in sorted(runs.items()):
    med[k] = statistics.median(x[0] for x in v)
    print(' '.join(k), round(med[k], 1), [x[0] for x in v], [x[1] for x in v], sorted({x[2] for x in v}), [x[3] for x in v][:1])
for k in sorted(med):
    if k[-1] == 'fin3':
        print(' '.join(k[:-1]), ' '.join(f"{t}/fin3 {med[k[:-1] + (t,)] / med[k]:.4f}" for t in ('rs', 'f4', 'f8') if k[:-1] + (t,) in med))
PY
echo "total $SECONDS s"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
