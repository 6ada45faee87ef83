"""Seed 001's kernel: CUTLASS's CuTe DSL example flash_attention_v2.py (FlashAttention-2 for sm80).

The example is not a package and is not copied here: this driver imports it from the path the
user gives (--cute-example PATH or $FA_CUTE_EXAMPLE), either the file itself or a CUTLASS
checkout, where it is examples/python/CuTeDSL/cute/ampere/kernel/attention/flash_attention_v2.py
(CUTLASS 4.5 and later) or examples/python/CuTeDSL/ampere/flash_attention_v2.py (4.1 to 4.4).

It runs the example's kernel class at a tile (m_block_size x n_block_size x num_threads: the
example's 128x64x128 unless tile flags are given), compiled once per (dtype, head_dim, tile,
causal) with cute.compile on tensors whose layout is marked dynamic (so one compiled kernel
serves every batch and sequence length), and times the compiled callable with CUDA events per
launch like every other peer. The example's own run() returns only an average over launches.

It needs nvidia-cutlass-dsl (the H100 runs used 4.8.1; its -libs-base, -libs-core and
-libs-cu12 or -libs-cu13 wheels) and cuda-python; installed with pip --target DIR, put DIR and
DIR/nvidia_cutlass_dsl/dsl_packages on PYTHONPATH.
"""
from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from .common import Backend, Refusal, module_missing

ENV_EXAMPLE = "FA_CUTE_EXAMPLE"
EXAMPLE_FILE = "flash_attention_v2.py"
# Where CUTLASS keeps the example, newest layout first.
EXAMPLE_PLACES = (
    Path("examples/python/CuTeDSL/cute/ampere/kernel/attention") / EXAMPLE_FILE,
    Path("examples/python/CuTeDSL/ampere") / EXAMPLE_FILE,
)
EXAMPLE_CLASS = "FlashAttentionForwardAmpere"


def resolve_example(given: str | os.PathLike | None) -> tuple[Path | None, str]:
    """(the example file, '') or (None, why not) for a path to the file or to a CUTLASS checkout."""
    if not given:
        return None, (f"no CuTe DSL example given: pass --cute-example PATH (CUTLASS's {EXAMPLE_PLACES[0]}, "
                      f"or a CUTLASS checkout) or set {ENV_EXAMPLE}")
    path = Path(given).expanduser()
    if path.is_dir():
        for place in EXAMPLE_PLACES:
            if (path / place).is_file():
                return path / place, ""
        return None, f"{path}: no {EXAMPLE_FILE} at {' or '.join(str(p) for p in EXAMPLE_PLACES)}"
    if not path.is_file():
        return None, f"{path}: no such file (--cute-example / ${ENV_EXAMPLE})"
    return path, ""


class CuteExample(Backend):
    name = "cute"
    kernel = "cute_fa2"
    layout = "bshd"  # the example's (batch, seqlen, num_head, head_dim)
    title = "CuTe DSL example flash_attention_v2.py (seed 001; FlashAttention-2 on sm80 mma.sync, cp.async)"
    tiled = True
    host_us_per_call = 150.0  # a compiled CuTe DSL callable converts its arguments on every call

    def __init__(self):
        self.given = None
        self.example = None      # the example's path, once resolved
        self.kernel_class = None
        self.compiled = {}       # (dtype, head_dim, tile, causal) -> compiled callable
        self._cute = None

    def configure(self, args) -> None:
        self.given = getattr(args, "cute_example", None) or os.environ.get(ENV_EXAMPLE) or None

    def unavailable(self) -> str:
        path, why = resolve_example(self.given)
        if path is None:
            return why
        self.example = path
        if module_missing("torch"):
            return "PyTorch is not installed"
        if module_missing("cutlass"):
            return ("nvidia-cutlass-dsl is not importable (pip install nvidia-cutlass-dsl; installed with "
                    "pip --target DIR, put DIR and DIR/nvidia_cutlass_dsl/dsl_packages on PYTHONPATH)")
        if module_missing("cuda.bindings"):
            return "cuda-python is not importable (pip install cuda-python)"
        return ""

    def setup(self, torch) -> None:
        try:
            import cuda.bindings.driver as cuda_driver
            import cutlass
            import cutlass.cute as cute
            from cutlass.cute.runtime import from_dlpack
            spec = importlib.util.spec_from_file_location("fa_bench_cute_example", self.example)
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module  # as an import would: code that looks a module up by name finds it
            spec.loader.exec_module(module)
            kernel_class = getattr(module, EXAMPLE_CLASS)
        except Exception as error:  # noqa: BLE001 -- a broken install or example is a reason, not a crash
            raise Refusal(f"{self.example} does not import: {type(error).__name__}: {error}") from None
        self.kernel_class = kernel_class
        self._cute = (cutlass, cute, from_dlpack, cuda_driver)

    def dtype_refusal(self, dtype):
        return "" if dtype in ("Float16", "BFloat16") else f"the example takes Float16 and BFloat16, not {dtype}"

    def prepare(self, torch, p, q, k, v, scale, tile):
        if p.gqa:  # checked first: it needs no import, so the reason shows even where cutlass is broken
            raise Refusal(f"the CuTe DSL example has no GQA: its K/V have num_head heads ({p.num_head}), "
                          f"this problem's have num_head_kv {p.num_head_kv}")
        cutlass, cute, from_dlpack, cuda_driver = self._cute
        element = {"Float16": cutlass.Float16, "BFloat16": cutlass.BFloat16}.get(p.dtype)
        if element is None:
            raise Refusal(f"the example takes Float16 and BFloat16, not {p.dtype}")
        m_block, n_block, threads = tile
        if not self.kernel_class.can_implement(element, p.head_dim, m_block, n_block, threads, p.causal):
            raise Refusal(f"the example's can_implement rejects tile {m_block}x{n_block}x{threads} at head_dim "
                          f"{p.head_dim} (rules: head_dim % 8, num_threads % 32, (m_block_size * 2) % num_threads, "
                          "shared memory)")
        o = torch.empty_like(q)

        def as_cute(t):
            # Dynamic layout (the head_dim mode stays contiguous, 16-byte aligned): the compiled
            # kernel then takes any batch, sequence length and head count.
            return (from_dlpack(t, assumed_align=16)
                    .mark_layout_dynamic(leading_dim=3)
                    .mark_compact_shape_dynamic(mode=3, stride_order=t.dim_order(), divisibility=128 // element.width))
        qc, kc, vc, oc = (as_cute(t) for t in (q, k, v, o))
        stream = cuda_driver.CUstream(torch.cuda.current_stream().cuda_stream)
        key = (p.dtype, p.head_dim, tuple(tile), p.causal)
        if key not in self.compiled:
            kernel = self.kernel_class(p.head_dim, m_block, n_block, threads, p.causal)
            self.compiled[key] = cute.compile(kernel, qc, kc, vc, oc, scale, stream)
        compiled = self.compiled[key]

        def launch():
            compiled(qc, kc, vc, oc, scale, stream)
            return o
        return launch


BACKEND = CuteExample()
