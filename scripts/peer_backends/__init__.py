"""The peers peers.py can time, one module per family; every module imports without torch.

    torch_sdpa    PyTorch SDPA with one backend forced: fa2, cudnn, efficient, math
    fa4           FlashAttention-4 (flash_attn.cute, PyPI flash-attn-4)
    cute_example  CUTLASS's CuTe DSL example flash_attention_v2.py, from a path the user gives
    cudnn_fp8     cuDNN's FP8 attention (cudnn-frontend's sdpa_fp8 graph, PyPI nvidia-cudnn-frontend):
                  the FP8 peer, Float8E4M3FN problems only

BACKENDS maps each --backends name to its Backend; the order is the order of the rows and of
the peers in plot.py's charts (after fa-bench's rungs).
"""
from __future__ import annotations

from . import cudnn_fp8, cute_example, fa4, torch_sdpa
from .common import Backend

BACKENDS: dict[str, Backend] = {b.name: b for b in (*torch_sdpa.BACKENDS, fa4.BACKEND, cute_example.BACKEND,
                                                    cudnn_fp8.BACKEND)}

# What `--backends auto` tries: the two SDPA peers the README compares with, and the optional
# packages when they are there (a missing one is said on stderr, not written as rows). Not
# cudnn_fp8: it runs only Float8E4M3FN, which no other peer runs, so in the bf16 sweeps auto
# serves (sweep.sh) it would add a refused row per problem; name it (--backends cudnn_fp8).
AUTO = ("fa2", "cudnn", "fa4", "cute")


def peer_kernels() -> list[str]:
    """The CSV `kernel` of every peer, in BACKENDS order."""
    return [b.kernel for b in BACKENDS.values()]
