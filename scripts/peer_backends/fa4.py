"""FlashAttention-4: flash_attn.cute.flash_attn_func (PyPI flash-attn-4), its sm90 path on an H100.

FA4 is written in CUTLASS's CuTe DSL and compiles its kernel on the first call for each
configuration (dtype, head_dim, causal, ...): the check launch and the warm-up absorb that, the
timed launches do not see it. It takes (B, S, H, D) tensors, Float16 or BFloat16.

FlashAttention's causal mask is aligned to the bottom-right corner of the score matrix, fa-bench's
(and SDPA's) to the top-left: the two agree only when seqlen_q == seqlen_k, so other causal shapes
are refused rather than timed as a different function.

Install (the H100 runs used flash-attn-4 4.0.0b36): pip install flash-attn-4, which brings
nvidia-cutlass-dsl, quack-kernels, apache-tvm-ffi and torch-c-dlpack-ext. Installed with
pip --target DIR, put DIR and DIR/nvidia_cutlass_dsl/dsl_packages on PYTHONPATH (the package's
.pth file is not read there).
"""
from __future__ import annotations

from .common import Backend, Refusal, module_missing

INSTALL_HINT = "pip install flash-attn-4"


class FlashAttention4(Backend):
    name = "fa4"
    kernel = "fa4"
    layout = "bshd"
    title = "FlashAttention-4 (flash_attn.cute.flash_attn_func, CuTe DSL; sm90 path on Hopper)"
    # A CuTe DSL call from Python (argument conversion, compile-cache lookup) costs more than SDPA's.
    host_us_per_call = 150.0

    def __init__(self):
        self.flash_attn_func = None

    def unavailable(self) -> str:
        if module_missing("torch"):
            return "PyTorch is not installed"
        if module_missing("flash_attn.cute"):
            return f"flash_attn.cute is not importable ({INSTALL_HINT})"
        if module_missing("cutlass"):
            return ("nvidia-cutlass-dsl is not importable (installed with pip --target DIR? put DIR and "
                    "DIR/nvidia_cutlass_dsl/dsl_packages on PYTHONPATH)")
        return ""

    def setup(self, torch) -> None:
        try:
            from flash_attn.cute import flash_attn_func
        except Exception as error:  # noqa: BLE001 -- a broken install is a reason, not a crash
            raise Refusal(f"flash_attn.cute does not import: {type(error).__name__}: {error}") from None
        self.flash_attn_func = flash_attn_func

    def prepare(self, torch, p, q, k, v, scale, tile):
        if p.dtype not in ("Float16", "BFloat16"):
            raise Refusal(f"FlashAttention-4 takes Float16 and BFloat16, not {p.dtype}")
        if p.causal and p.seqlen_q != p.seqlen_k:
            raise Refusal("FlashAttention-4's causal mask is bottom-right aligned, fa-bench's top-left: "
                          "they differ when seqlen_q != seqlen_k")
        func = self.flash_attn_func

        def launch():
            out = func(q, k, v, softmax_scale=scale, causal=p.causal)
            return out[0] if isinstance(out, tuple) else out  # some versions return (out, lse)
        return launch


BACKEND = FlashAttention4()
