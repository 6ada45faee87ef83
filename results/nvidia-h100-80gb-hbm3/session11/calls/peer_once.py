"""One peer launch inside an NVTX range named `peer`, after two untimed ones (FA4 compiles on its
first), bf16, for Nsight Compute. Usage: peer_once.py cudnn|fa4 CAUSAL B H S D"""
import sys

import torch

backend, causal = sys.argv[1], bool(int(sys.argv[2]))
b, h, s, d = (int(x) for x in sys.argv[3:7])
shape = (b, s, h, d) if backend == "fa4" else (b, h, s, d)  # bshd for FA4, bhsd for SDPA
q, k, v = (torch.randn(*shape, device="cuda", dtype=torch.bfloat16) for _ in range(3))
if backend == "fa4":
    from flash_attn.cute import flash_attn_func

    def run():
        return flash_attn_func(q, k, v, causal=causal)
else:
    from torch.nn.attention import SDPBackend, sdpa_kernel

    def run():
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
            return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
for _ in range(2):
    run()
torch.cuda.synchronize()
torch.cuda.nvtx.range_push("peer")
run()
torch.cuda.synchronize()
torch.cuda.nvtx.range_pop()
