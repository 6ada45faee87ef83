"""What every peer backend shares: problems, the check, CSV rows and provenance, and measure() /
run_problems(), which time each backend with the harness in timing.py.

The rows carry exactly fa-bench's CSV columns (from `fa-bench --schema`), with the analytic
columns (softmax_scale, flops, compulsory_bytes, arithmetic_intensity) copied from fa-bench's
own rows for the same problem, so a peer's TFLOP/s uses the very FLOP count the kernels use.

Measurement is fa-bench's (timing.py). torch is imported by the callers and passed in, so this
module imports without it.
"""
from __future__ import annotations

import contextlib
import csv
import dataclasses
import datetime
import importlib.util
import itertools
import math
import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Callable, Iterable, Sequence

from . import gpu_clocks
from .timing import GpuIdle, Settings, l2_flusher, time_launches, timing_stats

REPO_ROOT = Path(__file__).resolve().parents[2]
PROG = "peers.py"

# Columns left empty when a backend did not run (nothing was timed).
TIME_COLUMNS = ("time_ms_median", "time_ms_min", "time_ms_max", "noise_pct", "tflops", "bandwidth_gbs")

# A note is one CSV field; backend errors can be long multi-line messages, so keep the start.
NOTE_MAX_CHARS = 400

# --check runs the fp32 math reference only up to 2^28 score entries (B·H·Sq·Sk): its S and P are
# materialised in fp32, 2^28 · 4 B = 1 GiB each, which fits beside the inputs on any 16+ GiB GPU.
CHECK_MAX_SCORE_ENTRIES = 2 ** 28

# FlashAttention-2's benchmark grid (benchmarks/benchmark_flash_attention.py): 16k tokens per
# batch, so batch = 16384 / seqlen, and hidden size 2048 split as 32 heads × 64 or 16 heads × 128;
# plus head_dim 256 at 16 heads (issue #10's grid; the anchors' 2×16×8192×256 is its S = 8192 point).
FA2_GRID_TOKENS = 16384
FA2_GRID_SEQLENS = (512, 1024, 2048, 4096, 8192, 16384)
FA2_GRID_HEAD_CONFIGS = ((64, 32), (128, 16), (256, 16))  # (head_dim, num_head)

# The decode grid (issue #9): the decode shapes the peers were first measured on (H100 anchors of
# 2026-11-23), B×H×Sq×Sk×D, non-causal (a decode step's queries see the whole cache), each with as
# many K/V heads as query heads and with 8 (GQA as in Llama-3-8B: 32 query heads over 8 K/V heads).
DECODE_ANCHOR_SHAPES = ((64, 32, 1, 8192, 128), (8, 32, 1, 32768, 128), (1, 32, 1, 131072, 128),
                        (16, 32, 16, 8192, 128))
DECODE_KV_HEADS = (32, 8)
# The chart's series: one sequence (B=1), one query row, 32 heads, D=128, Sk = 1k … 256k: where a
# single sequence's keys must be split across CTAs to reach the copy ceiling.
DECODE_SERIES_SEQLENS_K = tuple(1024 * 2 ** i for i in range(9))  # 1024 … 262144
DECODE_SERIES_SHAPE = (1, 32, 1, 128)  # B, H, Sq, D
# GQA prefill next to MHA on the same shape, causal and not: packed/grouped K/V must cost nothing
# when the GPU is full of row blocks anyway.
GQA_PREFILL_SHAPE = (4, 32, 8192, 128)  # B, H, S, D

TORCH_DTYPES = {"Float16": "float16", "BFloat16": "bfloat16", "Float32": "float32"}

# fa-bench's FP8 dtype (README "FP8 (e4m3)"): Q, K and V in e4m3, each with its own per-tensor
# power-of-two scale, O in bf16. Its inputs are made by quantizing a float32 draw (fp8_quantize).
FP8_DTYPE = "Float8E4M3FN"
FP8_TORCH_DTYPE = "float8_e4m3fn"
E4M3_MAX = 448.0  # largest finite e4m3 (1.75 * 2^8); e4m3fn has no infinities


