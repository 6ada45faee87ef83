#!/usr/bin/env python3
"""Measure PyTorch's scaled_dot_product_attention backends ("peers") and append fa-bench CSV rows.

The rows use fa-bench's CSV schema, so plot.py draws fa-bench's kernels and these peers from one
file. Each backend is forced alone through torch.nn.attention.sdpa_kernel:

    fa2       SDPBackend.FLASH_ATTENTION      (FlashAttention-2, vendored in PyTorch)  -> torch_fa2
    cudnn     SDPBackend.CUDNN_ATTENTION      (cuDNN's fused attention)                -> torch_cudnn
    efficient SDPBackend.EFFICIENT_ATTENTION  (xFormers' memory-efficient kernel)      -> torch_efficient
    math      SDPBackend.MATH                 (unfused matmul + softmax + matmul)      -> torch_math

A backend that refuses a shape still gets a row: its time fields are empty and `note` holds the
reason PyTorch gave, so a missing peer is visible instead of silently absent.

Examples:
    python3 scripts/peers.py --grid fa2 --backends fa2,cudnn --csv results/h100/ladder.csv --check
    python3 scripts/peers.py --batch_size 4 --seqlen_q 8192 --seqlen_k 8192 --num_head 16 \\
        --head_dim 128 --causal 0,1 --backends fa2,cudnn,efficient

torch is imported only inside the functions that measure, so the pure helpers (FLOP counts,
grid, CSV writing) import and test without it.
"""
from __future__ import annotations

import argparse
import csv
import dataclasses
import datetime
import itertools
import math
import os
import re
import statistics
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Callable, Iterable, Sequence

PROG = "peers.py"
REPO_ROOT = Path(__file__).resolve().parent.parent

# fa-bench's CSV header, in order (app/ writes the same list). Model columns fa-bench may append
# later are not known here; append_rows_to_csv() follows whatever header the file already has.
CSV_COLUMNS = [
    "timestamp", "git_commit", "gpu", "sm_count", "sm_clock_mhz", "driver_version", "cuda_runtime",
    "kernel", "dtype", "layout", "batch_size", "seqlen_q", "seqlen_k", "num_head", "head_dim",
    "is_causal", "softmax_scale", "m_block_size", "n_block_size", "num_threads",
    "warmup_iterations", "iterations", "use_cold_l2", "seed", "flops", "compulsory_bytes",
    "arithmetic_intensity", "time_ms_median", "time_ms_min", "time_ms_max", "noise_pct", "tflops",
    "bandwidth_gbs", "check", "max_abs_err", "rel_l2_err", "note",
]
# Columns left empty when a backend refuses a shape (nothing was timed).
TIME_COLUMNS = ["time_ms_median", "time_ms_min", "time_ms_max", "noise_pct", "tflops", "bandwidth_gbs"]

DTYPE_BYTES = {"Float16": 2, "BFloat16": 2, "Float32": 4}

# (rel_l2 limit, max_abs_err / max|ref| limit): the same numbers as fa-bench's tolerance_for() in
# lib/reference_cpu.cpp, so a peer's PASS means what a kernel's PASS means. The output's own
# rounding is 2^-9 (bf16) / 2^-12 (fp16) relative; the limits leave ~4x headroom over that.
TOLERANCES = {"BFloat16": (1e-2, 4e-2), "Float16": (2e-3, 6e-3), "Float32": (1e-4, 5e-4)}

# --backends name -> SDPBackend member name. The kernel slug in the CSV is "torch_" + name.
BACKENDS = {
    "fa2": "FLASH_ATTENTION",
    "cudnn": "CUDNN_ATTENTION",
    "efficient": "EFFICIENT_ATTENTION",
    "math": "MATH",
}

# --check runs the fp32 math reference only up to 2^28 score entries (B·H·Sq·Sk): its S and P are
# materialised in fp32, 2^28 · 4 B = 1 GiB each, which fits beside the inputs on any 16+ GiB GPU.
CHECK_MAX_SCORE_ENTRIES = 2 ** 28

