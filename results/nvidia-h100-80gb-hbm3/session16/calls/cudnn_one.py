"""One shape through PyTorch SDPA's CUDNN_ATTENTION, three launches (for ncu: --launch-skip 2 takes
the third). Inputs (B, H, S, D) bf16 standard normal, as scripts/peers.py draws them (bhsd)."""
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

b, h, s, d, causal = (int(x) for x in sys.argv[1:6])
q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
    for _ in range(3):
        F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal))
torch.cuda.synchronize()
