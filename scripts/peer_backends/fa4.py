"""FlashAttention-4: flash_attn.cute.flash_attn_func (PyPI flash-attn-4), its sm90 path on an H100.

FA4 is written in CUTLASS's CuTe DSL and compiles its kernel on the first call for each
configuration (dtype, head_dim, causal, ...): the check launch and the warm-up absorb that, the
timed launches do not see it. It takes (B, S, H, D) tensors, Float16 or BFloat16.

FlashAttention's causal mask is aligned to the bottom-right corner of the score matrix, fa-bench's
(and SDPA's) to the top-left: the two agree only when seqlen_q == seqlen_k, so other causal shapes
are refused rather than timed as a different function.

GQA is native: K and V go in with num_head_kv heads (query head h reads K/V head h / (H / H_kv)),
and FA4 chooses pack_gqa itself (flash_attn_func's pack_gqa=None: on sm90 packed when H_kv < H). Split-KV:
flash_attn_func(num_splits=N) has fa-bench's convention (N < 1: its own heuristic, 1: off, N > 1:
N chunks), so each --num_splits value is one row, and the row's note says what FA4 was asked.
In 4.0.0b36 the sm90 path has no split-KV: when a split count above 1 reaches it (given, or chosen
by the heuristic for a decode shape) flash_attn_func raises "SplitKV not supported on SM 9.0"
before launching, and the row says so; the num_splits 1 row is then FA4's decode on an H100.

Install (the H100 runs used flash-attn-4 4.0.0b36): pip install flash-attn-4, which brings
nvidia-cutlass-dsl, quack-kernels, apache-tvm-ffi and torch-c-dlpack-ext. Installed with
pip --target DIR, put DIR and DIR/nvidia_cutlass_dsl/dsl_packages on PYTHONPATH (the package's
.pth file is not read there).
"""
from __future__ import annotations

import inspect

from .common import Backend, Launch, Refusal, module_missing, one_line

INSTALL_HINT = "pip install flash-attn-4"
# The fa-bench dtypes flash_attn_func takes (no FP8 forward in its sm90 path).
DTYPES = ("Float16", "BFloat16")


class FlashAttention4(Backend):
    name = "fa4"
    kernel = "fa4"
    layout = "bshd"
    title = "FlashAttention-4 (flash_attn.cute.flash_attn_func, CuTe DSL; sm90 path on Hopper)"
    # A CuTe DSL call from Python (argument conversion, compile-cache lookup) costs more than SDPA's.
    host_us_per_call = 150.0
    splits = True  # one row per --num_splits value

    def __init__(self):
        self.flash_attn_func = None
        self.takes_num_splits = True  # known after setup(): older flash_attn_func had no num_splits

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
        try:
            self.takes_num_splits = "num_splits" in inspect.signature(flash_attn_func).parameters
        except (TypeError, ValueError):  # no signature to read: try the keyword, a refusal will say
            self.takes_num_splits = True

    def dtype_refusal(self, dtype):
        return "" if dtype in DTYPES else f"FlashAttention-4 takes Float16 and BFloat16, not {dtype}"

    def prepare(self, torch, p, q, k, v, scale, variant):
        why = self.dtype_refusal(p.dtype)
        if why:
            raise Refusal(why)
        if p.causal and p.seqlen_q != p.seqlen_k:
            raise Refusal("FlashAttention-4's causal mask is bottom-right aligned, fa-bench's top-left: "
                          "they differ when seqlen_q != seqlen_k")
        num_splits = 1 if variant is None else variant
        if not self.takes_num_splits and num_splits != 1:
            raise Refusal(f"this flash_attn_func takes no num_splits (it never splits): asked for {num_splits}")
        func = self.flash_attn_func
        kwargs = {"num_splits": num_splits} if self.takes_num_splits else {}

        def launch():
            out = func(q, k, v, softmax_scale=scale, causal=p.causal, **kwargs)
            return out[0] if isinstance(out, tuple) else out  # some versions return (out, lse)
        return Launch(launch, note=self.what_it_ran(p, num_splits))

    def what_it_ran(self, p, num_splits: int) -> str:
        """The row's note: the split count FA4 was given and, with GQA, that it packed as it chose."""
        if not self.takes_num_splits:
            said = "num_splits: not a flash_attn_func argument in this version (no split-KV)"
        elif num_splits < 1:
            said = f"num_splits={num_splits}: FA4's own heuristic (the count it picks is not returned)"
        elif num_splits == 1:
            said = "num_splits=1: no split-KV"
        else:
            said = f"num_splits={num_splits}"
        if p.gqa:
            said += f"; GQA native, K/V {p.num_head_kv} heads, pack_gqa left to FA4 (packs when H_kv < H)"
        return said

    def failure_note(self, error, warning_messages):
        text = one_line(f"{type(error).__name__}: {error}")
        if "SplitKV not supported" in str(error):
            # 4.0.0b36 on sm90: the heuristic (or the caller) asked for splits the kernel lacks.
            return one_line(f"refused: FA4 has no split-KV on this GPU's path ({text}); its num_splits=1 row "
                            "is the unsplit decode")
        return text


BACKEND = FlashAttention4()