# FlashAttention-2's benchmark grid (benchmarks/benchmark_flash_attention.py): 16k tokens per
# batch, so batch = 16384 / seqlen, and hidden size 2048 split as 32 heads × 64 or 16 heads × 128.
FA2_GRID_TOKENS = 16384
FA2_GRID_SEQLENS = (512, 1024, 2048, 4096, 8192, 16384)
FA2_GRID_HEAD_CONFIGS = ((64, 32), (128, 16))  # (head_dim, num_head)
# The CuTe DSL example's default problem, fa-bench's default too: B=4, S=8192, H=16, D=128.
DEFAULT_PROBLEM = dict(batch=4, seqlen_q=8192, seqlen_k=8192, num_head=16, head_dim=128)

# Defaults of the shape flags when neither they nor --grid are given (fa-bench's defaults).
SHAPE_FLAG_DEFAULTS = {"batch_size": [4], "seqlen_q": [8192], "seqlen_k": [8192], "num_head": [16],
                       "head_dim": [128]}

# A note is one CSV field; backend errors can be long multi-line messages, so keep the start.
NOTE_MAX_CHARS = 400


@dataclasses.dataclass(frozen=True)
class Problem:
    """One attention problem in PyTorch's (B, H, S, D) layout."""
    batch: int
    seqlen_q: int
    seqlen_k: int
    num_head: int
    head_dim: int
    causal: bool
    dtype: str = "BFloat16"

    @property
    def score_entries(self) -> int:
        """Entries of the full score matrix S = QKᵀ over all batches and heads."""
        return self.batch * self.num_head * self.seqlen_q * self.seqlen_k


# ----------------------------------------------------------------------------------------------
# Analytic metrics (the same formulas as lib/problem.cpp)
# ----------------------------------------------------------------------------------------------

def unmasked_scores(seqlen_q: int, seqlen_k: int, causal: bool) -> int:
    """Score entries a query row actually uses, summed over rows.

    Non-causal: Sq·Sk. Causal, top-left aligned (row i sees key j iff j <= i): Σ_{i<Sq} min(i+1, Sk),
    i.e. a triangle over the first min(Sq, Sk) rows plus full rows of Sk keys after it.
    Exact integer arithmetic, so the FLOP count in the CSV is an exact integer too.
    """
    if not causal:
        return seqlen_q * seqlen_k
    tri_rows = min(seqlen_q, seqlen_k)
    return tri_rows * (tri_rows + 1) // 2 + (seqlen_q - tri_rows) * seqlen_k


def attention_flops(p: Problem) -> int:
    """4·B·H·D·U: 2 FLOPs per multiply-add in each of the two GEMMs (S = QKᵀ and O = PV)."""
    return 4 * p.batch * p.num_head * p.head_dim * unmasked_scores(p.seqlen_q, p.seqlen_k, p.causal)


def compulsory_bytes(p: Problem) -> int:
    """Q, K, V read once and O written once: (2·Sq + 2·Sk)·B·H·D·sizeof(dtype)."""
    return (2 * p.seqlen_q + 2 * p.seqlen_k) * p.batch * p.num_head * p.head_dim * DTYPE_BYTES[p.dtype]


def default_softmax_scale(head_dim: int) -> float:
    return 1.0 / math.sqrt(head_dim)


# ----------------------------------------------------------------------------------------------
# Problem lists
# ----------------------------------------------------------------------------------------------

def fa2_grid(dtypes: Sequence[str] = ("BFloat16",)) -> list[Problem]:
    """FlashAttention-2's benchmark grid plus the example default, causal 0 and 1, per dtype.

    6 seqlens × 2 head configs × 2 causal = 24 grid points + 2 for the default = 26 per dtype.
    """
    problems = []
    for dtype in dtypes:
        for head_dim, num_head in FA2_GRID_HEAD_CONFIGS:
            for seqlen in FA2_GRID_SEQLENS:
                for causal in (False, True):
                    problems.append(Problem(FA2_GRID_TOKENS // seqlen, seqlen, seqlen, num_head, head_dim,
                                            causal, dtype))
        for causal in (False, True):
            problems.append(Problem(causal=causal, dtype=dtype, **DEFAULT_PROBLEM))
    return problems


def cartesian_problems(dtypes: Sequence[str], batch_sizes: Sequence[int], seqlens_q: Sequence[int],
                       seqlens_k: Sequence[int], num_heads: Sequence[int], head_dims: Sequence[int],
                       causals: Sequence[int]) -> list[Problem]:
    """Every combination of the flag lists, as fa-bench sweeps its comma lists."""
    return [Problem(b, sq, sk, h, d, bool(c), t)
            for t, b, sq, sk, h, d, c in itertools.product(dtypes, batch_sizes, seqlens_q, seqlens_k,
                                                            num_heads, head_dims, causals)]


