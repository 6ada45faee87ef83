#!/usr/bin/env python3
"""FlashAttention-4's forward kernel for one problem, compiled on a machine without a GPU: its cubin,
PTX, SASS and the configuration FA4 chose (tile, stages, warpgroups, register split, ...).

    pip install flash-attn-4 torch        # FA4 brings nvidia-cutlass-dsl; torch may be a CPU build
    python3 scripts/fa4_sass.py --head_dim 128 --is_causal 0 --out /tmp/fa4_d128
    python3 scripts/sass_loops.py /tmp/fa4_d128/fa4.sass          # its key loop, as for fa-bench's

Session 36 compared rung 7 with FA4 this way, line by line, and spent no device time on it
(results/nvidia-h200/session36/README.md): the kernel goes through FA4's own interface
(flash_attn.cute.interface._flash_attn_fwd: the same tile heuristic and cute.compile as a real
call) with Q, K and V as torch fake tensors, which have shapes and no memory. FA4 reads the target
from FLASH_ATTENTION_ARCH and the SM count from FLASH_ATTENTION_NUM_SMS instead of asking a device,
and the CuTe DSL keeps what it compiled under CUTE_DSL_KEEP / CUTE_DSL_DUMP_DIR; cuobjdump (CUDA
toolkit, or the nvidia-cuda-cuobjdump wheel) disassembles the cubin.

Flags use fa-bench's names. Bad input gets one line naming the flag and the rule, exit status 2;
a missing package or tool one line saying what to install, exit status 1.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from peer_backends.fa4 import FlashAttention4

HEAD_DIMS = (64, 96, 128, 192, 256)  # what FA4 4.0's forward instantiates
DTYPES = {"BFloat16": "bfloat16", "Float16": "float16"}
ARCHS = ("sm_90a", "sm_100a")


class InputError(ValueError):
    """One line naming the flag and the rule it broke."""


def parse(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dtype", default="BFloat16")
    ap.add_argument("--batch_size", type=int, default=2)
    ap.add_argument("--num_head", type=int, default=16)
    ap.add_argument("--num_head_kv", type=int, default=0, help="K/V heads (default: num_head)")
    ap.add_argument("--seqlen_q", type=int, default=8192)
    ap.add_argument("--seqlen_k", type=int, default=8192)
    ap.add_argument("--head_dim", type=int, default=128)
    ap.add_argument("--is_causal", type=int, default=0)
    ap.add_argument("--arch", default="sm_90a", help="the target FA4 compiles for (default sm_90a)")
    ap.add_argument("--num_sms", type=int, default=132, help="SMs FA4's heuristics assume (H100/H200: 132)")
    ap.add_argument("--cuobjdump", default="", help="cuobjdump to disassemble with (default: on PATH)")
    ap.add_argument("--out", required=True, help="folder for fa4.cubin, fa4.ptx, fa4.sass, config.json")
    args = ap.parse_args(argv)
    check(args)
    return args


def check(args: argparse.Namespace) -> None:
    if args.dtype not in DTYPES:
        raise InputError(f"--dtype {args.dtype}: must be one of {', '.join(DTYPES)} (FA4's forward has no FP8 on sm90)")
    if args.head_dim not in HEAD_DIMS:
        raise InputError(f"--head_dim {args.head_dim}: must be one of {', '.join(map(str, HEAD_DIMS))}")
    for flag in ("batch_size", "num_head", "seqlen_q", "seqlen_k", "num_sms"):
        if getattr(args, flag) < 1:
            raise InputError(f"--{flag} {getattr(args, flag)}: must be at least 1")
    if args.num_head_kv < 0 or (args.num_head_kv and args.num_head % args.num_head_kv):
        raise InputError(f"--num_head_kv {args.num_head_kv}: must divide --num_head {args.num_head}")
    if args.is_causal not in (0, 1):
        raise InputError(f"--is_causal {args.is_causal}: must be 0 or 1")
    if args.arch not in ARCHS:
        raise InputError(f"--arch {args.arch}: must be one of {', '.join(ARCHS)}")


def missing_requirement(cuobjdump: str) -> str:
    """What is not installed, as one line; empty when everything is. The packages are peers.py's FA4
    backend's (peer_backends/fa4.py says what each is and how to install it)."""
    missing = FlashAttention4().unavailable()
    if missing:
        return missing
    if not shutil.which(cuobjdump):
        return f"{cuobjdump} not found: pass --cuobjdump, or install the CUDA toolkit (or pip install nvidia-cuda-cuobjdump)"
    return ""