@dataclasses.dataclass(frozen=True)
class Problem:
    """One attention problem (the tensors' layout is each backend's own).

    num_head_kv is the K/V heads (GQA; query head h reads K/V head h / (num_head / num_head_kv)),
    0 for "as many as num_head"; it is stored resolved, so Problem(..., num_head_kv=0) and the
    same problem with num_head_kv = num_head are one problem (one row, one analytic key).
    """
    batch: int
    seqlen_q: int
    seqlen_k: int
    num_head: int
    head_dim: int
    causal: bool
    dtype: str = "BFloat16"
    num_head_kv: int = 0

    def __post_init__(self):
        if self.num_head_kv == 0:
            object.__setattr__(self, "num_head_kv", self.num_head)  # frozen: set once, here

    @property
    def gqa(self) -> bool:
        """Fewer K/V heads than query heads (GQA, or MQA with one)."""
        return self.num_head_kv != self.num_head

    @property
    def score_entries(self) -> int:
        """Entries of the full score matrix S = QKᵀ over all batches and (query) heads."""
        return self.batch * self.num_head * self.seqlen_q * self.seqlen_k

    @property
    def key(self) -> tuple:
        """The problem as fa_schema.ANALYTIC_KEY: (dtype, B, Sq, Sk, H, H_kv, D, causal 0/1)."""
        return (self.dtype, self.batch, self.seqlen_q, self.seqlen_k, self.num_head, self.num_head_kv, self.head_dim,
                int(self.causal))


Tile = tuple  # (m_block_size, n_block_size, num_threads), as fa-bench's tile flags


class SchemaMismatch(Exception):
    """What a peer row holds and fa-bench's CSV columns disagree (a script to update)."""


class Refusal(Exception):
    """A backend cannot run this problem (or at all); the message becomes the row's note."""


class Backend:
    """One peer: how to tell whether it can run here, and how to launch it on a problem.

    A subclass sets the class attributes and overrides prepare(); unavailable() and setup() say
    whether its package is there. Nothing here imports torch or the backend's package.
    """
    name = ""          # --backends name
    kernel = ""        # the CSV `kernel` of its rows
    layout = "bhsd"    # layout of the q, k, v it takes and the o it returns: bhsd or bshd
    title = ""         # one line for --help
    tiled = False      # True: runs at the tile flags, one row per tile
    splits = False     # True: takes a split-KV count, one row per --num_splits value
    # CPU time to queue one call, µs: sizes the GPU sleep that keeps the timed launches queued.
    host_us_per_call = 100.0

    def configure(self, args) -> None:
        """Take what it needs from the command line (a path, ...). Called before unavailable()."""

    def unavailable(self) -> str:
        """'' when its packages import here, else why not, in one line (no heavy imports)."""
        return ""

    def setup(self, torch) -> None:
        """Import the backend for real, once; raise Refusal if that fails."""

    def context(self):
        """A context manager held around every call of this backend on a problem."""
        return contextlib.nullcontext()

    def variants(self, tiles: Sequence[Tile], splits: Sequence[int]) -> list:
        """What one problem is run at, one row each: the tiles (a tiled backend), the split counts
        (a backend that takes one), else once, as the backend chooses (None)."""
        if self.tiled:
            return list(tiles)
        if self.splits:
            return list(splits)
        return [None]

    def variant_columns(self, variant) -> dict:
        """The row columns a variant fixes before anything runs (a skipped row says them too)."""
        if self.tiled and variant is not None:
            return dict(zip(("m_block_size", "n_block_size", "num_threads"), variant))
        if self.splits and variant is not None and variant >= 1:
            return {"num_splits": variant}  # 0 asks the backend's heuristic: its count is unknown
        return {}

    def prepare(self, torch, p: Problem, q, k, v, scale: float, variant) -> Callable[[], object]:
        """A function that launches the backend once on q, k, v and returns o (the backend's
        layout), or a Launch that also says what the backend did. k and v have p.num_head_kv
        heads. `variant` is one of variants(): a tile, a split count or None. Raise Refusal when
        the problem or variant is not one it runs. For an FP8 problem (only reached by a backend
        whose dtype_refusal() accepts it) q, k, v are e4m3 tensors and the call adds
        descales=(q, k, v descales), the floats that turn them back into values."""
        raise NotImplementedError

    def failure_note(self, error: BaseException, warning_messages: Sequence[str]) -> str:
        """The note of a row whose first launch raised `error`."""
        return one_line(f"{type(error).__name__}: {error}")

    def dtype_refusal(self, dtype: str) -> str:
        """'' when the backend takes inputs of this fa-bench dtype, else why not, in one line.
        Asked before any tensor is made or handed over, so a refused dtype costs nothing. The
        default: every dtype but FP8, whose e4m3 inputs come with descales only an FP8 backend
        takes (prepare(..., descales=...))."""
        if dtype == FP8_DTYPE:
            return f"{self.name} takes no FP8 inputs ({dtype}): e4m3 Q/K/V with per-tensor descales"
        return ""


