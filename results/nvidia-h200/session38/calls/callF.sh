#!/usr/bin/env bash
# Session 38 call F: the decode gap in Nsight Compute (clocks left alone, one launch each): rungs 7 (the
# 64-row decode tile) and 9 against cuDNN 9.19 (PyTorch SDPA, bhsd) at 64x32x1x8192x128 with 32 and 8
# K/V heads (call D: 4,241 / 4,225 GB/s against cuDNN's 4,581 / 4,501). What each launches (grid,
# block, registers, shared memory) and what it does with the DRAM, the tensor pipe and the clock.
set -uo pipefail
tar -xJf .exp/s36g.tar.xz -C /tmp; N=/tmp/s36g/fa-bench
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,launch__shared_mem_per_block_static,launch__occupancy_limit_shared_mem,launch__occupancy_limit_registers,sm__warps_active.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct,sm__throughput.avg.pct_of_peak_sustained_elapsed
cat > /tmp/cudnn_decode.py <<'P'
import sys, torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
hkv = int(sys.argv[1])
q = torch.randn(64, 32, 1, 128, device="cuda", dtype=torch.bfloat16)
k = torch.randn(64, hkv, 8192, 128, device="cuda", dtype=torch.bfloat16)
v = torch.randn_like(k)
with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
    for i in range(3):
        F.scaled_dot_product_attention(q, k, v, enable_gqa=hkv != 32)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("sdpa")
    F.scaled_dot_product_attention(q, k, v, enable_gqa=hkv != 32)
    torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
print("ok")
P
$N --kernel wgmma_ws --iterations 300 --skip_ref_check > /dev/null 2>&1  # warm-up
for hkv in 32 8; do
  timeout 120 ncu --clock-control none --metrics $M --csv -k "regex:wgmma" $N --profile --kernel wgmma_overlap,wgmma_persistent \
      --batch_size 64 --seqlen_q 1 --seqlen_k 8192 --num_head 32 --num_head_kv $hkv --head_dim 128 > $OUT/ncu_fabench_kv$hkv.csv 2> $OUT/ncu_fabench_kv$hkv.err
  echo "fa-bench kv$hkv rc=$? at $SECONDS s"
  timeout 120 ncu --clock-control none --metrics $M --csv --nvtx --nvtx-include "sdpa/" python3 /tmp/cudnn_decode.py $hkv > $OUT/ncu_cudnn_kv$hkv.csv 2> $OUT/ncu_cudnn_kv$hkv.err
  echo "cudnn kv$hkv rc=$? at $SECONDS s"
done
python3 - <<'P'
import csv, glob, io, os
for f in sorted(glob.glob(os.environ["OUT"] + "/ncu_*.csv")):
    text = open(f).read()
    start = text.find('"ID"')
    if start < 0:
        print(os.path.basename(f), "no rows"); continue
    rows = list(csv.DictReader(io.StringIO(text[start:])))
    by = {}
    for r in rows:
        by.setdefault((r["ID"], r["Kernel Name"][:60]), {})[r["Metric Name"]] = r["Metric Value"]
    for (i, name), m in by.items():
        print(os.path.basename(f), i, name)
        for key in sorted(m): print("   ", key, m[key])
P