def parse_int_list(text: str) -> list[int]:
    """'1,2,4' -> [1, 2, 4] (argparse type; a bad value becomes a one-line usage error)."""
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a comma list of integers") from None
    if not values:
        raise argparse.ArgumentTypeError("empty list")
    return values


def parse_dtype_list(text: str) -> list[str]:
    names = [v.strip() for v in text.split(",") if v.strip()]
    for name in names:
        if name not in DTYPE_BYTES:
            raise argparse.ArgumentTypeError(f"{name}: must be one of {', '.join(DTYPE_BYTES)}")
    return names


def parse_backends(text: str) -> list[str]:
    """'fa2,cudnn' -> ['fa2', 'cudnn']; unknown names are a usage error, duplicates are dropped."""
    names = []
    for name in (v.strip() for v in text.split(",")):
        if not name:
            continue
        if name not in BACKENDS:
            raise argparse.ArgumentTypeError(f"{name}: unknown backend (choose from {', '.join(BACKENDS)})")
        if name not in names:
            names.append(name)
    if not names:
        raise argparse.ArgumentTypeError("no backend given")
    return names


def kernel_slug(backend: str) -> str:
    return "torch_" + backend


# ----------------------------------------------------------------------------------------------
# Statistics, rows, CSV and table
# ----------------------------------------------------------------------------------------------

def timing_stats(times_ms: Sequence[float]) -> dict[str, float]:
    """Median/min/max and noise = 100·stddev/mean (population stddev, as over the whole run)."""
    mean = statistics.fmean(times_ms)
    return {
        "time_ms_median": statistics.median(times_ms),
        "time_ms_min": min(times_ms),
        "time_ms_max": max(times_ms),
        "noise_pct": 100.0 * statistics.pstdev(times_ms) / mean if mean > 0 else 0.0,
    }


def format_value(value) -> str:
    """CSV text of one value: '' for None, ints as-is, floats to 6 significant digits."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        if math.isnan(value):
            return ""
        return f"{value:.6g}"
    return str(value)


def one_line(text: str, limit: int = NOTE_MAX_CHARS) -> str:
    """Collapse whitespace/newlines and cut to `limit` characters (an ellipsis marks the cut)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


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


def build_row(problem: Problem, backend: str, provenance: dict, run: dict, *, warmup: int, iterations: int,
              cold_l2: bool, seed: int, softmax_scale: float) -> dict[str, str]:
    """One CSV row as {column: text}. `run` holds timing stats (or none), check fields and note."""
    flops = attention_flops(problem)
    nbytes = compulsory_bytes(problem)
    row = dict(provenance)
    row.update({
        "kernel": kernel_slug(backend),
        "dtype": problem.dtype,
        "layout": "bhsd",  # SDPA takes (B, H, S, D)
        "batch_size": problem.batch,
        "seqlen_q": problem.seqlen_q,
        "seqlen_k": problem.seqlen_k,
        "num_head": problem.num_head,
        "head_dim": problem.head_dim,
        "is_causal": problem.causal,
        "softmax_scale": softmax_scale,
        "m_block_size": None,  # the backends choose their own tiles; not visible from PyTorch
        "n_block_size": None,
        "num_threads": None,
        "warmup_iterations": warmup,
        "iterations": iterations,
        "use_cold_l2": cold_l2,
        "seed": seed,
        "flops": flops,
        "compulsory_bytes": nbytes,
        "arithmetic_intensity": flops / nbytes,
        "check": run.get("check", "SKIPPED"),
        "max_abs_err": run.get("max_abs_err"),
        "rel_l2_err": run.get("rel_l2_err"),
        "note": run.get("note", ""),
    })
    median = run.get("time_ms_median")
    if median is not None:
        row.update({k: run[k] for k in ("time_ms_median", "time_ms_min", "time_ms_max", "noise_pct")})
        row["tflops"] = flops / (median * 1e9)          # FLOP / (ms · 1e-3) / 1e12
        row["bandwidth_gbs"] = nbytes / (median * 1e6)  # B / (ms · 1e-3) / 1e9
    return {column: format_value(row.get(column)) for column in CSV_COLUMNS}


