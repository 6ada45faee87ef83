#!/usr/bin/env python3
"""Nsight Compute counters for fa-bench's kernels, joined with fa-bench's napkin model.

    build/venv/bin/python scripts/ncu_profile.py --kernel mma,naive --batch_size 4 --seqlen_q 4096 \\
        --seqlen_k 4096 --num_head 16 --head_dim 128 --causal 0,1 --out /tmp/ncu.csv
    build/venv/bin/python scripts/ncu_profile.py --from-ncu-csv results/nvidia-h100-80gb-hbm3/ncu.raw.csv \\
        --explain-csv explain.csv

What it runs (the problem and tile flags are passed to fa-bench verbatim, so fa-bench checks them):
  1. fa-bench --explain --csv TMP ...           the model columns: tile, model_bytes, compulsory_bytes
  2. ncu --nvtx --nvtx-include "regex:<domain>@.*/" --csv --page raw --print-units base
         --metrics LIST --clock-control none|base --log-file TMP fa-bench --profile ...
     --profile launches each kernel once per problem inside an NVTX range of fa-bench's domain;
     the domain and the range-name format ("<kernel> <dtype> b<B> h<H> sq<Sq> sk<Sk> d<D> c<0|1>"
     today) come from `fa-bench --schema`, so the filter and the parser follow fa-bench. The
     include filter drops everything outside those ranges (the input generator normal_kernel).
     --log-file keeps ncu's report apart from fa-bench's own stdout. The report is saved next to
     --out as <out stem>.raw.csv, after three "# ncu_profile.py: key=value" lines (ncu version,
     clock control, command) that --from-ncu-csv reads back.

Reading ncu's CSV: lines before the header row (the first line starting with "ID") are ncu's
"==PROF==" banner and are skipped; the row after the header is the units row when its ID cell is
empty. Numbers may carry thousands separators ("1,234"); "n/a" or an absent metric column becomes
an empty value. Durations are converted to ms and byte counts to bytes from the units row.

Attributing launches to fa-bench ranges (the naive kernel launches several kernels per range:
two cuBLAS GEMMs and a softmax):
  * NVTX text: the first column whose name contains "nvtx" (any case), "push_pop" or "domain",
    else any other text column (e.g. "Kernel Name" under --print-nvtx-rename kernel), whose
    cells contain a range name; the last range name in a cell is the innermost.
  * Without one, by launch order against the runnable rows of the explain CSV (fa-bench profiles
    in the order it explains): every kernel but naive launches exactly once per range, and the
    launches left over are split evenly over the naive ranges. If they do not split evenly,
    the script stops and says so (profile naive on its own, or use a report with NVTX text).
  When a tile sweep gives one (kernel, problem) several explain rows, their ranges share a name
  and each launch takes the next row (kernels with a tile launch once per range).

Per (kernel, problem, tile): duration, DRAM bytes read and written and shared-memory bank
conflicts (loads + stores) are summed over the range's launches; tensor-pipe utilisation and
achieved occupancy are duration-weighted means; registers per thread is the maximum. The tensor
pipe is HMMA (mma.sync) or GMMA (wgmma), whichever is busier; "none" when both read 0.

Output: --out CSV (OUTPUT_COLUMNS below, in fa-bench's run order) and, on stdout, a markdown table
of predicted (model) vs measured DRAM bytes for the README.

Validation of the napkin model v2 (issue #14; README "Validating the model"):
    build/venv/bin/python scripts/ncu_profile.py --preset validation --out results/<gpu>/ncu_validation.csv
profiles every rung on three shapes (PRESETS) and prints, per rung and shape, model_hbm_bytes
against ncu's DRAM bytes and model_bytes (the L2->SM term) against the bytes the crossbar carried
between the SMs and the L2 (l1tex__m_xbar2l1tex_read_bytes + l1tex__m_l1tex2xbar_write_bytes; the
reads alone also against model_bytes less O), marking whether both agree within 20 %. The crossbar,
because the L2's lts__t_sectors_srcunit_tex · 32 B misses bytes the SMs receive (H100, ncu 2025.3.1:
wgmma_tma / wgmma_overlap at 4x16x4096x128 3,428 / 3,004 MB where the crossbar carried 4,362.1 MB, the
model's reads; tiled on the decode shape 939.7 MB for 2,147.5 MB); that counter stays as a column and
stands in, marked, for the crossbar in an older report without it. `--table validation` prints that
table for any run or --from-ncu-csv report whose explain CSV has model_hbm_bytes.

fa-bench is --fa-bench PATH, else $FA_BENCH, else build/fa-bench; --from-ncu-csv also takes
--schema-json FILE (a saved `fa-bench --schema`) instead.

Exit status: 0 written; 1 ncu or fa-bench failed, or the counters are not permitted
(ERR_NVGPUCTRPERM); 2 bad input: ncu or fa-bench not found, unreadable or inconsistent CSV files.
"""
from __future__ import annotations

import argparse
import csv
import io
import math
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import pandas as pd

import fa_schema

PROG = "ncu_profile.py"

META_PREFIX = "# ncu_profile.py:"

# The metrics, in base units (--print-units base).
M_DURATION = "gpu__time_duration.sum"
M_DRAM_READ = "dram__bytes_read.sum"
M_DRAM_WRITE = "dram__bytes_write.sum"
M_HMMA = "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"  # mma.sync
M_GMMA = "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active"  # wgmma, sm_90+
M_BANK_LD = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
M_BANK_ST = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
M_OCCUPANCY = "sm__warps_active.avg.pct_of_peak_sustained_active"
M_REGISTERS = "launch__registers_per_thread"
M_GRID = "launch__grid_size"
M_BLOCK = "launch__block_size"
# L2 traffic for the model's L2->SM term: every byte the L2 slices served (lts__t_bytes, which also
# counts DRAM fills and traffic between the H100's two L2 partitions); the bytes the crossbar carried
# from the L2 to the SMs' L1/TEX units (loads, TMA) and back (stores): the L2->SM bytes the model
# predicts; and the sectors the L2 counts as asked by the SMs, 32 B each, which reads fewer bytes
# than the SMs receive (the module's docstring) and is kept for comparison and for old reports.
M_L2 = "lts__t_bytes.sum"
M_XBAR_READ = "l1tex__m_xbar2l1tex_read_bytes.sum"
M_XBAR_WRITE = "l1tex__m_l1tex2xbar_write_bytes.sum"
M_L2_SM_SECTORS = "lts__t_sectors_srcunit_tex.sum"
METRICS = [M_DURATION, M_DRAM_READ, M_DRAM_WRITE, M_HMMA, M_GMMA, M_BANK_LD, M_BANK_ST, M_OCCUPANCY,
           M_REGISTERS, M_GRID, M_BLOCK, M_L2, M_XBAR_READ, M_XBAR_WRITE, M_L2_SM_SECTORS]
