#!/usr/bin/env bash
# Prepared in session 37, not run (no device time left): two changes to the issue token, each against base.
#  tok (token_after_s.patch; rungs 7 and 9 through overlap_schedule.cuh): the token handed on after
#      S(t+1)'s issue instead of after P(t)·V(t)'s. Call E's ncu at 1x32x16384x64 put 8.6 % of rung 9's
#      stall samples on the two token lines (FA4: 4.7 %); passed before the P·V issue, the next
#      warpgroup's S may enter the tensor pipe ahead of this one's P·V.
#  nt  (d256_no_token.patch: a kIssueToken tile trait, off at head_dim 256; rungs 6, 7, 9 there): no
#      token at head_dim 256, FA3's rule for bf16 with intra-warpgroup overlap and FA4's sm90 loop
#      there (its SASS has no named barrier). Issue #10 asks 1.05x at the long head_dim-256 rows
#      (1.015-1.050x in calls A-B).
# Builds (.exp/s37x.tar.xz: /tmp/s37t/tok and /tmp/s37n/nt, fa-bench + fa_gpu_tests each, on HEAD's code
# with the patch; device SASS md5 of nt fe03ef8c...) against base (.exp/s36g.tar.xz, HEAD's device code
# 631947ec...). A fresh machine, carry [".exp/s36g.tar.xz", ".exp/s37x.tar.xz"], ~400 s: both builds' GPU
# tests and sanitizers, then ab.py three rounds.
set -uo pipefail
tar -xJf .exp/s36g.tar.xz -C /tmp; tar -xJf .exp/s37x.tar.xz -C /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $OUT/smi.txt
for b in /tmp/s37t/tok /tmp/s37n/nt; do
  t=$(basename $b)
  ( time timeout 150 $b/fa_gpu_tests "~[large]" ) > $OUT/gpu_tests_$t.log 2>&1
  echo "$t gpu tests rc=$? $(grep -E 'assertions|FAILED' $OUT/gpu_tests_$t.log | tail -2 | tr '\n' ' ') at $SECONDS s"
done
DTYPES="BFloat16" HEAD_DIMS="64 128" timeout 60 scripts/sanitize.sh /tmp/s37t/tok/fa-bench wgmma_overlap,wgmma_persistent > $OUT/sanitize_tok.log 2>&1
echo "tok sanitize rc=$? $(grep -c clean $OUT/sanitize_tok.log) clean at $SECONDS s"
DTYPES="BFloat16" HEAD_DIMS="256" timeout 60 scripts/sanitize.sh /tmp/s37n/nt/fa-bench wgmma_ws,wgmma_overlap,wgmma_persistent > $OUT/sanitize_nt.log 2>&1
echo "nt sanitize rc=$? $(grep -c clean $OUT/sanitize_nt.log) clean at $SECONDS s"
/tmp/s36g/fa-bench --kernel wgmma_overlap --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
s() { echo "--kernel wgmma_overlap,wgmma_persistent --dtype BFloat16 --batch_size $1 --num_head $2 --seqlen_q $3 --seqlen_k $3 --head_dim $4 --causal $5"; }
python3 scripts/ab.py --build base=/tmp/s36g/fa-bench --build tok=/tmp/s37t/tok/fa-bench --build nt=/tmp/s37n/nt/fa-bench \
    --rounds 3 --deadline 360 --out $OUT/ab \
    --problem "$(s 2 16 8192 128 0,1)" --problem "$(s 1 16 16384 128 0)" --problem "$(s 4 16 4096 128 0)" \
    --problem "$(s 2 32 8192 64 0,1)" --problem "$(s 1 32 16384 64 0,1)" \
    --problem "$(s 2 16 8192 256 0,1)" --problem "$(s 1 16 16384 256 0,1)" --problem "$(s 8 16 2048 256 0,1)" > $OUT/ab.txt 2>&1
echo "ab rc=$? at $SECONDS s"; grep -E "geometric|round" $OUT/ab.txt
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv >> $OUT/smi.txt
