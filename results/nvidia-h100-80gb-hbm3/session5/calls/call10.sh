#!/usr/bin/env bash
# Session 5 call 10: where warp_specialized's extra SM->L2 writes and cp_async's extra L2->SM reads come from (#14).
set -uo pipefail
L=$OUT/logs; mkdir -p $L /tmp/b
tar -xJf .deps/bin.tar.xz -C /tmp/b; B=/tmp/b
export PATH=/usr/local/cuda/bin:$PATH
ncu --query-metrics --chip gh100 > /tmp/m.txt 2>&1
want="l1tex__m_l1tex2xbar_write_bytes.sum l1tex__m_l1tex2xbar_write_bytes_mem_lg_op_st.sum l1tex__m_l1tex2xbar_write_bytes_mem_dshared.sum l1tex__m_l1tex2xbar_write_bytes_pipe_lsu.sum l1tex__m_l1tex2xbar_write_bytes_pipe_tma.sum sm__sass_data_bytes_mem_local.sum sm__sass_data_bytes_mem_local_op_st.sum sm__sass_data_bytes_mem_global_op_st.sum l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_miss.sum l1tex__m_xbar2l1tex_read_bytes.sum l1tex__m_xbar2l1tex_read_bytes_mem_global_op_ldgsts_cache_access.sum sm__sass_inst_executed_op_ldgsts_cache_bypass.sum sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts_cache_bypass.sum sm__sass_data_bytes_mem_global_op_ldgsts_cache_bypass.sum l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum"
ok=""; for m in $want; do grep -q "^${m%.sum} " /tmp/m.txt && ok="$ok,$m"; done; ok=${ok#,}; echo "metrics: $ok"
for s in "--batch_size 1 --num_head 32 --num_head_kv 8 --seqlen_q 1 --seqlen_k 131072 --head_dim 128" "--batch_size 4 --num_head 16 --seqlen_q 4096 --seqlen_k 4096 --head_dim 128"; do
  timeout 60 ncu --nvtx --nvtx-include "regex:fa-bench@.*/" --clock-control none --csv --page raw --metrics $ok \
    $B/fa-bench $s --kernel cp_async,mma,warp_specialized --profile >> $L/ncu_w.csv 2>>$L/ncu_w.err
done
cd $OUT && tar -czf logs.tgz logs && rm -rf logs