# Metrics a GPU may not have (no wgmma before Hopper), or a report from before the L2 columns:
# ncu is re-run without them if it rejects them, and a missing column is not worth a warning.
OPTIONAL_METRICS = [M_GMMA, M_L2, M_XBAR_READ, M_XBAR_WRITE, M_L2_SM_SECTORS]
SECTOR_BYTES = 32
# What l2_sm_counter says measured l2_sm_bytes: the crossbar, or the L2's sectors in its stead.
COUNTER_XBAR = "xbar"
COUNTER_LTS = "lts_tex"
# Without these there is nothing to report.
REQUIRED_METRICS = [M_DURATION, M_DRAM_READ, M_DRAM_WRITE]

# Kernels that launch several CUDA kernels per NVTX range, as many as cuBLAS picks; every other
# kernel launches one, or as many as launches_per_range says.
MULTI_LAUNCH_KERNELS = {"naive"}
# Rung 8 runs its V pre-pass before the attention kernel where at least this many query rows read
# each K/V head, half as many at head_dim 256 (lib/kernels/08_wgmma_fp8.cu, use_vt_prepass; the same
# rule, mirrored).
FP8_PREPASS_MIN_ROWS = 4096
FP8_PREPASS_MIN_ROWS_CAUSAL = 8192

KEY_COLUMNS = ["kernel", "dtype", "batch_size", "num_head", "num_head_kv", "seqlen_q", "seqlen_k", "head_dim",
               "is_causal"]
EXPLAIN_COLUMNS = [*KEY_COLUMNS, "m_block_size", "n_block_size", "num_threads", "compulsory_bytes", "model_bytes"]
# Model v2's predicted DRAM bytes; an explain CSV from before it has model_bytes only (then DRAM
# compares with model_bytes, model v1's no-reuse DRAM estimate).
EXPLAIN_HBM_COLUMN = "model_hbm_bytes"

OUTPUT_COLUMNS = [
    "kernel", "dtype", "batch_size", "num_head", "num_head_kv", "seqlen_q", "seqlen_k", "head_dim", "is_causal", "tile",
    "duration_ms", "dram_read_bytes", "dram_write_bytes", "dram_bytes", "model_bytes", "compulsory_bytes",
    "measured_over_model", "tensor_pipe_pct", "pipe", "smem_bank_conflicts", "achieved_occupancy_pct",
    "registers", "clock_control", "ncu_version", "launches",
    # model v2 (validation): predicted DRAM and L2->SM bytes against ncu's. l2_sm_bytes is the
    # crossbar's read + write bytes (l2_sm_counter "xbar"), or l2_tex_sector_bytes for a report
    # without them ("lts_tex"); l2_sm_read_over_model sets the reads against model_bytes less O.
    "model_hbm_bytes", "l2_bytes", "l2_sm_bytes", "l2_sm_read_bytes", "l2_sm_write_bytes", "l2_tex_sector_bytes",
    "l2_sm_counter", "l2_sm_over_model", "l2_sm_read_over_model",
]
# The agreement the validation table marks (issue #14: within 20 %).
AGREEMENT = 0.20

# --preset validation: three shapes, every rung (issue #14): the README's measured prefill shape,
# a head_dim-64 causal one (short rows, the SFU's term the largest relative to the math), and a GQA
# decode step (packed heads, split-KV partials, a 2 GiB KV cache streamed once).
PRESETS = {
    "validation": [
        {"batch_size": "4", "num_head": "16", "seqlen_q": "4096", "seqlen_k": "4096", "head_dim": "128", "causal": "0"},
        {"batch_size": "2", "num_head": "32", "seqlen_q": "8192", "seqlen_k": "8192", "head_dim": "64", "causal": "1"},
        {"batch_size": "1", "num_head": "32", "num_head_kv": "8", "seqlen_q": "1", "seqlen_k": "131072",
         "head_dim": "128", "causal": "0"},
    ],
}

# Units ncu may print; with --print-units base only nsecond and byte should appear.
TIME_TO_MS = {"nsecond": 1e-6, "ns": 1e-6, "usecond": 1e-3, "us": 1e-3, "msecond": 1.0, "ms": 1.0,
              "second": 1e3, "s": 1e3}
BYTE_SCALE = {"byte": 1.0, "kbyte": 1e3, "mbyte": 1e6, "gbyte": 1e9, "tbyte": 1e12,
              "kibyte": 2.0 ** 10, "mibyte": 2.0 ** 20, "gibyte": 2.0 ** 30, "tibyte": 2.0 ** 40}
BYTE_METRICS = {M_DRAM_READ, M_DRAM_WRITE, M_L2, M_XBAR_READ, M_XBAR_WRITE}

# fa-bench flags forwarded verbatim to both fa-bench runs (README "Flags").
VALUE_FLAGS = ["dtype", "batch_size", "seqlen_q", "seqlen_k", "num_head", "num_head_kv", "num_splits", "head_dim",
               "causal", "softmax_scale", "m_block_size", "n_block_size", "num_threads", "layout", "seed", "device"]

FAILURE_TAIL_LINES = 20
PERMISSION_ERROR = "ERR_NVGPUCTRPERM"


class DataError(Exception):
    """A problem with the input the user must fix: printed as one line, exit status 2."""


@dataclass(frozen=True)
class RangeNames:
    """fa-bench's --profile range names, read from and written as the schema says (fa-bench's
    NVTX domain and range format), as KEY_COLUMNS tuples."""
    pattern: re.Pattern
    schema: fa_schema.Schema

    @classmethod
    def of(cls, schema: fa_schema.Schema) -> "RangeNames":
        pattern = schema.range_pattern()
        missing = [c for c in KEY_COLUMNS if c not in pattern.groupindex]
        if missing:
            raise DataError(f"fa-bench's NVTX range names ({schema.data['nvtx']['problem']!r}) lack "
                            f"{', '.join(missing)}; this script needs them to attribute launches")
        return cls(pattern, schema)

    def parse(self, text: str) -> tuple | None:
        """The innermost fa-bench range name in a cell -> key tuple (KEY_COLUMNS order), or None."""
        matches = list(self.pattern.finditer(text))
        if not matches:
            return None
        m = matches[-1]
        return tuple(m[c] if c in ("kernel", "dtype") else int(m[c]) for c in KEY_COLUMNS)

    def format(self, key: tuple) -> str:
        """Key tuple -> the range name fa-bench used."""
        fields = dict(zip(KEY_COLUMNS, key))
        return self.schema.format_range(fields.pop("kernel"), **fields)


