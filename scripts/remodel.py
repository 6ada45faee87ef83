#!/usr/bin/env python3
"""Recompute the napkin-model columns of results CSVs with today's model, from fa-bench itself.

    python3 scripts/remodel.py results/**/*.csv            # rewrite each file in place
    python3 scripts/remodel.py --check results/**/*.csv    # only report: max pct_of_bound, exit 1 past 100 %

A row's model needs only its problem, kernel and tile and the GPU's ceilings, so an old row can be
brought up to date without the GPU: for every distinct (kernel, problem, tile, split count) this
runs `fa-bench --explain --model_gpu GPU --csv` with CUDA_VISIBLE_DEVICES="" and copies the model
columns of fa-bench's row into the CSV's row. No formula of the model is repeated here; the only
arithmetic is the definitions of the two ratios of a timed row (pct_of_bound = bound_ms / median
time, pct_of_copy = bandwidth_gbs / practical_gbs).

What a row keeps: its measurement, and the practical figures it was measured against. A file
written before model v2 carried the cuBLAS GEMM and the device copy as peak_tflops / peak_gbs
(calibrated or from the table); those move to practical_tflops / practical_gbs / practical_source,
and pct_of_copy stays as measured. peak_* become the ceilings of model v2.

Peer rows (peers.py: torch_fa2, torch_cudnn, fa4, cute_fa2, ...) get the model of fa-bench's
fastest rung for their math unit (wgmma_overlap on sm_90, else mma) at its default tile: a peer's
tiling is not in the CSV, and only the L2 term depends on it (README: The napkin model).

A tile fa-bench does not build (the synthetic sample's) is modeled at the kernel's default tile,
and the script says how many rows took it.

Columns the file lacks are added next to the model columns, in fa-bench's order; other columns
and rows are left as they are.
"""
from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Sequence

import fa_schema

PROG = "remodel.py"

# The columns fa-bench's model fills (app/report.cpp), copied verbatim from its --explain row.
MODEL_COLUMNS = ("model_bytes", "model_hbm_bytes", "t_math_ms", "t_sfu_ms", "t_hbm_ms", "t_l2_ms", "bound_ms",
                 "bound_sum_ms", "bound_term", "peak_source", "peak_tflops", "peak_gbs", "peak_l2_gbs")
PRACTICAL_COLUMNS = ("practical_source", "practical_tflops", "practical_gbs")
RATIO_COLUMNS = ("pct_of_bound", "pct_of_copy")
TILE_COLUMNS = ("m_block_size", "n_block_size", "num_threads")
# GPUs whose fastest rung is the Hopper tier (min_sm 90 in the registry).
HOPPER_PREFIXES = ("NVIDIA H100", "NVIDIA H200")


class RemodelError(Exception):
    """One line for the user, exit status 2."""