def append_rows_to_csv(path: Path, rows: Iterable[dict[str, str]]) -> None:
    """Append rows, writing the header only when the file is new or empty.

    An existing file's header wins: values go under its columns by name, columns it has and we
    do not (fa-bench's model columns) stay empty, and columns it lacks are reported once.
    Quoting is RFC 4180 (csv.QUOTE_MINIMAL): a field with a comma, quote or newline is quoted.
    """
    path = Path(path)
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
        header = list(CSV_COLUMNS)
    else:
        lacking = [c for c in CSV_COLUMNS if c not in header]
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
    ("H", "num_head", True), ("Sq", "seqlen_q", True), ("Sk", "seqlen_k", True), ("D", "head_dim", True),
    ("causal", "is_causal", True), ("ms", "time_ms_median", True), ("TFLOP/s", "tflops", True),
    ("noise%", "noise_pct", True), ("check", "check", False), ("note", "note", False),
]


def format_table(rows: Sequence[dict[str, str]], note_width: int = 60) -> str:
    """Rows as a plain aligned text table (numbers right-aligned, TFLOP/s to one decimal)."""
    def cell(row, column):
        text = row.get(column, "")
        if column in ("tflops", "noise_pct") and text:
            return f"{float(text):.1f}"
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
# Measuring (torch needed from here on)
# ----------------------------------------------------------------------------------------------

TORCH_DTYPES = {"Float16": "float16", "BFloat16": "bfloat16", "Float32": "float32"}


def make_inputs(torch, p: Problem, seed: int, device: int):
    """Standard-normal q, k, v in (B, H, S, D). torch's generator, so the values differ from
    fa-bench's hash-based ones for the same seed; only their distribution matches."""
    generator = torch.Generator(device=f"cuda:{device}").manual_seed(seed)
    dtype = getattr(torch, TORCH_DTYPES[p.dtype])

    def randn(seqlen):
        return torch.randn(p.batch, p.num_head, seqlen, p.head_dim, dtype=dtype, device=f"cuda:{device}",
                           generator=generator)
    return randn(p.seqlen_q), randn(p.seqlen_k), randn(p.seqlen_k)


def reference_output(torch, q, k, v, causal: bool, scale: float):
    """fp32 math-backend attention on upcast inputs (TF32 off: torch's default for matmul)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import torch.nn.functional as F
    with sdpa_kernel([SDPBackend.MATH]):
        return F.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal, scale=scale)


def compare_with_reference(torch, out, ref, dtype: str) -> dict:
    """PASS/FAIL with fa-bench's rules: finite, rel_l2 and max_abs/max|ref| within TOLERANCES."""
    out = out.float()
    finite = bool(torch.isfinite(out).all())
    diff = (out - ref).nan_to_num(nan=math.inf)
    max_abs_err = float(diff.abs().max())
    max_abs_ref = float(ref.abs().max())
    ref_norm = float(torch.linalg.vector_norm(ref))
    err_norm = float(torch.linalg.vector_norm(diff))
    rel_l2 = err_norm / ref_norm if ref_norm > 0 else err_norm
    max_rel = max_abs_err / max_abs_ref if max_abs_ref > 0 else max_abs_err
    rel_l2_limit, max_rel_limit = TOLERANCES[dtype]
    passed = finite and rel_l2 <= rel_l2_limit and max_rel <= max_rel_limit
    return {"check": "PASS" if passed else "FAIL", "max_abs_err": max_abs_err, "rel_l2_err": rel_l2}


def enqueue_gpu_sleep(torch, ms: float, clock_mhz: float) -> None:
    """Park the stream in a spin kernel for ~ms so the CPU can queue every timed launch behind it.

    Without it, Python's launch cost (~20-50 µs per SDPA call) can exceed the kernel itself on the
    small grid points (B=32, S=512, H=32, D=64 is 8.6 GFLOP: ~20 µs at 400 TFLOP/s), and the GPU
    would idle inside the timed interval. torch.cuda._sleep is private; skip it if it is gone.
    """
    sleep = getattr(torch.cuda, "_sleep", None)
    if sleep is not None:
        sleep(int(ms * 1e-3 * clock_mhz * 1e6))