class RunError(Exception):
    """A tool failed: printed (message, then the tool's last lines), exit status 1."""


# ----------------------------------------------------------------------------------------------
# Reading ncu's CSV
# ----------------------------------------------------------------------------------------------

@dataclass
class NcuReport:
    """The launches of one ncu --csv --page raw report."""
    launches: pd.DataFrame  # id, kernel_name, range_key (tuple or None), one column per metric found
    metrics_found: list[str]
    attribution: str  # where range_key came from, for the user
    meta: dict[str, str] = field(default_factory=dict)  # this script's "# ncu_profile.py:" lines
    names: RangeNames | None = None  # how range names read and print


def parse_number(text: str) -> float:
    """'1,234,567' -> 1234567.0; '', 'n/a', '-' and other non-numbers -> NaN."""
    text = text.strip().replace(",", "")
    try:
        return float(text)
    except ValueError:
        return math.nan


def to_base_unit(metric: str, value: float, unit: str) -> float:
    """Durations to ms, byte counts to bytes; everything else as printed."""
    unit = unit.strip().lower()
    if metric == M_DURATION:
        return value * TIME_TO_MS.get(unit, 1e-6)  # no unit: ncu's base, ns
    if metric in BYTE_METRICS:
        return value * BYTE_SCALE.get(unit, 1.0)
    return value


def split_report(text: str, source: str) -> tuple[dict[str, str], list[str], list[str] | None, list[list[str]]]:
    """(meta, header, units or None, data rows) of an ncu raw-page CSV with its banner lines."""
    lines = text.splitlines()
    meta = {}
    header_at = None
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith(META_PREFIX):
            key, _, value = stripped[len(META_PREFIX):].strip().partition("=")
            meta[key.strip()] = value.strip()
        elif stripped.startswith('"ID"') or stripped.startswith("ID,"):
            header_at = i
            break
    if header_at is None:
        raise DataError(f"{source}: no ncu CSV header (a line starting with \"ID\"); "
                        "was it written by ncu --csv --page raw?")
    rows = list(csv.reader(io.StringIO("\n".join(lines[header_at:]))))
    header = [name.strip() for name in rows[0]]
    units = None
    data = []
    for row in rows[1:]:
        if len(row) != len(header):
            continue  # a banner line after the table ("==PROF== ...") or a stray line
        first = row[0].strip()
        if not first and units is None and not data:
            units = row
        elif first.isdigit():
            data.append(row)
    return meta, header, units, data


def find_column(header: Sequence[str], name: str) -> int | None:
    """Index of the column named `name` (exactly, else ignoring case), or None."""
    if name in header:
        return list(header).index(name)
    lowered = [h.lower() for h in header]
    return lowered.index(name.lower()) if name.lower() in lowered else None


def nvtx_candidate_columns(header: Sequence[str], skip: set[int]) -> list[int]:
    """Columns that may hold NVTX range names: NVTX-looking names first, then every other one."""
    def looks_nvtx(name: str) -> bool:
        name = name.lower()
        return "nvtx" in name or "push_pop" in name or "domain" in name
    first = [i for i, name in enumerate(header) if i not in skip and looks_nvtx(name)]
    rest = [i for i in range(len(header)) if i not in skip and i not in first]
    return first + rest