def compile_kernel(args: argparse.Namespace, dump: Path) -> dict:
    """Runs FA4's interface on fake tensors with the DSL keeping its output in `dump`; returns the
    keyword arguments FA4 built its kernel object with (its chosen configuration)."""
    os.environ.update(FLASH_ATTENTION_ARCH=args.arch, CUTE_DSL_ARCH=args.arch,
                      FLASH_ATTENTION_NUM_SMS=str(args.num_sms), CUTE_DSL_KEEP="ptx,cubin",
                      CUTE_DSL_DUMP_DIR=str(dump))
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode

    from flash_attn.cute import interface

    chosen: dict = {}
    kernel_class = None
    if args.arch == "sm_90a":
        from flash_attn.cute.flash_fwd_sm90 import FlashAttentionForwardSm90 as kernel_class
    if kernel_class is not None:  # record the configuration FA4's heuristics picked
        original = kernel_class.__init__

        def recording_init(self, *a, **kw):
            original(self, *a, **kw)
            chosen.update({k: v for k, v in vars(self).items() if isinstance(v, (int, float, bool, str, tuple))})

        kernel_class.__init__ = recording_init
    dtype = getattr(torch, DTYPES[args.dtype])
    kv_heads = args.num_head_kv or args.num_head
    with FakeTensorMode():
        q = torch.empty(args.batch_size, args.seqlen_q, args.num_head, args.head_dim, dtype=dtype, device="cuda")
        k = torch.empty(args.batch_size, args.seqlen_k, kv_heads, args.head_dim, dtype=dtype, device="cuda")
        v = torch.empty(args.batch_size, args.seqlen_k, kv_heads, args.head_dim, dtype=dtype, device="cuda")
        interface._flash_attn_fwd(q, k, v, causal=bool(args.is_causal))
    return {k: list(v) if isinstance(v, tuple) else v for k, v in chosen.items()}


def main(argv: list[str] | None = None) -> int:
    try:
        args = parse(sys.argv[1:] if argv is None else argv)
    except InputError as error:
        print(f"fa4_sass.py: {error}", file=sys.stderr)
        return 2
    cuobjdump = args.cuobjdump or "cuobjdump"
    missing = missing_requirement(cuobjdump)
    if missing:
        print(f"fa4_sass.py: {missing}", file=sys.stderr)
        return 1
    out = Path(args.out)
    dump = out / "dump"
    shutil.rmtree(dump, ignore_errors=True)
    dump.mkdir(parents=True)
    config = compile_kernel(args, dump)
    cubins = sorted(dump.rglob("*.cubin"), key=lambda p: p.stat().st_mtime)
    if not cubins:
        print(f"fa4_sass.py: the CuTe DSL kept no cubin under {dump} (did FA4 compile?)", file=sys.stderr)
        return 1
    shutil.copy(cubins[-1], out / "fa4.cubin")
    ptx = sorted(dump.rglob("*.ptx"), key=lambda p: p.stat().st_mtime)
    if ptx:
        shutil.copy(ptx[-1], out / "fa4.ptx")
    sass = subprocess.run([cuobjdump, "-sass", str(out / "fa4.cubin")], capture_output=True, text=True, check=False)
    if sass.returncode != 0:
        print(f"fa4_sass.py: {cuobjdump} -sass failed: {sass.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
        return 1
    (out / "fa4.sass").write_text(sass.stdout)
    (out / "config.json").write_text(json.dumps({"problem": {k: v for k, v in vars(args).items() if k != "out"},
                                                 "fa4_kernel": config}, indent=1, default=str) + "\n")
    print(f"{out / 'fa4.sass'} ({sass.stdout.count(chr(10))} lines), fa4.cubin, fa4.ptx, config.json in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