def read_csv(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        return list(reader.fieldnames or []), list(reader)


def merged_columns(have: Sequence[str], schema_columns: Sequence[str]) -> list[str]:
    """`have` plus every model column of fa-bench's schema it lacks, each placed after the column
    that precedes it in the schema (so a file of the previous schema gets exactly today's)."""
    wanted = [c for c in (*MODEL_COLUMNS, *PRACTICAL_COLUMNS, *RATIO_COLUMNS) if c in schema_columns]
    out = list(have)
    for column in schema_columns:
        if column not in wanted or column in out:
            continue
        at = schema_columns.index(column)
        before = next((c for c in reversed(schema_columns[:at]) if c in out), None)
        out.insert(out.index(before) + 1 if before else len(out), column)
    return out


def model_kernel(row: dict[str, str], registry: set[str], gpu: str) -> tuple[str, bool]:
    """(the registry kernel whose model the row takes, whether the row's own tile applies)."""
    if row["kernel"] in registry:
        return row["kernel"], bool(row.get("m_block_size"))
    # A peer's row takes the model of fa-bench's kernel for its math unit: FP8 rows (cuDNN's FP8
    # attention) the FP8 rung's, the others the Hopper top rung's or, before Hopper, mma's.
    if row.get("dtype") == "Float8E4M3FN":
        return "wgmma_fp8", False
    return ("wgmma_overlap" if gpu.startswith(HOPPER_PREFIXES) else "mma"), False


def explain_flags(row: dict[str, str], kernel: str, own_tile: bool) -> tuple[str, ...]:
    """fa-bench flags of the row's problem, run as it was: kernel, tile, split count."""
    flags = ["--kernel", kernel, "--dtype", row["dtype"]]
    for column in ("batch_size", "seqlen_q", "seqlen_k", "num_head", "head_dim"):
        flags += [f"--{column}", row[column]]
    flags += ["--num_head_kv", row.get("num_head_kv") or row["num_head"], "--causal", row["is_causal"]]
    # A file from before split-KV ran none; a row whose count was unknown (no GPU) counts none.
    splits = row.get("num_splits") or "1"
    flags += ["--num_splits", splits if splits != "0" else "1"]
    if own_tile:
        for column in TILE_COLUMNS:
            flags += [f"--{column}", row[column]]
    return tuple(flags)


def explain_row(fa_bench: Path, gpu: str, flags: tuple[str, ...]) -> dict[str, str] | None:
    """fa-bench's --explain CSV row for the flags with --model_gpu gpu, or None when it has no
    model for them (a refused problem: UNSUPPORTED)."""
    with tempfile.TemporaryDirectory(prefix="remodel.") as tmp:
        out = Path(tmp) / "explain.csv"
        command = [str(fa_bench), "--explain", "--model_gpu", gpu, "--csv", str(out), *flags]
        env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
        if done.returncode not in (0, 2) or not out.is_file():
            why = fa_schema.first_line(done.stderr) or fa_schema.first_line(done.stdout)
            raise RemodelError(f"fa-bench --explain failed (exit {done.returncode}) for {' '.join(flags)}: {why}")
        _, rows = read_csv(out)
    if len(rows) != 1 or not rows[0].get("bound_ms"):
        return None
    return rows[0]


def ratio(numerator: str, denominator: str) -> str:
    """100 · a / b in fa-bench's format (6 significant digits); empty when either is missing."""
    try:
        a, b = float(numerator), float(denominator)
    except ValueError:
        return ""
    return f"{100.0 * a / b:.6g}" if b > 0 else ""


def without_tile(flags: tuple[str, ...]) -> tuple[str, ...]:
    out, skip = [], False
    for flag in flags:
        if skip:
            skip = False
        elif flag in tuple(f"--{c}" for c in TILE_COLUMNS):
            skip = True
        else:
            out.append(flag)
    return tuple(out)


def remodel_rows(fa_bench: Path, schema: fa_schema.Schema, columns_before: Sequence[str], rows: list[dict[str, str]],
                 model_gpu: str | None, jobs: int) -> tuple[list[dict[str, str]], int]:
    """The rows with today's model columns, and how many took their kernel's default tile."""
    registry = set(schema.rung_order)
    defaulted: set[tuple] = set()
    old_schema = "practical_source" not in columns_before  # peak_* held the practical figures then
    work: dict[tuple, tuple[str, tuple[str, ...]]] = {}
    keys = []
    for row in rows:
        gpu = model_gpu or row.get("gpu", "")
        kernel, own_tile = model_kernel(row, registry, gpu)
        flags = explain_flags(row, kernel, own_tile)
        keys.append((gpu, flags))
        work[(gpu, flags)] = (gpu, flags)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        answers = dict(zip(work, pool.map(lambda item: explain_row(fa_bench, *item), work.values())))
        # A tile fa-bench does not build (a synthetic row's) is modeled at the kernel's default tile.
        retry = {key: (key[0], without_tile(key[1])) for key, answer in answers.items()
                 if answer is None and "--m_block_size" in key[1]}
        for key, answer in zip(retry, pool.map(lambda item: explain_row(fa_bench, *item), retry.values())):
            if answer is not None:
                answers[key] = answer
                defaulted.add(key)
    out = []
    for row, key in zip(rows, keys):
        row = dict(row)
        if old_schema:
            row["practical_source"] = row.get("peak_source", "")
            row["practical_tflops"] = row.get("peak_tflops", "")
            row["practical_gbs"] = row.get("peak_gbs", "")
        model = answers[key]
        for column in MODEL_COLUMNS:
            row[column] = model[column] if model else ""
        if model and not row.get("practical_gbs"):
            for column in PRACTICAL_COLUMNS:
                row[column] = model[column]
        timed = bool(row.get("time_ms_median"))
        # A FAIL row did not compute attention: the bound says nothing about its time (as fa-bench).
        held = timed and model and row.get("check") != "FAIL"
        row["pct_of_bound"] = ratio(row["bound_ms"], row["time_ms_median"]) if held else ""
        if timed and not row.get("pct_of_copy"):
            row["pct_of_copy"] = ratio(row.get("bandwidth_gbs", ""), row.get("practical_gbs", ""))
        out.append(row)
    return out, sum(1 for key in keys if key in defaulted)


def max_pct(rows: list[dict[str, str]]) -> tuple[float, dict[str, str] | None]:
    best, where = float("-inf"), None
    for row in rows:
        if row.get("pct_of_bound"):
            value = float(row["pct_of_bound"])
            if value > best:
                best, where = value, row
    return best, where


def describe(row: dict[str, str]) -> str:
    shape = f"{row['batch_size']}x{row['num_head']}x{row['seqlen_q']}x{row['seqlen_k']}x{row['head_dim']}"
    kv = row.get("num_head_kv") or row["num_head"]
    return (f"{row['kernel']} {row['dtype']} {shape} hkv{kv} causal {row['is_causal']}: "
            f"{row['tflops']} TFLOP/s, bound {row['bound_ms']} ms ({row['bound_term']}), time {row['time_ms_median']} ms")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0])
    parser.add_argument("csv", nargs="+", type=Path, help="results CSVs (files without pct_of_bound are skipped)")
    parser.add_argument("--model_gpu", help="the GPU whose ceilings to use (default: each row's gpu column)")
    parser.add_argument("--check", action="store_true",
                        help="rewrite nothing: recompute, print each file's max pct_of_bound, exit 1 if any is > 100")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="fa-bench calls at once")
    fa_schema.add_arguments(parser, schema_json=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        schema = fa_schema.load(args.fa_bench)
        fa_bench = schema.fa_bench
        overall, overall_row, overall_file = float("-inf"), None, None
        for path in args.csv:
            columns, rows = read_csv(path)
            if "pct_of_bound" not in columns:
                print(f"{path}: no pct_of_bound column, skipped")
                continue
            new_rows, defaulted = remodel_rows(fa_bench, schema, columns, rows, args.model_gpu, max(args.jobs, 1))
            if defaulted:
                print(f"{path}: {defaulted} row(s) with a tile fa-bench does not build: modeled at the kernel's "
                      "default tile")
            new_columns = merged_columns(columns, schema.columns)
            if not args.check:
                with path.open("w", newline="", encoding="utf-8") as f:
                    writer = csv.DictWriter(f, fieldnames=new_columns, lineterminator="\n")
                    writer.writeheader()
                    writer.writerows(new_rows)
            best, row = max_pct(new_rows)
            if row is None:
                print(f"{path}: {len(new_rows)} rows, none timed")
                continue
            print(f"{path}: {len(new_rows)} rows, max pct_of_bound {best:.1f} % ({describe(row)})")
            if best > overall:
                overall, overall_row, overall_file = best, row, path
    except (fa_schema.SchemaError, RemodelError, OSError, KeyError) as error:
        print(f"{PROG}: {fa_schema.first_line(str(error))}", file=sys.stderr)
        return 2
    if overall_row is not None:
        print(f"max pct_of_bound over all files: {overall:.1f} % in {overall_file} ({describe(overall_row)})")
    return 1 if overall > 100.0 else 0


if __name__ == "__main__":
    sys.exit(main())