def parse_ncu_csv(text: str, names: RangeNames, source: str = "ncu CSV") -> NcuReport:
    """One row per kernel launch, metrics in base units, with the fa-bench range when known."""
    meta, header, units, rows = split_report(text, source)
    if not rows:
        raise DataError(f"{source}: the ncu report has no kernel launches (did the NVTX filter match nothing?)")
    metric_at = {m: find_column(header, m) for m in METRICS}
    missing = [m for m in REQUIRED_METRICS if metric_at[m] is None]
    if missing:
        raise DataError(f"{source}: missing metric column{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    absent = [m for m in METRICS if metric_at[m] is None and m not in OPTIONAL_METRICS]
    if absent:
        print(f"{PROG}: warning: {source} has no column for {', '.join(absent)}; left empty", file=sys.stderr)
    id_at = find_column(header, "ID")
    name_at = find_column(header, "Kernel Name")

    records = []
    for row in rows:
        record = {"id": int(row[id_at].strip()), "kernel_name": row[name_at] if name_at is not None else ""}
        for metric, at in metric_at.items():
            if at is None:
                record[metric] = math.nan
            else:
                record[metric] = to_base_unit(metric, parse_number(row[at]), units[at] if units else "")
        records.append(record)

    # Range names: the first column (NVTX-looking ones first) where any cell holds one.
    keys = [None] * len(rows)
    attribution = "launch order (no NVTX range names in the report)"
    skip = {at for at in metric_at.values() if at is not None} | {id_at}
    for at in nvtx_candidate_columns(header, skip):
        found = [names.parse(row[at]) for row in rows]
        if any(k is not None for k in found):
            keys = found
            attribution = f"NVTX range names in ncu's column {header[at]!r}"
            break
    for record, key in zip(records, keys):
        record["range_key"] = key
    launches = pd.DataFrame.from_records(records)
    return NcuReport(launches, [m for m in METRICS if metric_at[m] is not None], attribution, meta, names)


# ----------------------------------------------------------------------------------------------
# The explain CSV
# ----------------------------------------------------------------------------------------------

def read_csv_file(path: Path) -> pd.DataFrame:
    """A CSV as a DataFrame; a file pandas cannot parse (a row longer than the header, not text)
    is a DataError naming the file, not a traceback."""
    try:
        return pd.read_csv(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as error:
        raise DataError(f"{path}: not a CSV file fa-bench wrote ({one_line_error(error)})") from None


def one_line_error(error: Exception) -> str:
    return " ".join(str(error).split())


def read_explain_csv(path: Path) -> pd.DataFrame:
    """The runnable (kernel, problem, tile) rows of a fa-bench --explain --csv file, in run order."""
    if not path.is_file():
        raise DataError(f"no such file: {path}")
    data = read_csv_file(path)
    if "num_head_kv" not in data.columns and "num_head" in data.columns:
        data["num_head_kv"] = data["num_head"]  # a CSV from before GQA: every K/V head had its query head
    missing = [c for c in EXPLAIN_COLUMNS if c not in data.columns]
    if missing:
        raise DataError(f"{path}: missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                        "(write it with fa-bench --explain --csv)")
    if "check" in data.columns:
        data = data[data["check"].astype(str).str.strip() != "UNSUPPORTED"]  # did not run, no range
    # No GPU: today's fa-bench writes gpu "none"; older ones wrote kernel "(analytic)" rows.
    if (data["kernel"] == "(analytic)").any() or ("gpu" in data.columns and (data["gpu"] == "none").any()):
        raise DataError(f"{path}: fa-bench --explain saw no CUDA GPU (rows '(analytic)'); "
                        "run it on the GPU that is profiled")
    if data.empty:
        raise DataError(f"{path}: no runnable rows")
    data = data.astype({c: int for c in KEY_COLUMNS if c not in ("kernel", "dtype")})
    return data.reset_index(drop=True)


def explain_key(row) -> tuple:
    return tuple(getattr(row, c) if c in ("kernel", "dtype") else int(getattr(row, c)) for c in KEY_COLUMNS)


def tile_label(row) -> str:
    """'128x64x128' (m_block x n_block x threads) as fa-bench prints it; '-' for untiled kernels."""
    if pd.isna(row.m_block_size) or int(row.m_block_size) == 0:
        return "-"
    return f"{int(row.m_block_size)}x{int(row.n_block_size)}x{int(row.num_threads)}"


# ----------------------------------------------------------------------------------------------
# Attribution, aggregation and the join
# ----------------------------------------------------------------------------------------------

def attribute_by_range(report: NcuReport, expected_keys: list[tuple]) -> list[tuple]:
    """A group (key, occurrence) per launch from its NVTX range name; None for launches outside
    any fa-bench range."""
    rows_of_key: dict[tuple, int] = {}
    for key in expected_keys:
        rows_of_key[key] = rows_of_key.get(key, 0) + 1
    taken: dict[tuple, int] = {}
    groups = []
    for key in report.launches["range_key"]:
        if key is None:
            groups.append(None)
        elif rows_of_key.get(key, 0) <= 1:
            groups.append((key, 0))  # every launch of the range belongs to its one row
        else:
            # A tile sweep: ranges of one name, one launch each, in explain order.
            occurrence = taken.get(key, 0)
            if occurrence >= rows_of_key[key]:
                raise DataError(f"range '{report.names.format(key)}' has more launches than the {rows_of_key[key]} "
                                "explain rows of its tile sweep; profile one tile at a time")
            taken[key] = occurrence + 1
            groups.append((key, occurrence))
    outside = sum(g is None for g in groups)
    if outside:
        print(f"{PROG}: warning: {outside} launch{'es' if outside > 1 else ''} outside any fa-bench range "
              "ignored", file=sys.stderr)
    return groups


def launches_per_range(key: tuple) -> int:
    """CUDA launches in one NVTX range of a single-launch-count kernel (KEY_COLUMNS order)."""
    fields = dict(zip(KEY_COLUMNS, key))
    if fields["kernel"] == "wgmma_fp8":
        heads, heads_kv = int(fields["num_head"]), int(fields["num_head_kv"] or fields["num_head"])
        rows = int(fields["seqlen_q"]) * (heads // max(heads_kv, 1))
        causal = str(fields["is_causal"]) not in ("0", "False", "false")
        min_rows = (FP8_PREPASS_MIN_ROWS_CAUSAL if causal else FP8_PREPASS_MIN_ROWS) // (2 if int(fields["head_dim"]) == 256 else 1)
        return 2 if rows >= min_rows else 1
    return 1


def attribute_by_order(launch_count: int, expected_keys: list[tuple]) -> list[tuple]:
    """A group per launch when the report has no range names: fa-bench's ranges in explain order,
    one launch each (launches_per_range: rung 8's with its pre-pass two), the leftover launches split evenly
    over the multi-launch (naive) ranges."""
    multi = [k for k in expected_keys if k[0] in MULTI_LAUNCH_KERNELS]
    singles = sum(launches_per_range(k) for k in expected_keys if k[0] not in MULTI_LAUNCH_KERNELS)
    extra = launch_count - singles
    if not multi:
        per_multi = 0
        ok = launch_count == singles
    else:
        per_multi = extra // len(multi) if extra > 0 else 0
        ok = extra >= len(multi) and extra % len(multi) == 0
    if not ok:
        what = f"{len(multi)} naive range{'s' if len(multi) != 1 else ''}" if multi else "no naive range"
        raise DataError(f"cannot attribute {launch_count} launches to {len(expected_keys)} ranges by order "
                        f"({singles} single-launch ranges, {what}); the report has no NVTX range names: "
                        "profile naive on its own, or export the report with NVTX information")
    if multi:
        print(f"{PROG}: no NVTX range names in the report: attributing launches by order, "
              f"{per_multi} per naive range", file=sys.stderr)
    groups = []
    seen: dict[tuple, int] = {}
    for key in expected_keys:
        occurrence = seen.get(key, 0)
        seen[key] = occurrence + 1
        count = per_multi if key[0] in MULTI_LAUNCH_KERNELS else launches_per_range(key)
        groups.extend([(key, occurrence)] * count)
    return groups


def weighted_mean(values: pd.Series, weights: pd.Series) -> float:
    """Mean of the finite values weighted by the finite positive weights; a plain mean when no
    weight is usable; NaN when no value is finite."""
    valid = values.notna()
    if not valid.any():
        return math.nan
    v, w = values[valid], weights[valid]
    if w.notna().all() and (w > 0).any():
        return float((v * w.clip(lower=0)).sum() / w.clip(lower=0).sum())
    return float(v.mean())


def sum_or_nan(values: pd.Series) -> float:
    return float(values.sum()) if values.notna().any() else math.nan


def aggregate_group(launches: pd.DataFrame) -> dict:
    """The measured columns of one (kernel, problem, tile) from its launches."""
    duration = launches[M_DURATION]
    read, write = sum_or_nan(launches[M_DRAM_READ]), sum_or_nan(launches[M_DRAM_WRITE])
    hmma, gmma = weighted_mean(launches[M_HMMA], duration), weighted_mean(launches[M_GMMA], duration)
    if math.isnan(hmma) and math.isnan(gmma):
        pipe_pct, pipe = math.nan, ""
    elif (0.0 if math.isnan(gmma) else gmma) > (0.0 if math.isnan(hmma) else hmma):
        pipe_pct, pipe = gmma, "GMMA"
    elif not math.isnan(hmma) and hmma > 0:
        pipe_pct, pipe = hmma, "HMMA"
    else:
        pipe_pct, pipe = 0.0, "none"
    ld, st = sum_or_nan(launches[M_BANK_LD]), sum_or_nan(launches[M_BANK_ST])
    conflicts = math.nan if math.isnan(ld) and math.isnan(st) else (0 if math.isnan(ld) else ld) + (
        0 if math.isnan(st) else st)
    registers = launches[M_REGISTERS].max()
    l2 = {m: sum_or_nan(launches[m]) if m in launches else math.nan
          for m in (M_L2, M_XBAR_READ, M_XBAR_WRITE, M_L2_SM_SECTORS)}
    tex_bytes = l2[M_L2_SM_SECTORS] * SECTOR_BYTES
    if not (math.isnan(l2[M_XBAR_READ]) or math.isnan(l2[M_XBAR_WRITE])):
        l2_sm, counter = l2[M_XBAR_READ] + l2[M_XBAR_WRITE], COUNTER_XBAR
    elif not math.isnan(tex_bytes):
        l2_sm, counter = tex_bytes, COUNTER_LTS  # a report without the crossbar counters
    else:
        l2_sm, counter = math.nan, ""
    return {
        "l2_bytes": l2[M_L2],
        "l2_sm_bytes": l2_sm,
        "l2_sm_read_bytes": l2[M_XBAR_READ],
        "l2_sm_write_bytes": l2[M_XBAR_WRITE],
        "l2_tex_sector_bytes": tex_bytes,
        "l2_sm_counter": counter,
        "duration_ms": sum_or_nan(duration),
        "dram_read_bytes": read,
        "dram_write_bytes": write,
        "dram_bytes": read + write,
        "tensor_pipe_pct": pipe_pct,
        "pipe": pipe,
        "smem_bank_conflicts": conflicts,
        "achieved_occupancy_pct": weighted_mean(launches[M_OCCUPANCY], duration),
        "registers": registers,
        "launches": len(launches),
    }


def join_with_explain(report: NcuReport, explain: pd.DataFrame, clock_control: str, ncu_version: str) -> pd.DataFrame:
    """One OUTPUT_COLUMNS row per profiled (kernel, problem, tile), in explain (= run) order; ranges
    without an explain row follow, with empty model columns."""
    expected_keys = [explain_key(r) for r in explain.itertuples()]
    has_ranges = report.launches["range_key"].notna().any()
    if has_ranges:
        groups = attribute_by_range(report, expected_keys)
    else:
        groups = attribute_by_order(len(report.launches), expected_keys)
    launches = report.launches.assign(group=groups)
    launches = launches[launches["group"].notna()]

    explain_row_of: dict[tuple, int] = {}
    seen: dict[tuple, int] = {}
    for index, key in enumerate(expected_keys):
        occurrence = seen.get(key, 0)
        seen[key] = occurrence + 1
        explain_row_of[(key, occurrence)] = index

    schema = report.names.schema if report.names is not None else None  # O's element size (output_bytes)
    order = list(dict.fromkeys(launches["group"]))  # first-launch order
    order.sort(key=lambda g: explain_row_of.get(g, len(expected_keys)))  # stable: unknown ones keep theirs
    rows = []
    for group in order:
        key, _ = group
        measured = aggregate_group(launches[launches["group"].apply(lambda g, group=group: g == group)])
        row = dict(zip(KEY_COLUMNS, key))
        index = explain_row_of.get(group)
        if index is None:
            print(f"{PROG}: warning: range '{report.names.format(key)}' is not in the explain CSV; no model columns",
                  file=sys.stderr)
            row.update(tile="", model_bytes=math.nan, compulsory_bytes=math.nan, model_hbm_bytes=math.nan)
        else:
            e = explain.iloc[index]
            hbm = float(e[EXPLAIN_HBM_COLUMN]) if EXPLAIN_HBM_COLUMN in explain.columns else math.nan
            row.update(tile=tile_label(e), model_bytes=float(e["model_bytes"]),
                       compulsory_bytes=float(e["compulsory_bytes"]), model_hbm_bytes=hbm)
        row.update(measured)
        # DRAM against model v2's HBM bytes; against model_bytes for an explain CSV from before v2.
        dram_model = row["model_hbm_bytes"] if not math.isnan(row["model_hbm_bytes"]) else row["model_bytes"]
        row["measured_over_model"] = ratio_or_nan(row["dram_bytes"], dram_model)
        l2_model = row["model_bytes"] if not math.isnan(row["model_hbm_bytes"]) else math.nan
        row["l2_sm_over_model"] = ratio_or_nan(row["l2_sm_bytes"], l2_model)
        # The reads against the model's bytes less O, the one thing every rung writes back. Split-KV
        # partials and naive's S and P are written and read again: for those the ratio runs low.
        row["l2_sm_read_over_model"] = ratio_or_nan(row["l2_sm_read_bytes"],
                                                    l2_model - output_bytes(row, schema))
        row.update(clock_control=clock_control, ncu_version=ncu_version)
        rows.append(row)
    profiled = set(order)
    for (key, occurrence), index in explain_row_of.items():
        if (key, occurrence) not in profiled:
            print(f"{PROG}: warning: no launch profiled for '{report.names.format(key)}' "
                  f"(tile {tile_label(explain.iloc[index])})", file=sys.stderr)
    return tidy_output(pd.DataFrame(rows, columns=OUTPUT_COLUMNS))


def output_bytes(row: dict, schema: fa_schema.Schema | None) -> float:
    """Bytes of O the problem writes: B·H·Sq·D elements of the dtype's output type, as fa-bench's
    schema gives it; NaN without a schema or for a dtype it does not know."""
    try:
        element = schema.output_bytes(row["dtype"]) if schema is not None else None
    except KeyError:
        element = None
    if element is None:
        return math.nan
    return float(row["batch_size"] * row["num_head"] * row["seqlen_q"] * row["head_dim"] * element)


def ratio_or_nan(measured: float, model: float) -> float:
    if model is None or math.isnan(model) or model <= 0 or math.isnan(measured):
        return math.nan
    return measured / model


def tidy_output(data: pd.DataFrame) -> pd.DataFrame:
    """Whole numbers as integers (empty when unknown), fractions rounded for reading."""
    for column in ("dram_read_bytes", "dram_write_bytes", "dram_bytes", "model_bytes", "compulsory_bytes",
                   "smem_bank_conflicts", "registers", "launches", "model_hbm_bytes", "l2_bytes", "l2_sm_bytes",
                   "l2_sm_read_bytes", "l2_sm_write_bytes", "l2_tex_sector_bytes"):
        data[column] = pd.to_numeric(data[column], errors="coerce").round().astype("Int64")
    for column, digits in (("duration_ms", 6), ("measured_over_model", 4), ("tensor_pipe_pct", 2),
                           ("achieved_occupancy_pct", 2), ("l2_sm_over_model", 4), ("l2_sm_read_over_model", 4)):
        data[column] = pd.to_numeric(data[column], errors="coerce").round(digits)
    return data


# ----------------------------------------------------------------------------------------------
# Markdown table
# ----------------------------------------------------------------------------------------------

TABLE_COLUMNS = [  # (header, right-aligned)
    ("kernel", False), ("shape (B×H×S×D)", False), ("causal", False), ("tile", False), ("ms", True),
    ("model MB", True), ("measured MB", True), ("measured / model", True), ("compulsory MB", True),
    ("tensor pipe", True), ("smem bank conflicts", True), ("occupancy", True), ("regs", True),
]


def shape_label(row) -> str:
    """'4×16×4096×128' (B×H×S×D), '4×16×4096/8192×128' when Sq ≠ Sk, '4×32(kv 8)×…' with GQA."""
    seq = f"{row.seqlen_q}" if row.seqlen_q == row.seqlen_k else f"{row.seqlen_q}/{row.seqlen_k}"
    heads = f"{row.num_head}" if row.num_head == row.num_head_kv else f"{row.num_head}(kv {row.num_head_kv})"
    return f"{row.batch_size}×{heads}×{seq}×{row.head_dim}"


def megabytes(value) -> str:
    return "—" if pd.isna(value) else f"{value / 1e6:,.1f}"


def markdown_table(data: pd.DataFrame) -> str:
    """Predicted (napkin model) vs measured DRAM bytes, with the other counters, one line per row."""
    several_dtypes = data["dtype"].nunique() > 1
    header = [name for name, _ in TABLE_COLUMNS]
    if several_dtypes:
        header.insert(2, "dtype")
    rule = ["--:" if right else "---" for _, right in TABLE_COLUMNS]
    if several_dtypes:
        rule.insert(2, "---")
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(rule) + "|"]
    for row in data.itertuples():
        pipe = "—" if pd.isna(row.tensor_pipe_pct) else (
            f"{row.tensor_pipe_pct:.1f}% {row.pipe}" if row.pipe in ("HMMA", "GMMA") else f"{row.tensor_pipe_pct:.1f}%")
        cells = [
            row.kernel, shape_label(row), str(row.is_causal), row.tile or "—",
            "—" if pd.isna(row.duration_ms) else f"{row.duration_ms:.3f}",
            megabytes(row.model_bytes), megabytes(row.dram_bytes),
            "—" if pd.isna(row.measured_over_model) else f"{row.measured_over_model:.3f}",
            megabytes(row.compulsory_bytes), pipe,
            "—" if pd.isna(row.smem_bank_conflicts) else f"{row.smem_bank_conflicts:,}",
            "—" if pd.isna(row.achieved_occupancy_pct) else f"{row.achieved_occupancy_pct:.1f}%",
            "—" if pd.isna(row.registers) else str(row.registers),
        ]
        if several_dtypes:
            cells.insert(2, row.dtype)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def table_caption(ncu_version: str, clock_control: str) -> str:
    facts = [f"ncu {ncu_version}" if ncu_version else "", f"--clock-control {clock_control}" if clock_control else ""]
    facts = "; ".join(f for f in facts if f)
    return ("Predicted (napkin model) vs measured (ncu) DRAM bytes per kernel and problem (naive: its GEMMs "
            "and softmax summed); MB = 10⁶ bytes" + (f"; {facts}" if facts else "") + ".")


VALIDATION_COLUMNS = [  # (header, right-aligned)
    ("kernel", False), ("shape (B×H×Sq/Sk×D)", False), ("causal", False), ("tile", False),
    ("HBM model MB", True), ("DRAM measured MB", True), ("DRAM / model", True),
    ("L2→SM model MB", True), ("L2→SM measured MB", True), ("L2→SM / model", True), ("reads / model reads", True),
    ("lts tex MB", True), ("within 20 %", False),
]
# Marks an L2→SM measured cell read from lts__t_sectors_srcunit_tex (a report without the crossbar's).
LTS_MARK = "†"


def agreement(ratio: float) -> str:
    return "—" if pd.isna(ratio) else f"{ratio:.3f}"


def within(*ratios: float) -> str:
    """"yes" when every known ratio is within AGREEMENT of 1, else which is not; "—" when none is known."""
    known = [(name, r) for name, r in zip(("DRAM", "L2"), ratios) if not pd.isna(r)]
    if not known:
        return "—"
    misses = [name for name, r in known if abs(r - 1.0) > AGREEMENT]
    return "yes" if not misses else "no: " + ", ".join(misses)


def validation_table(data: pd.DataFrame) -> str:
    """Model v2's predicted DRAM (HBM term) and L2->SM bytes (L2 term) against ncu's dram__bytes and
    the crossbar's bytes between the SMs and the L2, per rung and shape, with whether both agree
    within 20 %; the old lts__t_sectors_srcunit_tex bytes beside them, and a footnote when a row's
    L2->SM bytes are those (LTS_MARK)."""
    header = [name for name, _ in VALIDATION_COLUMNS]
    rule = ["--:" if right else "---" for _, right in VALIDATION_COLUMNS]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(rule) + "|"]
    for row in data.itertuples():
        lines.append("| " + " | ".join([
            row.kernel, shape_label(row), str(row.is_causal), row.tile or "—",
            megabytes(row.model_hbm_bytes), megabytes(row.dram_bytes), agreement(row.measured_over_model),
            megabytes(row.model_bytes),
            megabytes(row.l2_sm_bytes) + (f" {LTS_MARK}" if row.l2_sm_counter == COUNTER_LTS else ""),
            agreement(row.l2_sm_over_model), agreement(row.l2_sm_read_over_model),
            megabytes(row.l2_tex_sector_bytes),
            within(row.measured_over_model, row.l2_sm_over_model)]) + " |")
    if (data["l2_sm_counter"] == COUNTER_LTS).any():
        lines += ["", f"{LTS_MARK} lts__t_sectors_srcunit_tex × 32 B: the report has no crossbar counters "
                      f"({M_XBAR_READ}, {M_XBAR_WRITE}); the L2's sectors read fewer bytes than the SMs receive."]
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------
# Running fa-bench and ncu
# ----------------------------------------------------------------------------------------------

def tail(text: str, count: int = FAILURE_TAIL_LINES) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return "\n".join("    " + line for line in lines[-count:])


def find_executable(name: str) -> str | None:
    """Absolute path of a command on PATH, or of a path, if it is an executable file."""
    return shutil.which(name)


def ncu_version_of(ncu: str) -> str:
    """'2025.3.0.0' from ncu --version ('' if it does not answer)."""
    try:
        done = subprocess.run([ncu, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return ""
    match = re.search(r"Version\s+(\S+)", done.stdout)
    if match:
        return match.group(1)
    lines = done.stdout.strip().splitlines()
    return lines[-1].strip() if lines else ""


def fa_bench_flags(args) -> list[str]:
    """The problem and tile flags for fa-bench, as given (fa-bench validates them)."""
    flags = ["--kernel", args.kernel]
    for name in VALUE_FLAGS:
        value = getattr(args, name)
        if value is not None:
            flags += [f"--{name}", value]
    if args.is_causal:
        flags.append("--is_causal")
    return flags


def explain_flags(flags: list[str]) -> list[str]:
    """The flags without --seed: the seed only draws the inputs of the profiled launches, and
    fa-bench --explain, which launches nothing, refuses a flag it would ignore."""
    out: list[str] = []
    pairs = iter(flags)
    for flag in pairs:
        if flag == "--seed":
            next(pairs, None)  # and its value
            continue
        out.append(flag)
    return out


def run_explain(fa_bench: str, flags: list[str], csv_path: Path) -> None:
    command = [fa_bench, "--explain", "--csv", str(csv_path), *explain_flags(flags)]
    try:
        done = subprocess.run(command, capture_output=True, text=True)
    except OSError as error:
        raise RunError(f"fa-bench --explain could not start: {error}") from None
    if done.returncode != 0 or not csv_path.is_file():
        raise RunError(f"fa-bench --explain failed (exit {done.returncode}); its last lines:\n"
                       + tail(done.stdout + "\n" + done.stderr))


def ncu_command(ncu: str, metrics: Sequence[str], clock_control: str, log: Path, fa_bench: str,
                flags: list[str], nvtx_include: str) -> list[str]:
    return [ncu, "--nvtx", "--nvtx-include", nvtx_include, "--csv", "--page", "raw", "--print-units", "base",
            "--metrics", ",".join(metrics), "--clock-control", clock_control, "--log-file", str(log),
            fa_bench, "--profile", *flags]


def run_ncu(ncu: str, clock_control: str, fa_bench: str, flags: list[str], workdir: Path,
            nvtx_include: str) -> tuple[str, list[str]]:
    """ncu's report text and the command that wrote it. Re-runs once without the optional metrics
    if ncu names one of them in its complaint (an older GPU without wgmma)."""
    metrics = list(METRICS)
    while True:
        log = workdir / "ncu.log"
        log.unlink(missing_ok=True)
        command = ncu_command(ncu, metrics, clock_control, log, fa_bench, flags, nvtx_include)
        try:
            done = subprocess.run(command, capture_output=True, text=True)
        except OSError as error:
            raise RunError(f"ncu could not start: {error}") from None
        report = log.read_text(errors="replace") if log.is_file() else ""
        said = report + "\n" + done.stdout + "\n" + done.stderr
        if PERMISSION_ERROR in said:
            raise RunError(f"ncu is not permitted to read the GPU performance counters ({PERMISSION_ERROR}): "
                           "run as root, or load the driver with NVreg_RestrictProfilingToAdminUsers=0 "
                           "(https://developer.nvidia.com/ERR_NVGPUCTRPERM)")
        complaints = "\n".join(line for line in said.splitlines() if line.startswith(("==ERROR==", "==WARNING==")))
        rejected = [m for m in OPTIONAL_METRICS if m in metrics and m in complaints]
        if done.returncode != 0 and rejected:
            print(f"{PROG}: warning: ncu rejected {', '.join(rejected)}; profiling again without it", file=sys.stderr)
            metrics = [m for m in metrics if m not in rejected]
            continue
        if done.returncode != 0:
            raise RunError(f"ncu failed (exit {done.returncode}); its last lines:\n"
                           + tail(report + "\n" + done.stderr))
        if not has_csv_table(report) and has_csv_table(done.stdout):
            report = done.stdout  # an ncu that ignores --log-file for the report: fa-bench's lines are skipped
        if not has_csv_table(report):
            raise RunError("ncu profiled no kernel (no CSV table in its report); its last lines:\n"
                           + tail(report + "\n" + done.stderr + "\n" + done.stdout))
        return report, command


def has_csv_table(text: str) -> bool:
    return any(line.lstrip().startswith(('"ID"', "ID,")) for line in text.splitlines())


def raw_path_for(out: Path, number: int | None = None) -> Path:
    """results/h100/ncu.csv -> results/h100/ncu.raw.csv (number 1: ncu.1.raw.csv, one per preset shape)."""
    suffix = ".raw.csv" if number is None else f".{number}.raw.csv"
    return out.with_suffix(suffix) if out.suffix == ".csv" else out.with_name(out.name + suffix)


def save_raw(path: Path, report: str, ncu_version: str, clock_control: str, command: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = [f"{META_PREFIX} ncu_version={ncu_version}", f"{META_PREFIX} clock_control={clock_control}",
            f"{META_PREFIX} command={shlex.join(command)}"]
    path.write_text("\n".join(meta) + "\n" + report + ("" if report.endswith("\n") else "\n"))


# ----------------------------------------------------------------------------------------------
# Command line
# ----------------------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description="Profile fa-bench kernels with Nsight Compute and compare DRAM bytes with the model.",
        epilog="Problem and tile flags are passed to fa-bench as given: comma lists sweep, as in fa-bench.")
    parser.add_argument("--kernel", default="all", help="fa-bench --kernel value (default all)")
    for name in VALUE_FLAGS:
        parser.add_argument(f"--{name}", help=f"fa-bench --{name}")
    parser.add_argument("--is_causal", action="store_true", help="fa-bench --is_causal")
    parser.add_argument("--out", type=Path, help="CSV to write (needed unless --from-ncu-csv); the raw ncu "
                                                 "report goes next to it as <stem>.raw.csv")
    parser.add_argument("--clock-control", choices=["none", "base"],
                        help="ncu --clock-control (default none: the GPU runs at its usual boost clocks, "
                             "as fa-bench times it)")
    parser.add_argument("--ncu", default="ncu", help="ncu executable (default ncu on PATH)")
    parser.add_argument("--from-ncu-csv", type=Path, metavar="FILE",
                        help="run nothing: parse this ncu --csv --page raw report (e.g. a saved .raw.csv)")
    parser.add_argument("--explain-csv", type=Path, metavar="FILE",
                        help="with --from-ncu-csv: the fa-bench --explain --csv file of the same run")
    parser.add_argument("--preset", choices=sorted(PRESETS),
                        help="validation: profile every --kernel (default all) on three shapes (4x16x4096x128, "
                             "2x32x8192x64 causal, 1x32(kv 8)x1/131072x128 decode) instead of the problem flags, "
                             "and print the model-v2 validation table (raw reports: <out stem>.<n>.raw.csv)")
    parser.add_argument("--table", choices=["dram", "validation"],
                        help="the markdown table printed: dram (predicted vs measured DRAM with the other counters; "
                             "the default) or validation (HBM and L2->SM bytes against ncu, within 20 %%; the "
                             "default with --preset validation)")
    fa_schema.add_arguments(parser)
    return parser


def joined(report: NcuReport, explain: pd.DataFrame, clock_control: str, ncu_version: str) -> pd.DataFrame:
    print(f"{PROG}: {len(report.launches)} launches attributed by {report.attribution}", file=sys.stderr)
    data = join_with_explain(report, explain, clock_control, ncu_version)
    if data.empty:
        raise DataError("no profiled launch matched a fa-bench range")
    return data


def validation_caption(ncu_version: str, clock_control: str) -> str:
    facts = "; ".join(f for f in (f"ncu {ncu_version}" if ncu_version else "",
                                  f"--clock-control {clock_control}" if clock_control else "") if f)
    return ("Model v2 against ncu, per rung: predicted DRAM bytes (model_hbm_bytes) vs dram__bytes_read + write, "
            "predicted L2→SM bytes (model_bytes) vs the crossbar's bytes between the SMs and the L2 "
            "(l1tex__m_xbar2l1tex_read_bytes + l1tex__m_l1tex2xbar_write_bytes), its reads vs model_bytes less "
            "O's bytes (reads / model reads), and the L2's lts__t_sectors_srcunit_tex × 32 B (lts tex) for "
            "comparison (naive: its GEMMs and softmax summed); MB = 10⁶ bytes"
            + (f"; {facts}" if facts else "") + ".")


def write_report(data: pd.DataFrame, out: Path | None, clock_control: str, ncu_version: str, table: str) -> None:
    if table == "validation":
        print(validation_caption(ncu_version, clock_control))
        print()
        print(validation_table(data))
    else:
        print(table_caption(ncu_version, clock_control))
        print()
        print(markdown_table(data))
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        data.to_csv(out, index=False)
        print(f"\n{PROG}: wrote {len(data)} rows to {out}")


def report_and_write(report: NcuReport, explain: pd.DataFrame, out: Path | None, clock_control: str,
                     ncu_version: str, table: str = "dram") -> pd.DataFrame:
    data = joined(report, explain, clock_control, ncu_version)
    write_report(data, out, clock_control, ncu_version, table)
    return data


def preset_flag_sets(args) -> list[list[str]]:
    """One fa-bench flag list per problem: the problem flags as given, or each shape of --preset
    (every --kernel, default all; a problem flag given with it is refused)."""
    if args.preset is None:
        return [fa_bench_flags(args)]
    given = [name for name in VALUE_FLAGS if name not in ("seed", "device", "dtype") and getattr(args, name)]
    if given or args.is_causal:
        raise DataError(f"--preset {args.preset} sets the problem: leave out --{(given or ['is_causal'])[0]}")
    common = ["--kernel", args.kernel] + [f for name in ("dtype", "seed", "device") if getattr(args, name)
                                          for f in (f"--{name}", getattr(args, name))]
    return [common + [f for name, value in shape.items() for f in (f"--{name}", value)]
            for shape in PRESETS[args.preset]]


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if (args.from_ncu_csv is None) != (args.explain_csv is None):
        parser.error("--from-ncu-csv and --explain-csv go together")
    if args.schema_json and args.from_ncu_csv is None:
        parser.error("--schema-json goes with --from-ncu-csv (a profile run reads the schema of the binary it runs)")
    try:
        if args.from_ncu_csv is not None:
            if not args.from_ncu_csv.is_file():
                raise DataError(f"no such file: {args.from_ncu_csv}")
            names = RangeNames.of(fa_schema.from_args(args))
            report = parse_ncu_csv(args.from_ncu_csv.read_text(errors="replace"), names, str(args.from_ncu_csv))
            explain = read_explain_csv(args.explain_csv)
            clock_control = args.clock_control or report.meta.get("clock_control", "")
            report_and_write(report, explain, args.out, clock_control, report.meta.get("ncu_version", ""),
                             args.table or "dram")
            return 0

        if args.out is None:
            parser.error("--out FILE is needed (or --from-ncu-csv with --explain-csv)")
        ncu = find_executable(args.ncu)
        if ncu is None:
            where = f"no executable at {args.ncu}" if "/" in args.ncu else f"no {args.ncu!r} on PATH"
            print(f"{PROG}: ncu not found ({where}; install Nsight Compute or pass --ncu PATH)", file=sys.stderr)
            return 2
        schema = fa_schema.from_args(args)
        fa_bench = str(schema.fa_bench)
        names = RangeNames.of(schema)
        clock_control = args.clock_control or "none"
        flag_sets = preset_flag_sets(args)
        ncu_version = ncu_version_of(ncu)
        parts = []
        for number, flags in enumerate(flag_sets):
            with tempfile.TemporaryDirectory(prefix="ncu_profile.") as tmp:
                workdir = Path(tmp)
                explain_csv = workdir / "explain.csv"
                run_explain(fa_bench, flags, explain_csv)
                explain = read_explain_csv(explain_csv)
                text, command = run_ncu(ncu, clock_control, fa_bench, flags, workdir, schema.nvtx_include())
            raw = raw_path_for(args.out) if len(flag_sets) == 1 else raw_path_for(args.out, number)
            save_raw(raw, text, ncu_version, clock_control, command)
            print(f"{PROG}: saved ncu's report as {raw}", file=sys.stderr)
            parts.append(joined(parse_ncu_csv(text, names, str(raw)), explain, clock_control, ncu_version))
        table = args.table or ("validation" if args.preset == "validation" else "dram")
        write_report(pd.concat(parts, ignore_index=True), args.out, clock_control, ncu_version, table)
        return 0
    except (DataError, fa_schema.SchemaError) as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 2
    except RunError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