@dataclasses.dataclass
class Launch:
    """What prepare() returns when the row should say what the backend was asked to do (its
    `note`, e.g. FA4's split count and GQA packing), beyond the timing, or when its output must
    be turned into values before the check (`dequantize`: e.g. an FP8 O times its descale). The
    timed launches run `run` alone; `dequantize` runs once, on the checked output."""
    run: Callable[[], object]
    note: str = ""
    dequantize: Callable[[object], object] | None = None

    def __call__(self):
        return self.run()


def module_missing(name: str) -> bool:
    """True if `name` (dotted) cannot be imported here; looks without importing the module itself."""
    try:
        return importlib.util.find_spec(name) is None
    except (ImportError, ValueError):  # a parent package is missing, or broken
        return True


# ----------------------------------------------------------------------------------------------
# Problem lists and flag parsing
# ----------------------------------------------------------------------------------------------

def fa2_grid(dtypes: Sequence[str], default_problem: dict) -> list[Problem]:
    """FlashAttention-2's benchmark grid plus fa-bench's default problem, causal 0 and 1, per dtype.

    6 seqlens × 3 head configs × 2 causal = 36 grid points + 2 for the default = 38 per dtype.
    `default_problem` is fa-bench's defaults (schema): batch_size, seqlen_q, seqlen_k, num_head, head_dim.
    """
    d = default_problem
    problems = []
    for dtype in dtypes:
        for head_dim, num_head in FA2_GRID_HEAD_CONFIGS:
            for seqlen in FA2_GRID_SEQLENS:
                for causal in (False, True):
                    problems.append(Problem(FA2_GRID_TOKENS // seqlen, seqlen, seqlen, num_head, head_dim,
                                            causal, dtype))
        for causal in (False, True):
            problems.append(Problem(d["batch_size"], d["seqlen_q"], d["seqlen_k"], d["num_head"], d["head_dim"],
                                    causal, dtype))
    return problems


def decode_grid(dtypes: Sequence[str]) -> list[Problem]:
    """The decode grid, per dtype: the anchors' decode shapes × K/V heads (32, 8), the B=1 Sk
    series × K/V heads (the decode chart's data), and GQA prefill beside MHA, causal 0 and 1.

    8 anchor problems + 2 × 9 series problems (Sk = 131072 is in both: once) + 4 prefill = 28.
    """
    problems = []
    for dtype in dtypes:
        for kv in DECODE_KV_HEADS:
            for b, h, sq, sk, d in DECODE_ANCHOR_SHAPES:
                problems.append(Problem(b, sq, sk, h, d, False, dtype, kv))
        b, h, sq, d = DECODE_SERIES_SHAPE
        for kv in DECODE_KV_HEADS:
            for sk in DECODE_SERIES_SEQLENS_K:
                problems.append(Problem(b, sq, sk, h, d, False, dtype, kv))
        b, h, s, d = GQA_PREFILL_SHAPE
        for kv in DECODE_KV_HEADS:
            for causal in (False, True):
                problems.append(Problem(b, s, s, h, d, causal, dtype, kv))
    return list(dict.fromkeys(problems))  # the anchor at Sk = 131072 is also a series point


def cartesian_problems(dtypes: Sequence[str], batch_sizes: Sequence[int], seqlens_q: Sequence[int],
                       seqlens_k: Sequence[int], num_heads: Sequence[int], head_dims: Sequence[int],
                       causals: Sequence[int], num_heads_kv: Sequence[int] = (0,)) -> list[Problem]:
    """Every combination of the flag lists, as fa-bench sweeps its comma lists (num_heads_kv 0:
    as many K/V heads as query heads)."""
    return [Problem(b, sq, sk, h, d, bool(c), t, kv)
            for t, b, sq, sk, h, kv, d, c in itertools.product(dtypes, batch_sizes, seqlens_q, seqlens_k,
                                                                num_heads, num_heads_kv, head_dims, causals)]


def tiles_of(m_blocks: Sequence[int] | None, n_blocks: Sequence[int] | None, threads: Sequence[int] | None,
             example_tile: Tile) -> list[Tile]:
    """The tile sweep as fa-bench builds it: flags left out take the example's value."""
    m_blocks = m_blocks or [example_tile[0]]
    n_blocks = n_blocks or [example_tile[1]]
    threads = threads or [example_tile[2]]
    return list(itertools.product(m_blocks, n_blocks, threads))


