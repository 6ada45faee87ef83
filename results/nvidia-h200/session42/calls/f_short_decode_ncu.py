"""Session 42 call F: cuDNN's SDPA at the short B = 1 GQA decode shapes for ncu (one call a shape inside an
NVTX range "sdpa <shape>"; ncu --nvtx --nvtx-include "regex:sdpa.*/")."""
import sys

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

torch.manual_seed(0)
for d, sk in ((64, 1024), (128, 2048)):
    q = torch.randn(1, 32, 1, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(1, 8, sk, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(1, 8, sk, d, device="cuda", dtype=torch.bfloat16)
    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
        for _ in range(5):  # plan build and warm-up, outside the range
            torch.nn.functional.scaled_dot_product_attention(q, k, v, enable_gqa=True)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push(f"sdpa 1x32x1x{sk}x{d}")
        torch.nn.functional.scaled_dot_product_attention(q, k, v, enable_gqa=True)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
print("done", file=sys.stderr)
