"""PyTorch's scaled_dot_product_attention with one backend forced at a time.

    fa2       SDPBackend.FLASH_ATTENTION      (FlashAttention-2, vendored in PyTorch)  -> torch_fa2
    cudnn     SDPBackend.CUDNN_ATTENTION      (cuDNN's fused attention)                -> torch_cudnn
    efficient SDPBackend.EFFICIENT_ATTENTION  (xFormers' memory-efficient kernel)      -> torch_efficient
    math      SDPBackend.MATH                 (unfused matmul + softmax + matmul)      -> torch_math

SDPA takes (B, H, S, D) and its is_causal is top-left aligned, as fa-bench's mask. With one
backend allowed, a shape it cannot run raises "No available kernel" after UserWarnings that say
why; the row's note keeps those reasons.

GQA/MQA: K and V have num_head_kv heads and the call passes enable_gqa=True (PyTorch 2.5+), which
maps query head h to K/V head h / (H / H_kv), fa-bench's mapping. A backend that cannot take
grouped heads refuses the shape like any other (its reason in the note); K/V are never repeated
to H heads here, since that would time a different problem (H/H_kv times the K/V bytes).
"""
from __future__ import annotations

import re
from typing import Sequence

from .common import FP8_DTYPE, Backend, Refusal, module_missing, one_line

# The first PyTorch whose scaled_dot_product_attention takes enable_gqa.
GQA_MIN_TORCH = (2, 5)

# PyTorch appends its C++ source location to every warning; it says nothing about the shape.
_TRIGGERED_AT = re.compile(r"\s*\(Triggered internally at [^)]*\)\.?")


def refusal_note(error: BaseException, warning_messages: Sequence[str]) -> str:
    """The note of a row whose backend did not run: PyTorch's reasons, without the noise.

    With one backend allowed, SDPA raises "No available kernel" and explains in UserWarnings,
    which also cover the backends we disabled ourselves ("... has been runtime disabled") and
    carry empty headers ("Flash attention kernel not used because:"). Keep only the reasons; an
    error that is not a refusal (out of memory, ...) keeps its own text.
    """
    reasons = []
    for message in warning_messages:
        message = _TRIGGERED_AT.sub("", message).strip()
        if not message or message.endswith("not used because:") or "has been runtime disabled" in message:
            continue
        if message not in reasons:
            reasons.append(message)
    error_text = _TRIGGERED_AT.sub("", str(error)).strip()
    if "No available kernel" in error_text and reasons:
        return one_line("refused: " + "; ".join(reasons))
    return one_line(f"{type(error).__name__}: {error_text}")


def torch_version(torch) -> tuple[int, int]:
    """(major, minor) of torch.__version__ ('2.11.0+cu130' -> (2, 11)); (0, 0) if unreadable."""
    match = re.match(r"(\d+)\.(\d+)", str(getattr(torch, "__version__", "")))
    return (int(match[1]), int(match[2])) if match else (0, 0)


class SdpaBackend(Backend):
    layout = "bhsd"
    host_us_per_call = 50.0  # an SDPA call from Python: ~20-50 µs

    def __init__(self, name: str, member: str, title: str):
        self.name = name
        self.kernel = "torch_" + name
        self.member = member  # the SDPBackend member it forces
        self.title = title

    def unavailable(self) -> str:
        if module_missing("torch"):
            return "PyTorch is not installed"
        return ""

    def dtype_refusal(self, dtype):
        if dtype == FP8_DTYPE:
            return (f"PyTorch SDPA takes no FP8 inputs ({dtype}: e4m3 Q/K/V with descales); cuDNN's FP8 "
                    "attention is the cudnn_fp8 backend")
        return ""

    def context(self):
        from torch.nn.attention import SDPBackend, sdpa_kernel
        return sdpa_kernel([getattr(SDPBackend, self.member)])

    def prepare(self, torch, p, q, k, v, scale, variant):
        import torch.nn.functional as F
        # MHA calls stay exactly as before (and run on any PyTorch); only GQA needs the flag.
        gqa = {}
        if p.gqa:
            if torch_version(torch) < GQA_MIN_TORCH:
                raise Refusal(f"GQA (num_head_kv {p.num_head_kv} < num_head {p.num_head}) needs SDPA's enable_gqa, "
                              f"PyTorch {'.'.join(map(str, GQA_MIN_TORCH))} or newer; this is {torch.__version__}")
            gqa = {"enable_gqa": True}

        def launch():
            return F.scaled_dot_product_attention(q, k, v, is_causal=p.causal, scale=scale, **gqa)
        return launch

    def failure_note(self, error, warning_messages):
        return refusal_note(error, warning_messages)


BACKENDS = [
    SdpaBackend("fa2", "FLASH_ATTENTION", "PyTorch SDPA, FLASH_ATTENTION (FlashAttention-2)"),
    SdpaBackend("cudnn", "CUDNN_ATTENTION", "PyTorch SDPA, CUDNN_ATTENTION (cuDNN)"),
    SdpaBackend("efficient", "EFFICIENT_ATTENTION", "PyTorch SDPA, EFFICIENT_ATTENTION (memory-efficient)"),
    SdpaBackend("math", "MATH", "PyTorch SDPA, MATH (unfused)"),
]
