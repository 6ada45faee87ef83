#!/usr/bin/env bash
# Session 9 call 2 (the final binary): stash the CuTe DSL site's first half for call 3 (FA4);
# GPU tests; compute-sanitizer on the 64-row decode tile of rungs 6, 7 and 9 (the script's odd
# shape with the tile forced, and decode shapes with packed GQA, 7 splits and more tiles than SMs
# for rung 9's loop); A/B of rung 9's decode tile against rung 7's with cuDNN.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/new /tmp/stash
cp .whl/p1/cute_site.part.aa /tmp/stash/ &
tar -xJf .deps/bin.tar.xz -C /tmp/new; N=/tmp/new/fa-bench
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $L/smi.txt
( time timeout 200 /tmp/new/fa_gpu_tests "~[large]" ) > $L/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "passed|failed" $L/gpu_tests.log | tail -2
K=wgmma_ws,wgmma_overlap,wgmma_persistent
DTYPES=BFloat16 HEAD_DIMS=128 FA_ARGS="--m_block_size 64 --n_block_size 128 --num_threads 128" timeout 150 \
    scripts/sanitize.sh $N $K > $L/sanitize_tile64.log 2>&1; echo "sanitize tile64 rc=$?"
san() {  # tool kernel args...: one decode-shape run
    local tool=$1 kernel=$2; shift 2
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 99 $N --kernel $kernel --dtype BFloat16 --head_dim 128 \
        --warmup_iterations 0 --warmup_time 0 --gpu_warmup_time 0 --iterations 1 "$@" > /tmp/san.log 2>&1
    local rc=$?
    printf '%-10s %-18s %-70s rc=%s %s\n' $tool $kernel "$*" $rc "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/san.log | tail -1)"
    ((rc != 0)) && sed -n 1,30p /tmp/san.log
}
for tool in memcheck racecheck synccheck; do
  for k in ${K//,/ }; do
    san $tool $k --batch_size 40 --num_head 8 --num_head_kv 2 --seqlen_q 16 --seqlen_k 1000 --causal 0,1 --num_splits 7
    san $tool $k --batch_size 70 --num_head 4 --seqlen_q 61 --seqlen_k 777 --causal 0,1 --num_splits 1,0
  done
done > $L/sanitize_decode.log 2>&1
echo "sanitize decode: $(grep -c 'rc=0' $L/sanitize_decode.log) rc=0 of $(grep -c 'rc=' $L/sanitize_decode.log)"
grep -c clean $L/sanitize_tile64.log; grep -h "FAILED" $L/sanitize_tile64.log | head
$N --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1
C=$L/ab.csv
pt() { $N --dtype BFloat16 --head_dim 128 --num_head 32 --causal 0 --csv $C "$@" >> $L/ab.log 2>&1; }
for shape in "64 1 8192" "8 1 32768" "16 16 8192" "1 1 131072" "1 1 4096" "1 1 16384"; do
  read -r B SQ SK <<< "$shape"
  pt --batch_size $B --seqlen_q $SQ --seqlen_k $SK --num_head_kv 32,8 --kernel wgmma_overlap,wgmma_persistent
  python3 scripts/peers.py --backends cudnn --fa-bench $N --csv $C --batch_size $B --seqlen_q $SQ --seqlen_k $SK \
     --num_head 32 --num_head_kv 32,8 --head_dim 128 --causal 0 >> $L/peers.log 2>&1
done
pt --batch_size 8 --seqlen_q 1 --seqlen_k 32768 --num_head_kv 32 --kernel wgmma_persistent --num_splits 2,3,4,8
echo "ab rc=$?"
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $L/smi.txt
wait
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
