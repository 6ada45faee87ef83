#!/usr/bin/env bash
# Session 5 call 1: stash CuTe part 1; mma d64 min-blocks variant vs default; ncu of mma; L2 counters for #14.
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b /tmp/stash
cp .whl/p1/cute_site.part.aa /tmp/stash/ && echo stashed
tar -xJf .deps/bin.tar.xz -C /tmp/b; B=/tmp/b
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $L/smi.txt
t0=$(date +%s)
$B/fa-bench --kernel wgmma_overlap --iterations 300 --skip_ref_check > /dev/null 2>&1
A="--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128"
D="--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64"
C="--batch_size 1 --num_head 16 --seqlen_q 16384 --seqlen_k 16384 --head_dim 128"
for s in "$D" "$A" "$C"; do
  timeout 60 $B/fa-bench $s --kernel mma,warp_specialized --causal 0,1 --csv $L/r1.csv >> $L/r1.log 2>&1
done
timeout 40 $B/fa-bench-mb3 $D --kernel mma --causal 0,1 --csv $L/r1_mb3.csv >> $L/r1.log 2>&1
timeout 40 $B/fa-bench $D --kernel mma --causal 0,1 --csv $L/r1b.csv >> $L/r1.log 2>&1
timeout 40 $B/fa-bench-mb3 $D --kernel mma --causal 0,1 --csv $L/r1_mb3b.csv >> $L/r1.log 2>&1
echo "bench t=$(( $(date +%s)-t0 ))"; grep -E "mma|warp_spec" $L/r1.log | cut -c1-160
ncu --query-metrics --chip gh100 > $L/metrics_gh100.txt 2>&1
# #14: which L2 counters see TMA / LDGSTS; validate names first
want="lts__t_sectors_srcunit_tex.sum lts__t_sectors_srcunit_tex_op_read.sum lts__t_sectors_srcunit_tex_op_write.sum lts__t_requests_srcunit_tex.sum lts__t_sectors_srcunit_tex_lookup_hit.sum lts__t_sectors_srcunit_tex_lookup_miss.sum lts__t_sectors_srcunit_ltcfabric.sum lts__t_sectors.sum lts__t_bytes.sum l1tex__m_xbar2l1tex_read_bytes.sum l1tex__m_l1tex2xbar_write_bytes.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum smsp__inst_executed_op_ldgsts.sum l1tex__m_xbar2l1tex_read_sectors_mem_global_op_tma_ld.sum lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum dram__bytes_read.sum"
ok=""; for m in $want; do base=${m%.sum}; grep -q "^$base " $L/metrics_gh100.txt && ok="$ok,$m"; done; ok=${ok#,}; echo "metrics ok: $ok"
grep -i "tma\|ldgsts" $L/metrics_gh100.txt | head -60 > $L/metrics_tma.txt
for s in "--batch_size 4 --num_head 16 --seqlen_q 4096 --seqlen_k 4096 --head_dim 128" "--batch_size 1 --num_head 32 --num_head_kv 8 --seqlen_q 1 --seqlen_k 131072 --head_dim 128"; do
  timeout 120 ncu --nvtx --nvtx-include "regex:fa-bench@.*/" --clock-control none --csv --page raw --metrics $ok \
    $B/fa-bench $s --kernel tiled,cp_async,warp_specialized,wgmma_tma,wgmma_overlap --profile >> $L/ncu_l2.csv 2>>$L/ncu_l2.err
done
echo "ncu l2 t=$(( $(date +%s)-t0 ))"
timeout 90 ncu --nvtx --nvtx-include "regex:fa-bench@.*/" --set full -o $L/mma_d64 $B/fa-bench $D --kernel mma --profile > $L/ncu_mma.log 2>&1
timeout 60 ncu --nvtx --nvtx-include "regex:fa-bench@.*/" --set full -o $L/mma_d64_mb3 $B/fa-bench-mb3 $D --kernel mma --profile >> $L/ncu_mma.log 2>&1
echo "ncu mma t=$(( $(date +%s)-t0 ))"
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