def parse_int_list(text: str) -> list[int]:
    """'1,2,4' -> [1, 2, 4] (argparse type; a bad value becomes a one-line usage error)."""
    import argparse
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a comma list of integers") from None
    if not values:
        raise argparse.ArgumentTypeError("empty list")
    return values


def parse_name_list(text: str) -> list[str]:
    """'a, b,a' -> ['a', 'b']: split on commas, strip, drop empties and duplicates."""
    return list(dict.fromkeys(v.strip() for v in text.split(",") if v.strip()))


# ----------------------------------------------------------------------------------------------
# Rows, CSV and table (no torch)
# ----------------------------------------------------------------------------------------------

def format_value(value) -> str:
    """CSV text of one value: '' for None, ints and text as-is, floats to 6 significant digits."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return "" if math.isnan(value) else f"{value:.6g}"
    return str(value)


def one_line(text: str, limit: int = NOTE_MAX_CHARS) -> str:
    """Collapse whitespace/newlines and cut to `limit` characters (an ellipsis marks the cut)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def skipped(reason: str) -> dict:
    """The run of a backend that did not run at all: its rows say why, times empty."""
    return {"note": one_line(f"skipped: {reason}")}


def build_row(columns: Sequence[str], analytic: dict, problem: Problem, backend: Backend, provenance: dict,
              run: dict, *, warmup: int, iterations: int, cold_l2: bool, seed: int,
              tile: Tile | None = None) -> dict[str, str]:
    """One CSV row as {column: text} over exactly `columns` (the schema's), '' where unknown.

    `analytic` is fa-bench's row for the problem (softmax_scale, flops, compulsory_bytes,
    arithmetic_intensity, as text); `run` holds timing stats (or none), check fields and note.
    """
    row = dict(provenance)
    row.update(analytic)
    row.update({
        "kernel": backend.kernel,
        "dtype": problem.dtype,
        "layout": backend.layout,
        "batch_size": problem.batch,
        "seqlen_q": problem.seqlen_q,
        "seqlen_k": problem.seqlen_k,
        "num_head": problem.num_head,
        "num_head_kv": problem.num_head_kv,
        "head_dim": problem.head_dim,
        "is_causal": problem.causal,
        # What ran (measure's counts under the time-based rule), else what was asked.
        "warmup_iterations": run.get("warmup_iterations", warmup),
        "iterations": run.get("iterations", iterations),
        "use_cold_l2": cold_l2,
        "seed": seed,
        "check": run.get("check", "SKIPPED"),
        "max_abs_err": run.get("max_abs_err"),
        "rel_l2_err": run.get("rel_l2_err"),
        "note": run.get("note", ""),
    })
    if tile is not None:  # only a tiled backend's tile is known; others choose their own
        row.update(zip(("m_block_size", "n_block_size", "num_threads"), tile))
    # The split count a backend was asked to run with (Backend.variant_columns).
    if "num_splits" in run:
        row["num_splits"] = run["num_splits"]
    if "warmup_ms" in run and "warmup_ms" in columns:
        row["warmup_ms"] = run["warmup_ms"]
    # The GPU's clocks while the timed launches ran (gpu_clocks), in fa-bench's columns.
    row.update({k: run[k] for k in gpu_clocks.COLUMNS if k in run and k in columns})
    median = run.get("time_ms_median")
    if median is not None:
        flops, nbytes = float(analytic["flops"]), float(analytic["compulsory_bytes"])
        row.update({k: run[k] for k in ("time_ms_median", "time_ms_min", "time_ms_max", "noise_pct")})
        row["tflops"] = flops / (median * 1e9)          # FLOP / (ms · 1e-3) / 1e12
        row["bandwidth_gbs"] = nbytes / (median * 1e6)  # B / (ms · 1e-3) / 1e9
        if "energy_power_w" in run:  # the energy counter's mean power (gpu_clocks.energy_power_w)
            row.update({k: v for k, v in gpu_clocks.energy_columns(run["energy_power_w"], median, flops).items()
                        if k in columns})
    unknown = [column for column in row if column not in columns]
    if unknown:  # fa-bench renamed or dropped a column: say so rather than lose the values
        raise SchemaMismatch(f"fa-bench's CSV has no column {', '.join(unknown)} (peers.py fills it)")
    return {column: format_value(row.get(column)) for column in columns}