def time_launches(torch, launch: Callable[[], object], warmup: int, iterations: int,
                  flush_l2: Callable[[], object] | None, clock_mhz: float) -> list[float]:
    """Per-iteration CUDA-event times in ms. flush_l2, when given, runs before each timed launch,
    outside the events."""
    for _ in range(warmup):
        launch()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iterations)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iterations)]
    # ~100 µs of CPU time per iteration covers a launch, two event records and an L2 flush.
    enqueue_gpu_sleep(torch, min(0.1 * iterations, 200.0), clock_mhz)
    for start, end in zip(starts, ends):
        if flush_l2 is not None:
            flush_l2()
        start.record()
        launch()
        end.record()
    torch.cuda.synchronize()
    return [start.elapsed_time(end) for start, end in zip(starts, ends)]


def measure_backend(torch, backend: str, q, k, v, p: Problem, scale: float, args, flush_l2, clock_mhz: float,
                    reference) -> dict:
    """Time one backend on one problem. Returns timing stats + check fields, or a note on refusal."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import torch.nn.functional as F

    def launch():
        return F.scaled_dot_product_attention(q, k, v, is_causal=p.causal, scale=scale)

    with sdpa_kernel([getattr(SDPBackend, BACKENDS[backend])]):
        # With one backend allowed, an unsupported shape raises "No available kernel" and the
        # reasons come as UserWarnings just before it: keep both for the note.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                out = launch()
                torch.cuda.synchronize()
            except Exception as error:  # noqa: BLE001 -- any refusal or OOM becomes the row's note
                return {"note": refusal_note(error, [str(w.message) for w in caught])}
        result = {}
        if reference is not None:
            result.update(compare_with_reference(torch, out, reference, p.dtype))
        del out
        times = time_launches(torch, launch, args.warmup_iterations, args.iterations, flush_l2, clock_mhz)
    result.update(timing_stats(times))
    return result


def l2_flusher(torch, device: int):
    """A function that overwrites 2× L2 (H100: 2 × 50 MiB), evicting q, k, v and o from L2."""
    l2_bytes = getattr(torch.cuda.get_device_properties(device), "L2_cache_size", 0) or 50 * 2 ** 20
    buffer = torch.empty(2 * l2_bytes, dtype=torch.uint8, device=f"cuda:{device}")
    return buffer.zero_


def run_problems(torch, problems: Sequence[Problem], backends: Sequence[str], args) -> list[dict[str, str]]:
    """Measure every backend on every problem, appending each row to the CSV as soon as it exists
    (a crash late in a long grid keeps the rows measured before it)."""
    torch.cuda.set_device(args.device)
    provenance = device_provenance(torch, args.device)
    clock_mhz = float(provenance["sm_clock_mhz"] or 2000)  # only sizes the pre-launch sleep
    flush_l2 = l2_flusher(torch, args.device) if args.use_cold_l2 else None
    rows = []
    for p in problems:
        scale = args.softmax_scale or default_softmax_scale(p.head_dim)
        try:
            q, k, v = make_inputs(torch, p, args.seed, args.device)
        except torch.cuda.OutOfMemoryError as error:
            runs = {b: {"note": one_line(f"inputs do not fit: {error}")} for b in backends}
        else:
            reference = None  # one fp32 reference per problem, shared by its backends
            if args.check and p.score_entries <= CHECK_MAX_SCORE_ENTRIES:
                try:
                    reference = reference_output(torch, q, k, v, p.causal, scale)
                except torch.cuda.OutOfMemoryError:
                    print(f"{PROG}: fp32 reference does not fit for {p}; check SKIPPED", file=sys.stderr)
                    torch.cuda.empty_cache()
            runs = {}
            for backend in backends:
                runs[backend] = measure_backend(torch, backend, q, k, v, p, scale, args, flush_l2, clock_mhz,
                                                reference)
                torch.cuda.empty_cache()  # an OOM'd math backend must not starve the next one
            del q, k, v, reference
            torch.cuda.empty_cache()
        for backend in backends:
            row = build_row(p, backend, provenance, runs[backend], warmup=args.warmup_iterations,
                            iterations=args.iterations, cold_l2=args.use_cold_l2, seed=args.seed,
                            softmax_scale=scale)
            if args.csv:
                append_rows_to_csv(Path(args.csv), [row])
            rows.append(row)
    return rows


# ----------------------------------------------------------------------------------------------
# Command line
# ----------------------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description="Time PyTorch SDPA backends on fa-bench's problems; append fa-bench CSV rows.")
    parser.add_argument("--backends", type=parse_backends, default=["fa2", "cudnn"],
                        help=f"comma list of {', '.join(BACKENDS)} (default fa2,cudnn)")
    parser.add_argument("--grid", choices=["fa2"],
                        help="FlashAttention-2's benchmark grid + the 4x8192x16x128 default, causal 0,1 "
                             "(replaces the shape flags)")
    parser.add_argument("--dtype", type=parse_dtype_list, default=["BFloat16"],
                        help="Float16, BFloat16 or Float32; comma list (default BFloat16)")
    for flag in SHAPE_FLAG_DEFAULTS:
        parser.add_argument(f"--{flag}", type=parse_int_list,
                            help=f"comma list (default {SHAPE_FLAG_DEFAULTS[flag][0]})")
    causal = parser.add_mutually_exclusive_group()
    causal.add_argument("--is_causal", action="store_true", help="causal mask, top-left aligned")
    causal.add_argument("--causal", type=parse_int_list, help="causal sweep: comma list of 0/1, e.g. 0,1")
    parser.add_argument("--softmax_scale", type=float, default=0.0, help="default 1/sqrt(head_dim)")
    parser.add_argument("--warmup_iterations", type=int, default=5, help="untimed launches (default 5)")
    parser.add_argument("--iterations", type=int, default=20, help="timed launches (default 20)")
    parser.add_argument("--use_cold_l2", action="store_true", help="overwrite 2x L2 before every timed launch")
    parser.add_argument("--check", action="store_true",
                        help="compare with an fp32 math reference when B*H*Sq*Sk <= 2^28 (else SKIPPED)")
    parser.add_argument("--seed", type=int, default=0, help="seed of torch's generator (default 0)")
    parser.add_argument("--device", type=int, default=0, help="CUDA device ordinal (default 0)")
    parser.add_argument("--csv", help="append rows to FILE (header written once)")
    return parser


def problems_from_args(args) -> list[Problem]:
    """The problem list the flags ask for: --grid fa2, or the cartesian product of the shape flags."""
    if args.grid == "fa2":
        given = [f"--{flag}" for flag in SHAPE_FLAG_DEFAULTS if getattr(args, flag) is not None]
        if given or args.is_causal or args.causal is not None:
            print(f"{PROG}: --grid fa2 sets the shapes; ignoring {' '.join(given) or 'the causal flags'}",
                  file=sys.stderr)
        return fa2_grid(args.dtype)
    shape = {flag: getattr(args, flag) or default for flag, default in SHAPE_FLAG_DEFAULTS.items()}
    causals = [1] if args.is_causal else (args.causal or [0])
    return cartesian_problems(args.dtype, shape["batch_size"], shape["seqlen_q"], shape["seqlen_k"],
                              shape["num_head"], shape["head_dim"], causals)


def main(argv: Sequence[str] | None = None) -> int:
    """0: all rows written; 1: some check FAILed; 2: bad flags, no torch or no GPU."""
    parser = build_parser()
    args = parser.parse_args(argv)  # a bad flag exits here with status 2
    if args.iterations < 1 or args.warmup_iterations < 0:
        parser.error("--iterations must be >= 1 and --warmup_iterations >= 0")
    if args.causal is not None and any(c not in (0, 1) for c in args.causal):
        parser.error(f"--causal {','.join(map(str, args.causal))}: each value must be 0 or 1")
    for flag in SHAPE_FLAG_DEFAULTS:
        if any(v <= 0 for v in getattr(args, flag) or []):
            parser.error(f"--{flag}: every value must be a positive integer")
    problems = problems_from_args(args)
    try:
        import torch
    except ImportError:
        print(f"{PROG}: PyTorch is not installed; no peer rows written", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print(f"{PROG}: no CUDA device visible to PyTorch; no peer rows written", file=sys.stderr)
        return 2
    rows = run_problems(torch, problems, args.backends, args)
    print(format_table(rows))
    if args.csv:
        print(f"{PROG}: appended {len(rows)} rows to {args.csv}")
    failed = sum(row["check"] == "FAIL" for row in rows)
    if failed:
        print(f"{PROG}: {failed} rows FAILed the reference check", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
