#!/usr/bin/env python3
"""Time peer attention implementations on fa-bench's problems and append fa-bench CSV rows.

Peers (--backends, a comma list; the modules are in scripts/peer_backends/):
    fa2, cudnn, efficient, math  PyTorch SDPA with that backend forced        -> kernel torch_<name>
    fa4                          FlashAttention-4, flash_attn.cute.flash_attn_func (flash-attn-4) -> fa4
    cute                         CUTLASS's CuTe DSL example flash_attention_v2.py (seed 001), from
                                 --cute-example PATH or $FA_CUTE_EXAMPLE, at the tile flags  -> cute_fa2
    cudnn_fp8                    cuDNN's FP8 attention, a cudnn-frontend sdpa_fp8 graph (PyPI
                                 nvidia-cudnn-frontend), --dtype Float8E4M3FN only       -> cudnn_fp8
    auto                         fa2 and cudnn, plus fa4 and cute when they are installed / given

A peer whose package (or example path) is missing still gets its rows: times empty, `note` saying
"skipped: <why>"; a peer that refuses a shape or dtype gets a row whose note holds its reason.
Nothing is silently absent.

FP8 (--dtype Float8E4M3FN): Q, K and V are fa-bench's FP8 inputs (README "FP8 (e4m3)"): the same
standard-normal draw, each tensor quantized to e4m3 with its own power-of-two scale, and --check's
reference reads the dequantized values. Only cudnn_fp8 takes them; the other peers' rows say so.

The rows have exactly fa-bench's CSV columns (`fa-bench --schema`), and their softmax_scale, flops,
compulsory_bytes and arithmetic_intensity are fa-bench's own analytic rows for the same problems,
so TFLOP/s compare with the kernels' rows exactly. The binary is therefore needed: --fa-bench PATH,
else $FA_BENCH, else build/fa-bench. Check tolerances are fa-bench's too (--check).

GQA/MQA (--num_head_kv): K and V are made with num_head_kv heads and handed over as they are
(SDPA with enable_gqa=True, FA4 natively), so a peer reads the K/V bytes fa-bench's rows count; the
CuTe DSL example has no GQA and says so in its rows. --num_splits goes to the peers that take a
split count (FA4), one row per value; the SDPA backends choose their own.

Examples (on a GPU machine, with a Python that has PyTorch):
    python3 scripts/peers.py --grid fa2 --backends fa2,cudnn --csv runs.csv --check
    python3 scripts/peers.py --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --num_head 16 --head_dim 128 \\
        --causal 0,1 --backends fa4,cute --cute-example ~/cutlass
    python3 scripts/peers.py --grid decode --backends fa2,cudnn,fa4 --num_splits 0,1 --csv decode.csv --check
    python3 scripts/peers.py --batch_size 1 --seqlen_q 1 --seqlen_k 131072 --num_head 32 --num_head_kv 32,8
    python3 scripts/peers.py --grid fa2 --backends cudnn,cudnn_fp8 --dtype BFloat16,Float8E4M3FN --check

torch and the peers' packages are imported only when measuring, so the helpers (problem lists,
rows, CSV) import and test without them.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Sequence

import fa_schema
from peer_backends import AUTO, BACKENDS
from peer_backends.common import (PROG, Backend, Problem, Refusal, cartesian_problems, decode_grid, fa2_grid,
                                  format_table, parse_int_list, parse_name_list, run_problems, tiles_of)
from peer_backends.timing import IDLE_GAP_S, Settings

# The problem flags, named as fa-bench's; their defaults are fa-bench's (schema "defaults").
SHAPE_FLAGS = ("batch_size", "seqlen_q", "seqlen_k", "num_head", "head_dim")
# What --grid replaces besides the shape flags.
GRID_FLAGS = (*SHAPE_FLAGS, "num_head_kv")
GRIDS = ("fa2", "decode")
TILE_FLAGS = ("m_block_size", "n_block_size", "num_threads")


def parse_backends(text: str) -> list[str]:
    """'fa2,cudnn' -> ['fa2', 'cudnn']; unknown names are a usage error, duplicates are dropped."""
    names = parse_name_list(text)
    for name in names:
        if name != "auto" and name not in BACKENDS:
            raise argparse.ArgumentTypeError(f"{name}: unknown backend (choose from {', '.join(BACKENDS)}, auto)")
    if not names:
        raise argparse.ArgumentTypeError("no backend given")
    return names


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Time peer attention implementations on fa-bench's problems; append fa-bench CSV rows.",
        epilog="backends:\n" + "\n".join(f"  {b.name:<10} {b.kernel:<16} {b.title}" for b in BACKENDS.values())
               + f"\n  {'auto':<10} {'':<16} {', '.join(AUTO[:2])}, plus {', '.join(AUTO[2:])} when installed/given")
    parser.add_argument("--backends", type=parse_backends, default=["fa2", "cudnn"],
                        help="comma list of the backends below, or auto (default fa2,cudnn)")
    parser.add_argument("--grid", choices=GRIDS,
                        help="fa2: FlashAttention-2's benchmark grid + fa-bench's default problem, causal 0,1; "
                             "decode: the anchors' decode shapes and the B=1 seqlen_k series with 32 and 8 K/V "
                             "heads, and GQA prefill 4x32x8192x128 with 8 and 32 K/V heads, causal 0,1 "
                             "(either replaces the shape flags)")
    parser.add_argument("--dtype", type=parse_name_list, default=None,
                        help="Float16, BFloat16, Float32 or Float8E4M3FN (FP8: cudnn_fp8 only); comma list "
                             "(default: fa-bench's, BFloat16)")
    for flag in SHAPE_FLAGS:
        parser.add_argument(f"--{flag}", type=parse_int_list, help="comma list (default: fa-bench's)")
    parser.add_argument("--num_head_kv", type=parse_int_list,
                        help="K/V heads (GQA; 1 = MQA), each dividing every --num_head; comma list "
                             "(default: as many as --num_head)")
    parser.add_argument("--num_splits", type=parse_int_list, default=[0],
                        help="split-KV chunks for the peers that take a count (fa4), one row per value: 0 = the "
                             "peer's own heuristic (default), 1 = off, N = N chunks; comma list")
    causal = parser.add_mutually_exclusive_group()
    causal.add_argument("--is_causal", action="store_true", help="causal mask, top-left aligned")
    causal.add_argument("--causal", type=parse_int_list, help="causal sweep: comma list of 0/1, e.g. 0,1")
    parser.add_argument("--softmax_scale", type=float, default=0.0, help="default 1/sqrt(head_dim), as fa-bench")
    for flag in TILE_FLAGS:
        parser.add_argument(f"--{flag}", type=parse_int_list,
                            help="tiled backends (cute) only: comma list (default: the CuTe DSL example's)")
    parser.add_argument("--warmup_iterations", type=int, default=5, help="untimed launches first (default 5)")
    parser.add_argument("--warmup_time", type=float, default=0.2,
                        help="then seconds of untimed launches, at least (default 0.2, as fa-bench)")
    parser.add_argument("--gpu_warmup_time", type=float, default=1.0,
                        help=f"seconds of warm-up instead for a row that follows >= {IDLE_GAP_S} s without "
                             "timed launches (the first row, a row after a JIT compile): as fa-bench's first "
                             "row (default 1)")
    parser.add_argument("--iterations", type=int,
                        help="exactly N timed launches (default: batches of 20 until --min_time, as fa-bench's "
                             "stopping rule)")
    parser.add_argument("--min_time", type=float, default=0.2,
                        help="seconds of timed launches, at least, when --iterations is not given (default 0.2)")
    parser.add_argument("--max_time", type=float, default=2.0,
                        help="seconds of timed launches after which timing stops (default 2)")
    parser.add_argument("--use_cold_l2", action="store_true", help="overwrite 2x L2 before every timed launch")
    parser.add_argument("--check", action="store_true",
                        help="compare with an fp32 math reference when B*H*Sq*Sk <= 2^28 (else SKIPPED)")
    parser.add_argument("--seed", type=int, default=0, help="seed of torch's generator (default 0)")
    parser.add_argument("--device", type=int, default=0, help="CUDA device ordinal (default 0)")
    parser.add_argument("--csv", help="append rows to FILE (header written once)")
    parser.add_argument("--cute-example", metavar="PATH",
                        help="the CuTe DSL example flash_attention_v2.py, or a CUTLASS checkout holding it "
                             "(default $FA_CUTE_EXAMPLE)")
    fa_schema.add_arguments(parser, schema_json=False)  # the analytic rows need the binary itself
    return parser


def problems_from_args(args, schema: fa_schema.Schema) -> list[Problem]:
    """The problem list the flags ask for: --grid fa2, or the cartesian product of the shape flags."""
    defaults = schema.defaults
    dtypes = args.dtype or [defaults["dtype"]]
    if args.grid:
        given = [f"--{flag}" for flag in GRID_FLAGS if getattr(args, flag) is not None]
        if given or args.is_causal or args.causal is not None:
            print(f"{PROG}: --grid {args.grid} sets the shapes; ignoring {' '.join(given) or 'the causal flags'}",
                  file=sys.stderr)
        return fa2_grid(dtypes, defaults) if args.grid == "fa2" else decode_grid(dtypes)
    shape = {flag: getattr(args, flag) or [defaults[flag]] for flag in SHAPE_FLAGS}
    causals = [1] if args.is_causal else (args.causal or [defaults["is_causal"]])
    return cartesian_problems(dtypes, shape["batch_size"], shape["seqlen_q"], shape["seqlen_k"],
                              shape["num_head"], shape["head_dim"], causals, args.num_head_kv or [0])


def select_backends(names: Sequence[str], args) -> tuple[list[Backend], dict[str, str]]:
    """The backends to run and, for those that cannot run here, why. `auto` adds the AUTO ones
    that are available and says on stderr which it left out; a backend named outright always
    gets its rows, with the reason when it cannot run."""
    named = [n for n in names if n != "auto"]
    order = list(dict.fromkeys([*(AUTO if "auto" in names else ()), *named]))
    chosen, skip = [], {}
    for name in order:
        backend = BACKENDS[name]
        backend.configure(args)
        why = backend.unavailable()
        if why and name not in named:
            print(f"{PROG}: auto: leaving out {name}: {why}", file=sys.stderr)
            continue
        chosen.append(backend)
        if why:
            skip[name] = why
    return chosen, skip


# Timed launches per batch when --iterations is not given (the old fixed count).
DEFAULT_BATCH = 20


def main(argv: Sequence[str] | None = None) -> int:
    """0: all rows written; 1: some check FAILed; 2: bad flags, no fa-bench, no torch or no GPU."""
    parser = build_parser()
    args = parser.parse_args(argv)  # a bad flag exits here with status 2
    if args.iterations is not None and args.iterations < 1:
        parser.error("--iterations must be >= 1")
    if args.warmup_iterations < 0:
        parser.error("--warmup_iterations must be >= 0")
    for flag in ("warmup_time", "gpu_warmup_time", "min_time"):
        value = getattr(args, flag)
        if not math.isfinite(value) or value < 0:
            parser.error(f"--{flag} must be a finite number of seconds >= 0")
    if not math.isfinite(args.max_time) or args.max_time <= 0:
        parser.error("--max_time must be a finite number of seconds > 0")
    if args.causal is not None and any(c not in (0, 1) for c in args.causal):
        parser.error(f"--causal {','.join(map(str, args.causal))}: each value must be 0 or 1")
    for flag in (*SHAPE_FLAGS, "num_head_kv", *TILE_FLAGS):
        if any(v <= 0 for v in getattr(args, flag) or []):
            parser.error(f"--{flag}: every value must be a positive integer")
    if any(n < 0 for n in args.num_splits):
        parser.error(f"--num_splits {','.join(map(str, args.num_splits))}: 0 (heuristic), 1 (off) or a count")
    try:
        schema = fa_schema.from_args(args)
    except fa_schema.SchemaError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 2
    for name in args.dtype or []:
        if name not in schema.dtypes:
            parser.error(f"--dtype {name}: must be one of {', '.join(schema.dtypes)}")
    if args.num_head_kv and not args.grid:  # fa-bench's rule: every pair of the two lists
        for heads in args.num_head or [schema.defaults["num_head"]]:
            for kv in args.num_head_kv:
                if heads % kv:
                    parser.error(f"--num_head_kv {kv} with --num_head {heads}: num_head_kv must divide num_head")
    problems = problems_from_args(args, schema)
    tiles = tiles_of(args.m_block_size, args.n_block_size, args.num_threads, schema.example_tile)
    try:
        import torch
    except ImportError:
        print(f"{PROG}: PyTorch is not installed; no peer rows written", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print(f"{PROG}: no CUDA device visible to PyTorch; no peer rows written", file=sys.stderr)
        return 2
    backends, skip = select_backends(args.backends, args)
    if not backends:
        print(f"{PROG}: auto found no backend to run; no peer rows written", file=sys.stderr)
        return 2
    try:
        analytic = fa_schema.analytic_rows(schema.fa_bench, [p.key for p in problems], args.softmax_scale or None)
    except fa_schema.SchemaError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 2
    for backend in backends:
        if backend.name not in skip:
            try:
                backend.setup(torch)
            except Refusal as refusal:
                skip[backend.name] = str(refusal)
    # --iterations N: exactly N timed launches (fa-bench's meaning); else batches of 20 until
    # --min_time seconds, so peer rows are timed as long as fa-bench's default rows are.
    settings = Settings(warmup_iterations=args.warmup_iterations, iterations=args.iterations or DEFAULT_BATCH,
                        use_cold_l2=args.use_cold_l2, check=args.check, seed=args.seed, device=args.device,
                        num_splits=tuple(dict.fromkeys(args.num_splits)), warmup_time=args.warmup_time,
                        gpu_warmup_time=args.gpu_warmup_time,
                        min_time=0.0 if args.iterations else args.min_time, max_time=args.max_time)
    rows = run_problems(torch, problems, backends, skip, tiles, settings, schema.columns, analytic,
                        schema.tolerance, Path(args.csv) if args.csv else None)
    print(format_table(rows))
    if args.csv:
        print(f"{PROG}: appended {len(rows)} rows to {args.csv}")
    failed = sum(row["check"] == "FAIL" for row in rows)
    if failed:
        print(f"{PROG}: {failed} rows FAILed the reference check", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