def append_rows_to_csv(path: Path, rows: Iterable[dict[str, str]], columns: Sequence[str]) -> None:
    """Append rows, writing the header (`columns`, the schema's) only when the file is new or empty.

    An existing file's header wins: values go under its columns by name, columns it has and the
    rows lack stay empty, and columns it lacks are reported once (a file from an older fa-bench).
    Quoting is RFC 4180 (csv.QUOTE_MINIMAL): a field with a comma, quote or newline is quoted.
    """
    path = Path(path)
    rows = list(rows)
    header = None
    needs_newline = False
    if path.exists() and path.stat().st_size > 0:
        with path.open(newline="", encoding="utf-8") as f:
            header = next(csv.reader(f), None)
        with path.open("rb") as f:  # a file cut without its final newline would glue rows
            f.seek(-1, 2)
            needs_newline = f.read(1) not in (b"\n", b"\r")
    write_header = not header
    if write_header:
        header = list(columns)
    else:
        lacking = [c for c in dict.fromkeys(c for row in rows for c in row) if c not in header]
        if lacking:
            print(f"{PROG}: {path}: header lacks {', '.join(lacking)}; those values are not written",
                  file=sys.stderr)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", newline="", encoding="utf-8") as f:
        if needs_newline:
            f.write("\n")
        writer = csv.writer(f, lineterminator="\n")
        if write_header:
            writer.writerow(header)
        for row in rows:
            writer.writerow([row.get(column, "") for column in header])


# (header, CSV column, right-aligned?) of the stdout table.
TABLE_COLUMNS = [
    ("kernel", "kernel", False), ("dtype", "dtype", False), ("B", "batch_size", True),
    ("H", "num_head", True), ("Hkv", "num_head_kv", True), ("Sq", "seqlen_q", True), ("Sk", "seqlen_k", True),
    ("D", "head_dim", True), ("causal", "is_causal", True), ("tile", "", False), ("splits", "num_splits", True),
    ("ms", "time_ms_median", True), ("TFLOP/s", "tflops", True), ("GB/s", "bandwidth_gbs", True),
    ("noise%", "noise_pct", True), ("check", "check", False), ("note", "note", False),
]


def format_table(rows: Sequence[dict[str, str]], note_width: int = 60) -> str:
    """Rows as a plain aligned text table (numbers right-aligned, TFLOP/s to one decimal)."""
    def cell(row, column):
        if column == "":  # the tile, as fa-bench prints it
            m = row.get("m_block_size", "")
            return f"{m}x{row.get('n_block_size', '')}x{row.get('num_threads', '')}" if m else "-"
        text = row.get(column, "")
        if column in ("tflops", "noise_pct") and text:
            return f"{float(text):.1f}"
        if column == "bandwidth_gbs" and text:
            return f"{float(text):.0f}"
        if column == "time_ms_median" and text:
            return f"{float(text):.4g}"
        if column == "note":
            return one_line(text, note_width)
        return text

    cells = [[header for header, _, _ in TABLE_COLUMNS]]
    cells += [[cell(row, column) for _, column, _ in TABLE_COLUMNS] for row in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(TABLE_COLUMNS))]
    lines = []
    for line in cells:
        parts = [text.rjust(w) if right else text.ljust(w)
                 for text, w, (_, _, right) in zip(line, widths, TABLE_COLUMNS)]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------
# Provenance
# ----------------------------------------------------------------------------------------------

