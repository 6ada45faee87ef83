#!/usr/bin/env bash
# Session 14 call 2 (first of a pair: stashes the CuTe DSL site's first half for call 3's FA4).
# Binary s14b (.deps/s14b.tar.xz, the commit to be made): rung 7's 160-key head_dim-128 tile as
# its default from 2,048 query and key rows on (call 1's 176-key rung 7 and 160-key rung 9 tiles
# removed). GPU tests (with the long-key-rows case); compute-sanitizer memcheck / racecheck /
# synccheck on rung 7's 160-key tile, bf16 and fp16; then rung 7 at 128 and 160 keys and rung 9 on
# the default timing rule (steady state), long head_dim-128 shapes, two rounds, order alternating.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b /tmp/stash
cp .whl/cute/p1/cute_site.part.aa /tmp/stash/ &
tar -xJf .deps/s14b.tar.xz -C /tmp/b; N=/tmp/b/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 240 /tmp/b/tests/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -3
FA_ARGS="--m_block_size 128 --n_block_size 160 --num_threads 256" DTYPES="BFloat16 Float16" HEAD_DIMS=128 \
  timeout 150 scripts/sanitize.sh $N wgmma_overlap > $L/sanitize.log 2>&1; echo "sanitize rc=$? clean=$(grep -c clean $L/sanitize.log) of $(wc -l < $L/sanitize.log)"
$N --kernel wgmma_ws --iterations 400 --skip_ref_check > /dev/null 2>&1
SHAPES=("--batch_size 2 --seqlen_q 8192 --seqlen_k 8192" "--batch_size 4 --seqlen_q 8192 --seqlen_k 8192" "--batch_size 1 --seqlen_q 16384 --seqlen_k 16384")
for round in 1 2; do
  for shape in "${SHAPES[@]}"; do
    a() { $N --skip_ref_check --num_head 16 --head_dim 128 --causal 0,1 --kernel wgmma_overlap,wgmma_persistent --m_block_size 128 --n_block_size 128 --num_threads 256 $shape --csv $L/steady.csv >> $L/fa.log 2>&1; }
    b() { $N --skip_ref_check --num_head 16 --head_dim 128 --causal 0,1 --kernel wgmma_overlap $shape --csv $L/steady.csv >> $L/fa.log 2>&1; }
    if [[ $round == 1 ]]; then a; b; else b; a; fi
  done
done
python3 - $L/steady.csv <<'PY'
import csv, sys, statistics, collections
runs = collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    runs[(int(r['seqlen_q']), r['batch_size'], r['is_causal'], r['kernel'][6:] + '@' + r['n_block_size'])].append(
        (float(r['tflops']), float(r['sm_clock_mean_mhz'] or 0)))
for k in sorted(runs):
    v = runs[k]
    print(*k, f"med {statistics.median(t for t, _ in v):.1f} @{statistics.median(c for _, c in v):.0f}", ' '.join(f'{t:.0f}' for t, _ in v))
PY
wait; ls -la /tmp/stash
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