def run_quiet(command: Sequence[str], cwd: Path | None = None) -> str:
    """stdout of a command, stripped, or '' if it is missing, fails or hangs (5 s)."""
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def git_commit() -> str:
    """$FA_GIT_COMMIT if set (scripts/sweep.sh passes the commit fa-bench was built from, so peer
    rows and kernel rows of one sweep agree even where the checkout's .git is stale or absent),
    else the short commit of the repository this script lives in ('' outside a git checkout)."""
    return os.environ.get("FA_GIT_COMMIT", "") or run_quiet(["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT)


def nvidia_smi_query(field: str, gpu_uuid: str = "") -> str:
    """One --query-gpu field for the GPU with this UUID (or the first GPU), '' without nvidia-smi."""
    command = ["nvidia-smi", f"--query-gpu={field}", "--format=csv,noheader,nounits"]
    if gpu_uuid:
        command.append(f"--id={gpu_uuid}")
    out = run_quiet(command)
    return out.splitlines()[0].strip() if out else ""


def utc_timestamp() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def device_provenance(torch, device: int) -> dict:
    """The provenance columns of every row, from torch's device properties and nvidia-smi."""
    props = torch.cuda.get_device_properties(device)
    uuid = str(getattr(props, "uuid", "") or "")
    if uuid and not uuid.startswith("GPU-"):
        uuid = "GPU-" + uuid  # torch prints the bare UUID; nvidia-smi --id wants the GPU- prefix
    # cudaDeviceProp.clockRate (kHz) is the max SM clock; CUDA 13 dropped it from the struct, so
    # a torch built against it may lack clock_rate: then ask nvidia-smi for the same number.
    clock_khz = getattr(props, "clock_rate", 0) or 0
    sm_clock = str(round(clock_khz / 1000)) if clock_khz else nvidia_smi_query("clocks.max.sm", uuid)
    return {
        "timestamp": utc_timestamp(),
        "git_commit": git_commit(),
        "gpu": props.name,
        "sm_count": props.multi_processor_count,
        "sm_clock_mhz": sm_clock,
        "driver_version": nvidia_smi_query("driver_version", uuid),
        "cuda_runtime": torch.version.cuda or "",
    }


# ----------------------------------------------------------------------------------------------
# Measuring (torch passed in)
# ----------------------------------------------------------------------------------------------

def fp8_scale_exponent(amax: float) -> int:
    """fa-bench's per-tensor FP8 scale 2^k (lib/fa/fp8.h): the largest power of two with
    amax * 2^k <= 448, so the tensor's largest magnitude lands in e4m3's top binade without
    saturating; k = 0 for an amax that is not a positive finite number. A power of two scales
    exactly both ways, so the dequantized input (e4m3 value * 2^-k) is exactly what a kernel
    multiplies. Plain Python: the tests check the rule without torch."""
    if not (amax > 0.0) or not math.isfinite(amax):
        return 0
    k = math.floor(math.log2(E4M3_MAX / amax))
    # log2 of a ratio close to a power of two can land one off either way: settle it exactly
    # (ldexp is exact, so each comparison is too).
    while math.ldexp(amax, k) > E4M3_MAX:
        k -= 1
    while math.ldexp(amax, k + 1) <= E4M3_MAX:
        k += 1
    return k


def fp8_quantize(torch, x):
    """(e4m3 tensor, descale) of a float32 tensor, as fa-bench quantizes its FP8 inputs: scale by
    2^k (fp8_scale_exponent of the tensor's amax), round to nearest even (torch's cast to
    float8_e4m3fn) and saturate at +-448 (the clamp: torch's cast turns values beyond the range
    into NaN, fa-bench's saturates; with this k nothing finite reaches it). descale = 2^-k."""
    k = fp8_scale_exponent(float(x.abs().max().item()))
    scaled = (x * math.ldexp(1.0, k)).clamp(-E4M3_MAX, E4M3_MAX)
    return scaled.to(getattr(torch, FP8_TORCH_DTYPE)), math.ldexp(1.0, -k)


class Inputs:
    """Standard-normal q, k, v of one problem, made once in (B, H, S, D) and copied to (B, S, H, D)
    for the backends that take that layout, so every backend sees the same values and one
    reference serves all. k and v have num_head_kv heads (GQA: each is read by num_head /
    num_head_kv query heads; no backend gets them repeated, so every backend reads the bytes
    fa-bench's compulsory_bytes counts). torch's generator: the values differ from fa-bench's
    hash-based ones for the same seed; only their distribution matches.

    FP8 (Float8E4M3FN): the same standard-normal draw in float32, each of q, k, v then quantized
    to e4m3 with its own power-of-two scale (fp8_quantize, fa-bench's rule); `descales` holds
    the three 2^-k (None for the other dtypes). The reference reads reference_inputs(): the
    dequantized values (e4m3 value * descale, exact in float32), so a check measures only the
    kernel's error, not the inputs' quantization, as fa-bench's does."""

    def __init__(self, torch, p: Problem, seed: int, device: int):
        generator = torch.Generator(device=f"cuda:{device}").manual_seed(seed)
        fp8 = p.dtype == FP8_DTYPE
        dtype = getattr(torch, "float32" if fp8 else TORCH_DTYPES[p.dtype])

        def randn(heads, seqlen):
            return torch.randn(p.batch, heads, seqlen, p.head_dim, dtype=dtype, device=f"cuda:{device}",
                               generator=generator)
        drawn = (randn(p.num_head, p.seqlen_q), randn(p.num_head_kv, p.seqlen_k), randn(p.num_head_kv, p.seqlen_k))
        self.descales = None
        if fp8:
            quantized = [fp8_quantize(torch, t) for t in drawn]
            del drawn  # only the e4m3 tensors stay: the float32 draw is 4x their size
            drawn = tuple(t for t, _ in quantized)
            self.descales = tuple(d for _, d in quantized)
        self.bhsd = drawn
        self._bshd = None

    def layout(self, layout: str):
        if layout == "bhsd":
            return self.bhsd
        if self._bshd is None:
            self._bshd = tuple(t.transpose(1, 2).contiguous() for t in self.bhsd)
        return self._bshd

    def reference_inputs(self):
        """q, k, v as the reference reads them: the inputs, or for FP8 their dequantized float32
        values (made on demand: three float32 copies only while the reference runs)."""
        if self.descales is None:
            return self.bhsd
        return tuple(t.float() * d for t, d in zip(self.bhsd, self.descales))


def to_bhsd(out, layout: str):
    return out if layout == "bhsd" else out.transpose(1, 2)


def reference_output(torch, q, k, v, causal: bool, scale: float):
    """fp32 math-backend attention on upcast (B, H, S, D) inputs (TF32 off: torch's default for
    matmul). SDPA's is_causal is top-left aligned, as fa-bench's mask. With fewer K/V heads than
    query heads the math backend maps query head h to K/V head h / (H / H_kv) (enable_gqa, PyTorch
    2.5+), fa-bench's mapping."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import torch.nn.functional as F
    gqa = {"enable_gqa": True} if k.shape[1] != q.shape[1] else {}
    with sdpa_kernel([SDPBackend.MATH]):
        return F.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal, scale=scale, **gqa)


def compare_with_reference(torch, out, ref, tolerance: tuple[float, float]) -> dict:
    """PASS/FAIL with fa-bench's rule: finite, rel_l2 and max_abs/max|ref| within `tolerance`
    (the schema's tolerance for the dtype), so a peer's PASS means what a kernel's PASS means."""
    out = out.float()
    finite = bool(torch.isfinite(out).all())
    diff = (out - ref).nan_to_num(nan=math.inf)
    max_abs_err = float(diff.abs().max())
    max_abs_ref = float(ref.abs().max())
    ref_norm = float(torch.linalg.vector_norm(ref))
    err_norm = float(torch.linalg.vector_norm(diff))
    rel_l2 = err_norm / ref_norm if ref_norm > 0 else err_norm
    max_rel = max_abs_err / max_abs_ref if max_abs_ref > 0 else max_abs_err
    rel_l2_limit, max_rel_limit = tolerance
    passed = finite and rel_l2 <= rel_l2_limit and max_rel <= max_rel_limit
    return {"check": "PASS" if passed else "FAIL", "max_abs_err": max_abs_err, "rel_l2_err": rel_l2}


def measure(torch, backend: Backend, p: Problem, inputs: Inputs, scale: float, variant,
            reference, tolerance: tuple[float, float], settings: Settings, flush_l2, clock_mhz: float,
            sensor=None, idle: GpuIdle | None = None) -> dict:
    """Time one backend on one problem (at a variant: tile or split count): timing stats + check
    fields (+ what the backend says it did), or a note. A dtype the backend does not take is
    refused before its inputs are touched."""
    why = backend.dtype_refusal(p.dtype)
    if why:
        return {"note": one_line(f"refused: {why}")}
    q, k, v = inputs.layout(backend.layout)
    # FP8 inputs come with their descales, which only a backend that takes FP8 is handed.
    extra = {"descales": inputs.descales} if inputs.descales is not None else {}
    with backend.context():
        # A refused shape raises on the first launch; the reasons may come as warnings just
        # before it (SDPA): keep both for the note.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                launch = backend.prepare(torch, p, q, k, v, scale, variant, **extra)
                out = launch()
                torch.cuda.synchronize()
            except Refusal as refusal:
                return {"note": one_line(f"refused: {refusal}")}
            except Exception as error:  # noqa: BLE001 -- any refusal or OOM becomes the row's note
                return {"note": backend.failure_note(error, [str(w.message) for w in caught])}
        result = {"note": one_line(launch.note)} if isinstance(launch, Launch) and launch.note else {}
        if reference is not None:
            if isinstance(launch, Launch) and launch.dequantize is not None:
                out = launch.dequantize(out)  # e.g. an FP8 O: its values, as the reference holds them
            result.update(compare_with_reference(torch, to_bhsd(out, backend.layout), reference, tolerance))
        del out
        sampler = gpu_clocks.ClockSampler(sensor) if sensor is not None else None
        timed = time_launches(torch, launch, settings, flush_l2, clock_mhz, backend.host_us_per_call, sampler, idle)
    result.update(timing_stats(timed["times"]))
    if timed["clock_samples"] is not None:
        result.update(gpu_clocks.clock_columns(timed["clock_samples"], sensor.limits))
    result.update(iterations=len(timed["times"]), warmup_iterations=timed["warmup_iterations"],
                  warmup_ms=timed["warmup_ms"])
    return result


def run_problems(torch, problems: Sequence[Problem], backends: Sequence[Backend], skip_reasons: dict[str, str],
                 tiles: Sequence[Tile], settings: Settings, columns: Sequence[str], analytic: dict[tuple, dict],
                 tolerance_of: Callable[[str], tuple[float, float]], csv_path: Path | None) -> list[dict[str, str]]:
    """Measure every backend on every problem (tiled backends at every tile), appending each row to
    the CSV as soon as it exists (a crash late in a long grid keeps the rows measured before it).
    A backend named in skip_reasons does not run: its rows carry the reason."""
    torch.cuda.set_device(settings.device)
    provenance = device_provenance(torch, settings.device)
    clock_mhz = float(provenance["sm_clock_mhz"] or 2000)  # only sizes the pre-launch sleep
    ready = [b for b in backends if b.name not in skip_reasons]
    sensor = None
    if ready:
        sensor, why_not = gpu_clocks.open_sensor(torch, settings.device)
        if sensor is None:
            print(f"{PROG}: no clock, power or throttle readings ({why_not}): those columns stay empty",
                  file=sys.stderr)
    flush_l2 = l2_flusher(torch, settings.device) if settings.use_cold_l2 and ready else None
    idle = GpuIdle()
    rows = []
    for p in problems:
        scale = float(analytic[p.key]["softmax_scale"])  # the scale fa-bench's rows use
        runs: dict[tuple, dict] = {}
        jobs = [(b, t) for b in backends for t in b.variants(tiles, settings.num_splits)]
        for b, t in jobs:
            if b.name in skip_reasons:
                runs[(b.name, t)] = skipped(skip_reasons[b.name])
            elif b.dtype_refusal(p.dtype):  # e.g. FP8 for a backend without it: no inputs made for it
                runs[(b.name, t)] = {"note": one_line(f"refused: {b.dtype_refusal(p.dtype)}")}
        if any(job not in runs for job in ((b.name, t) for b, t in jobs)):
            try:
                inputs = Inputs(torch, p, settings.seed, settings.device)
            except torch.cuda.OutOfMemoryError as error:
                runs.update({(b.name, t): {"note": one_line(f"inputs do not fit: {error}")}
                             for b, t in jobs if (b.name, t) not in runs})
            else:
                reference = None  # one fp32 reference per problem, shared by its backends
                if settings.check and p.score_entries <= CHECK_MAX_SCORE_ENTRIES:
                    try:
                        reference = reference_output(torch, *inputs.reference_inputs(), p.causal, scale)
                    except torch.cuda.OutOfMemoryError:
                        print(f"{PROG}: fp32 reference does not fit for {p}; check SKIPPED", file=sys.stderr)
                        torch.cuda.empty_cache()
                for b, t in jobs:
                    if (b.name, t) not in runs:
                        runs[(b.name, t)] = measure(torch, b, p, inputs, scale, t, reference, tolerance_of(p.dtype),
                                                    settings, flush_l2, clock_mhz, sensor, idle)
                        torch.cuda.empty_cache()  # an OOM'd math backend must not starve the next one
                del inputs, reference
                torch.cuda.empty_cache()
        for b, t in jobs:
            run = {**b.variant_columns(t), **runs[(b.name, t)]}  # what ran overrides what was asked
            row = build_row(columns, analytic[p.key], p, b, provenance, run,
                            warmup=settings.warmup_iterations, iterations=settings.iterations,
                            cold_l2=settings.use_cold_l2, seed=settings.seed, tile=t if b.tiled else None)
            if csv_path is not None:
                append_rows_to_csv(csv_path, [row], columns)
            rows.append(row)
    return rows
