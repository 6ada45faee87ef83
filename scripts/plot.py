#!/usr/bin/env python3
"""Charts and the README ladder table from fa-bench CSVs (peers.py rows included).

    build/venv/bin/python scripts/plot.py results/nvidia-h100-80gb-hbm3/ladder.csv --out /tmp/plots
    build/venv/bin/python scripts/plot.py results/nvidia-h100-80gb-hbm3/ladder.csv --table   # markdown
    build/venv/bin/python scripts/plot.py decode.csv --plots decode --out /tmp/plots        # sweep.sh --grid decode
    build/venv/bin/python scripts/plot.py decode.csv --decode-table                          # markdown
    build/venv/bin/python scripts/plot.py results/nvidia-h100-80gb-hbm3/session8/fa2/ladder.csv --wide-table

Kernel order: fa-bench's rungs in ladder order (from `fa-bench --schema`: --fa-bench PATH,
$FA_BENCH or build/fa-bench, or a saved document with --schema-json FILE), then kernels neither
fa-bench nor peers.py knows (alphabetically), then the peers in peers.py's order
(scripts/peer_backends), each peer with its own line style, marker and hatch.

Plots (PNG and SVG each, into --out):
  throughput_vs_seqlen  TFLOP/s vs sequence length, one line per kernel/peer, one panel per
                        (head_dim, causal); square problems on the fa2 grid (batch·seqlen = 16k)
  ladder                one bar per rung on one --shape, annotated with % of --peer
  roofline              arithmetic intensity vs TFLOP/s for every row, with the math and HBM ceilings
                        (peak_tflops, peak_gbs) and the SFU's per head_dim (flops / t_sfu_ms), dashed
  decode                (not in the default set) GB/s = compulsory bytes / median time vs seqlen_k for
                        B=1, Sq=1, non-causal (log-x), one line per kernel/peer, the best fa-bench
                        kernel per point underlaid, one panel per K/V head count, and the copy ceiling
                        (fa-bench rows' practical_gbs) as a horizontal line

Tables (markdown, no charts): --table, one line per kernel per shape with % of each peer;
--wide-table, one line per shape with a TFLOP/s column per kernel and the best fa-bench kernel as
% of the best peer (the README's results table); --decode-table, per decode shape the best fa-bench kernel and the best peer, GB/s and % of the
copy ceiling (anchors: the decode shapes of peers.py --grid decode; all: every shape with
seqlen_q < seqlen_k).

Rows are filtered to one --dtype (default BFloat16). Rows with check=FAIL are dropped with a
warning, rows without a time (a backend refused the shape) are dropped quietly. When a kernel has
several rows for one shape (tile sweeps, repeated runs), the fastest is used: it is the
configuration the kernel would be tuned to.

Exit status 2, with one line on stderr, for a missing file or column, an empty selection, or no
fa-bench schema. Columns are found by name, so CSVs from older fa-bench builds (fewer columns) read.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import matplotlib

matplotlib.use("Agg")  # files only; no display on the GPU machine
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

import fa_schema  # noqa: E402
from peer_backends import peer_kernels  # noqa: E402
from peer_backends.common import DECODE_ANCHOR_SHAPES  # noqa: E402

PROG = "plot.py"

# Peers differ from rungs at a glance: a line style, a marker and a bar hatch of their own
# (cycled), where rungs are solid lines, circles and plain bars.
PEER_LINESTYLES = ["--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1))]
PEER_MARKERS = ["s", "^", "D", "v", "P", "X", "*"]
PEER_HATCHES = ["//", "\\\\", "xx", "..", "++", "oo"]

# num_head_kv: a GQA problem and the MHA one of the same shape are different problems (K/V bytes).
SHAPE_COLUMNS = list(fa_schema.SHAPE_COLUMNS)  # a list: pandas reads a tuple as one key
# Table order: like the charts' panels (head_dim, causal), then by sequence length.
TABLE_SHAPE_ORDER = ["head_dim", "is_causal", "seqlen_q", "seqlen_k", "batch_size", "num_head", "num_head_kv"]
# Columns every mode needs; the roofline adds arithmetic_intensity, the decode chart and table
# the bytes and the time (GB/s = compulsory_bytes / time_ms_median).
BASE_COLUMNS = ["kernel", "dtype", *SHAPE_COLUMNS, "tflops"]
DECODE_COLUMNS = ["compulsory_bytes", "time_ms_median"]
NUMERIC_COLUMNS = [*SHAPE_COLUMNS, "tflops", "arithmetic_intensity", "peak_tflops", "peak_gbs", "practical_gbs",
                   "flops", "t_sfu_ms", "sm_clock_mean_mhz", *DECODE_COLUMNS]

# Without ceilings in the CSV: the H100's dense bf16 tensor peak at its 1980 MHz boost
# (132 · 4096 · 1.98 GHz = 1071 TFLOP/s) and its HBM3 pins (3352 GB/s), fa-bench's model v2
# ceilings; the device copy measured on it (2966 GB/s) is the decode chart's line. A CSV with
# peak_tflops / peak_gbs (practical_gbs for the copy) overrides these, and the flags override both.
DEFAULT_PEAK_TFLOPS = 1070.5
DEFAULT_PEAK_GBS = 3352.3
DEFAULT_COPY_GBS = 2966.0
FA2_GRID_TOKENS = 16384

PLOTS = ("throughput", "ladder", "roofline", "decode")
# What --plots means when not given: the charts of the fa2-grid sweep (ladder.csv); the decode
# chart needs decode rows (sweep.sh --grid decode) and is asked for by name.
DEFAULT_PLOTS = ("throughput", "ladder", "roofline")


class DataError(Exception):
    """A problem with the input the user must fix: printed as one line, exit status 2."""


# ----------------------------------------------------------------------------------------------
# Loading and selecting rows
# ----------------------------------------------------------------------------------------------

def read_csvs(paths: Sequence[str], required: Sequence[str]) -> pd.DataFrame:
    """Concatenate the CSVs, checking each for the required columns. Extra columns are kept and
    columns only some files have are empty (NaN) in the others."""
    frames = []
    for path in paths:
        if not Path(path).is_file():
            raise DataError(f"no such file: {path}")
        try:
            frame = pd.read_csv(path)
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as error:
            # A row with more fields than the header (rows of two schemas in one file, or a row
            # glued to a line that lacked its newline) or a file that is not text.
            raise DataError(f"{path}: not a CSV file fa-bench wrote ({' '.join(str(error).split())})") from None
        if "num_head_kv" not in frame.columns and "num_head" in frame.columns:
            frame["num_head_kv"] = frame["num_head"]  # a CSV from before GQA: one K/V head per query head
        missing = [c for c in required if c not in frame.columns]
        if missing:
            plural = "s" if len(missing) > 1 else ""
            raise DataError(f"{path}: missing column{plural} {', '.join(missing)} (needed for the chosen output)")
        frames.append(frame)
    data = pd.concat(frames, ignore_index=True)
    for column in NUMERIC_COLUMNS:
        if column in data.columns:
            data[column] = pd.to_numeric(data[column], errors="coerce")
    return data


def heads_label(num_head, num_head_kv) -> str:
    """'32' for MHA, '32(kv 8)' for GQA: the query heads, and the K/V heads when fewer."""
    return f"{num_head}" if num_head == num_head_kv else f"{num_head}(kv {num_head_kv})"


def shape_label(row) -> str:
    """'4×16×8192×128' (B×H×S×D), '4×16×8192/4096×128' when Sq ≠ Sk, '4×32(kv 8)×…' with GQA."""
    seq = f"{row.seqlen_q}" if row.seqlen_q == row.seqlen_k else f"{row.seqlen_q}/{row.seqlen_k}"
    return f"{row.batch_size}×{heads_label(row.num_head, row.num_head_kv)}×{seq}×{row.head_dim}"


def drop_failed_rows(data: pd.DataFrame) -> pd.DataFrame:
    """Remove check=FAIL rows, naming them in one warning: a wrong kernel's speed is meaningless."""
    if "check" not in data.columns:
        return data
    failed = data["check"].astype(str).str.strip().str.upper() == "FAIL"
    if failed.any():
        names = sorted({f"{r.kernel} {shape_label(r)} causal {r.is_causal}"
                        for r in data[failed].itertuples()})
        count = int(failed.sum())
        print(f"{PROG}: warning: excluding {count} row{'s' if count > 1 else ''} with check=FAIL: "
              f"{'; '.join(names)}", file=sys.stderr)
    return data[~failed]


def select_rows(data: pd.DataFrame, dtype: str, gpu: str | None) -> pd.DataFrame:
    """Rows of one dtype and one GPU that have a time, with integer shape columns."""
    data = drop_failed_rows(data)
    data = data[data["dtype"] == dtype]
    if data.empty:
        raise DataError(f"no rows with dtype {dtype}")
    if gpu is not None and "gpu" in data.columns:
        data = data[data["gpu"].astype(str).str.contains(gpu, case=False, regex=False)]
        if data.empty:
            raise DataError(f"no rows whose gpu contains {gpu!r}")
    if "gpu" in data.columns and data["gpu"].nunique() > 1:
        gpus = ", ".join(sorted(data["gpu"].dropna().astype(str).unique()))
        raise DataError(f"rows from several GPUs ({gpus}); choose one with --gpu")
    data = data.dropna(subset=["kernel", "tflops", *SHAPE_COLUMNS])  # no time: the backend refused the shape
    if data.empty:
        raise DataError(f"no {dtype} rows with a measured time")
    data = data.astype({column: int for column in SHAPE_COLUMNS})
    return data


def fastest_per_kernel_and_shape(data: pd.DataFrame) -> pd.DataFrame:
    """One row per (kernel, shape): the one with the highest TFLOP/s."""
    best = data.loc[data.groupby(["kernel", *SHAPE_COLUMNS])["tflops"].idxmax()]
    return best.reset_index(drop=True)


@dataclass(frozen=True)
class KernelOrder:
    """Where each kernel goes in tables, legends and bars: fa-bench's rungs (schema order), then
    kernels neither side knows (alphabetically), then the peers (peers.py's order)."""
    rungs: tuple[str, ...]
    peers: tuple[str, ...]

    @classmethod
    def of(cls, schema: fa_schema.Schema) -> "KernelOrder":
        return cls(tuple(schema.rung_order), tuple(peer_kernels()))

    def is_peer(self, kernel: str) -> bool:
        return kernel in self.peers

    def sort_key(self, kernel: str) -> tuple:
        if kernel in self.rungs:
            return (0, self.rungs.index(kernel), kernel)
        if kernel in self.peers:
            return (2, self.peers.index(kernel), kernel)
        return (1, 0, kernel)

    def ordered(self, kernels) -> list[str]:
        return sorted(set(kernels), key=self.sort_key)


@dataclass(frozen=True)
class Style:
    color: object
    linestyle: object = "-"
    marker: str = "o"
    hatch: str | None = None
    peer: bool = False


def kernel_styles(kernels: Sequence[str], order: KernelOrder) -> dict[str, Style]:
    """A fixed style per kernel, the same in every chart of one run: colors from tab10 then tab20;
    each peer also its own line style, marker and hatch."""
    palette = list(plt.get_cmap("tab10").colors) + list(plt.get_cmap("tab20").colors[1::2])
    styles, peers_seen = {}, 0
    for i, kernel in enumerate(order.ordered(kernels)):
        color = palette[i % len(palette)]
        if order.is_peer(kernel):
            j = peers_seen
            peers_seen += 1
            styles[kernel] = Style(color, PEER_LINESTYLES[j % len(PEER_LINESTYLES)],
                                   PEER_MARKERS[j % len(PEER_MARKERS)], PEER_HATCHES[j % len(PEER_HATCHES)], True)
        else:
            styles[kernel] = Style(color)
    return styles


def default_shape(schema: fa_schema.Schema) -> str:
    """fa-bench's default problem (the CuTe DSL example's) as B,H,S,D,causal."""
    d = schema.defaults
    return f"{d['batch_size']},{d['num_head']},{d['seqlen_q']},{d['head_dim']},{d['is_causal']}"


def parse_shape(text: str) -> dict[str, int]:
    """'B,H,S,D,causal[,H_kv]' -> shape columns (S is both seqlen_q and seqlen_k; H_kv defaults to
    H, the MHA problem)."""
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        values = []
    if len(values) not in (5, 6):
        raise argparse.ArgumentTypeError(f"{text!r}: expected B,H,S,D,causal[,H_kv], e.g. 4,16,8192,128,0")
    b, h, s, d, c = values[:5]
    kv = values[5] if len(values) == 6 else h
    if c not in (0, 1):
        raise argparse.ArgumentTypeError(f"{text!r}: causal must be 0 or 1")
    return {"batch_size": b, "num_head": h, "num_head_kv": kv, "seqlen_q": s, "seqlen_k": s, "head_dim": d,
            "is_causal": c}


def rows_of_shape(data: pd.DataFrame, shape: dict[str, int]) -> pd.DataFrame:
    mask = pd.Series(True, index=data.index)
    for column, value in shape.items():
        mask &= data[column] == value
    return data[mask]


def percent(part: float, whole: float | None) -> float | None:
    return None if whole is None or whole <= 0 else 100.0 * part / whole


# ----------------------------------------------------------------------------------------------
# Charts
# ----------------------------------------------------------------------------------------------

def save_figure(fig, out_dir: Path, stem: str) -> list[Path]:
    """PNG (150 dpi) and SVG, without timestamps in the SVG so reruns give identical files."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"{stem}.png", out_dir / f"{stem}.svg"]
    fig.savefig(paths[0], dpi=150, bbox_inches="tight")
    fig.savefig(paths[1], bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    return paths


def seqlen_tick_label(seqlen: int) -> str:
    return f"{seqlen // 1024}k" if seqlen >= 1024 and seqlen % 1024 == 0 else str(seqlen)


def plot_throughput_vs_seqlen(data: pd.DataFrame, out_dir: Path, dtype: str, tokens: int,
                              order: KernelOrder, styles: dict[str, Style]) -> list[Path]:
    """FlashAttention's chart: TFLOP/s against seqlen per kernel, one panel per (head_dim, causal).

    Square MHA problems only, and by default only batch·seqlen = 16k tokens (the fa2 grid), so each
    panel compares equal work per point. tokens=0 keeps every batch; then the best is plotted.
    """
    data = data[(data["seqlen_q"] == data["seqlen_k"]) & (data["num_head"] == data["num_head_kv"])]  # as FA's: MHA
    if tokens:
        data = data[data["batch_size"] * data["seqlen_q"] == tokens]
    if data.empty:
        raise DataError(f"throughput plot: no square {dtype} rows with batch*seqlen = {tokens} "
                        "(run the fa2 grid, or pass --tokens 0)")
    head_dims = sorted(data["head_dim"].unique())
    causals = sorted(data["is_causal"].unique())
    fig, axes = plt.subplots(len(head_dims), len(causals), figsize=(5.5 * len(causals), 4 * len(head_dims)),
                             squeeze=False)
    for r, head_dim in enumerate(head_dims):
        for c, causal in enumerate(causals):
            ax = axes[r][c]
            panel = data[(data["head_dim"] == head_dim) & (data["is_causal"] == causal)]
            for kernel in order.ordered(panel["kernel"]):
                series = panel[panel["kernel"] == kernel].groupby("seqlen_q")["tflops"].max().sort_index()
                style = styles[kernel]
                ax.plot(series.index, series.values, marker=style.marker, label=kernel, color=style.color,
                        linestyle=style.linestyle)
            seqlens = sorted(panel["seqlen_q"].unique())
            ax.set_xscale("log", base=2)
            ax.set_xticks(seqlens)
            ax.set_xticklabels([seqlen_tick_label(s) for s in seqlens])
            ax.minorticks_off()
            heads = ", ".join(str(h) for h in sorted(panel["num_head"].unique()))
            ax.set_title(f"head_dim {head_dim}, {heads} heads, {'causal' if causal else 'non-causal'}")
            ax.set_xlabel("sequence length" + (f" (batch × seqlen = {tokens // 1024}k)" if tokens else ""))
            ax.set_ylabel("TFLOP/s")
            ax.set_ylim(bottom=0)
            ax.grid(True, alpha=0.3)
    handles, labels = {}, {}
    for ax in axes.flat:  # one legend for the figure, every kernel once
        for handle, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, handle)
    labels = order.ordered(handles)
    fig.legend([handles[k] for k in labels], labels, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.suptitle(f"Attention forward throughput, {dtype}{gpu_suffix(data)}")
    fig.tight_layout()
    return save_figure(fig, out_dir, "throughput_vs_seqlen")


def gpu_suffix(data: pd.DataFrame) -> str:
    if "gpu" in data.columns and data["gpu"].notna().any():
        return f", {data['gpu'].dropna().iloc[0]}"
    return ""


def plot_ladder(data: pd.DataFrame, out_dir: Path, dtype: str, shape: dict[str, int], peer: str,
                order: KernelOrder, styles: dict[str, Style]) -> list[Path]:
    """One bar per rung on one shape, each annotated with its TFLOP/s and % of the chosen peer."""
    rows = rows_of_shape(data, shape)
    if rows.empty:
        raise DataError(f"ladder plot: no {dtype} rows for shape {format_shape(shape)}; "
                        f"shapes present: {', '.join(available_shapes(data))}")
    tflops = rows.set_index("kernel")["tflops"]
    kernels = order.ordered(tflops.index)
    peer_tflops = tflops.get(peer)
    if peer_tflops is None:
        print(f"{PROG}: warning: no {peer} row for {format_shape(shape)}; bars carry no %", file=sys.stderr)
    fig, ax = plt.subplots(figsize=(max(6.0, 1.1 * len(kernels) + 2), 4.8))
    values = [tflops[k] for k in kernels]
    bars = ax.bar(kernels, values, color=[styles[k].color for k in kernels],
                  edgecolor=["black" if styles[k].peer else "none" for k in kernels])
    for bar, kernel in zip(bars, kernels):
        if styles[kernel].hatch:
            bar.set_hatch(styles[kernel].hatch)
    for bar, kernel, value in zip(bars, kernels, values):
        share = percent(value, peer_tflops)
        text = f"{value:.0f}" if value >= 10 else f"{value:.1f}"
        if share is not None and kernel != peer:
            text += f"\n{share:.0f}%" if share >= 10 else f"\n{share:.1f}%"
        ax.annotate(text, (bar.get_x() + bar.get_width() / 2, value), xytext=(0, 3),
                    textcoords="offset points", ha="center", va="bottom", fontsize=8)
    ax.set_ylabel("TFLOP/s")
    ax.set_ylim(0, max(values) * 1.2)  # room for the two-line annotations
    ax.set_title(f"The ladder at {format_shape(shape)}, {dtype}{gpu_suffix(rows)}"
                 + (f"\n(% of {peer})" if peer_tflops is not None else ""))
    ax.tick_params(axis="x", labelrotation=30)
    for label in ax.get_xticklabels():
        label.set_horizontalalignment("right")
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    return save_figure(fig, out_dir, "ladder")


def peak_ceilings(data: pd.DataFrame, flag_tflops: float | None, flag_gbs: float | None) -> tuple[float, float, str]:
    """(TFLOP/s, GB/s, where they came from): the flags, else the CSV's peak columns, else defaults."""
    def from_csv(column):
        if column in data.columns and data[column].notna().any():
            values = data[column].dropna().unique()
            if len(values) > 1:
                print(f"{PROG}: warning: {column} differs between rows; using the largest", file=sys.stderr)
            return float(values.max())
        return None

    # fa-bench's FP32 rungs carry the CUDA-core peak; the roofline draws the tensor cores' (the largest).
    csv_tflops = float(data["peak_tflops"].max()) if "peak_tflops" in data.columns and data["peak_tflops"].notna().any() \
        else None
    csv_gbs = from_csv("peak_gbs")
    tflops = flag_tflops or csv_tflops or DEFAULT_PEAK_TFLOPS
    gbs = flag_gbs or csv_gbs or DEFAULT_PEAK_GBS
    if flag_tflops or flag_gbs:
        source = "--peak flags"
    elif csv_tflops or csv_gbs:
        source = "CSV"
        if "peak_source" in data.columns and data["peak_source"].notna().any():
            source += f": {data['peak_source'].dropna().iloc[0]}"
    else:
        source = "H100 bf16 GEMM / copy, measured"
    return tflops, gbs, source


def sfu_ceilings(data: pd.DataFrame) -> dict[int, float]:
    """{head_dim: TFLOP/s at which the exponentials alone take all the time}: flops / t_sfu_ms of
    fa-bench's rows (model v2). FLOPs per exponential are 4·D whatever the mask, so this is one
    line per head_dim (H100: 4.18e12 exp2/s · 4 · 64 = 1071 TFLOP/s at D = 64, the tensor peak;
    FA3's reason to overlap softmax with the GEMMs). Empty for a CSV without t_sfu_ms."""
    if "t_sfu_ms" not in data.columns or "flops" not in data.columns:
        return {}
    rows = data.dropna(subset=["t_sfu_ms", "flops"])
    rows = rows[rows["t_sfu_ms"] > 0]
    rate = rows["flops"] / (rows["t_sfu_ms"] * 1e9)  # FLOP / ms · 1e-9 -> TFLOP/s
    return {int(d): float(rate[rows["head_dim"] == d].max()) for d in sorted(rows["head_dim"].unique())}


def plot_roofline(data: pd.DataFrame, out_dir: Path, dtype: str, peak_tflops: float, peak_gbs: float,
                  peak_source: str, order: KernelOrder, styles: dict[str, Style]) -> list[Path]:
    """Every row at (FLOP/byte, TFLOP/s) under min(peak, intensity × bandwidth), log-log, with the
    SFU's ceiling of each head_dim dashed (sfu_ceilings)."""
    data = data.dropna(subset=["arithmetic_intensity"])
    data = data[data["arithmetic_intensity"] > 0]
    if data.empty:
        raise DataError("roofline: no rows with a positive arithmetic_intensity")
    ridge = peak_tflops * 1e3 / peak_gbs  # FLOP/byte where the two ceilings meet (761e3/2966 = 257)
    x_lo = min(data["arithmetic_intensity"].min(), ridge) / 4
    x_hi = max(data["arithmetic_intensity"].max(), ridge) * 4
    fig, ax = plt.subplots(figsize=(7.5, 5))
    # GB/s × FLOP/byte = GFLOP/s; /1e3 -> TFLOP/s.
    ax.plot([x_lo, ridge], [x_lo * peak_gbs / 1e3, peak_tflops], color="black", linewidth=1.5)
    ax.plot([ridge, x_hi], [peak_tflops, peak_tflops], color="black", linewidth=1.5)
    ax.annotate(f"{peak_tflops:.0f} TFLOP/s", (x_hi, peak_tflops), xytext=(-4, 4), textcoords="offset points",
                ha="right", va="bottom", fontsize=8)
    ax.annotate(f"{peak_gbs:.0f} GB/s", (x_lo, x_lo * peak_gbs / 1e3), xytext=(4, 6), textcoords="offset points",
                ha="left", va="bottom", fontsize=8, rotation=30)
    sfu = sfu_ceilings(data)
    for head_dim, tflops in sfu.items():
        ax.plot([x_lo, x_hi], [tflops, tflops], color="dimgray", linewidth=1.0, linestyle="--",
                label=f"SFU exp2 ceiling, D={head_dim}")
        ax.annotate(f"SFU, D={head_dim}: {tflops:.0f} TFLOP/s", (x_lo, tflops), xytext=(4, -10),
                    textcoords="offset points", ha="left", va="bottom", fontsize=7, color="dimgray")
    for kernel in order.ordered(data["kernel"]):
        rows = data[data["kernel"] == kernel]
        style = styles[kernel]
        ax.scatter(rows["arithmetic_intensity"], rows["tflops"], s=22, color=style.color, label=kernel,
                   marker=style.marker, edgecolors="black" if style.peer else "none",
                   linewidths=0.5, zorder=3)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(max(data["tflops"].min() / 4, 1e-3), max([peak_tflops, *sfu.values()]) * 2)
    ax.set_xlabel("arithmetic intensity (FLOP / compulsory byte)")
    ax.set_ylabel("TFLOP/s")
    ax.set_title(f"Roofline, {dtype}{gpu_suffix(data)}\nceilings: {peak_source}", fontsize=10)
    ax.grid(True, which="both", alpha=0.2)
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8)
    fig.tight_layout()
    return save_figure(fig, out_dir, "roofline")


def with_gbs(data: pd.DataFrame) -> pd.DataFrame:
    """The rows with `gbs` = compulsory bytes / median time (GB/s), the decode yardstick: at Sq = 1
    the bytes are K and V, read once, so this is how fast a kernel streams the KV cache."""
    data = data.dropna(subset=DECODE_COLUMNS)
    return data.assign(gbs=data["compulsory_bytes"] / (data["time_ms_median"] * 1e6))  # B / (ms·1e-3) / 1e9


def copy_ceiling(data: pd.DataFrame, order: KernelOrder, flag_gbs: float | None) -> tuple[float, str]:
    """(GB/s, where it came from) of the copy line: --peak_gbs, else the practical_gbs of fa-bench's
    own rows (the calibrated device copy when sweep.sh --grid decode ran --calibrate:
    practical_source says so), else the peak_gbs of a CSV from before model v2 (which held the
    copy then), else the H100's measured copy."""
    if flag_gbs:
        return flag_gbs, "--peak_gbs"
    column, source_column = ("practical_gbs", "practical_source") if "practical_gbs" in data.columns \
        else ("peak_gbs", "peak_source")
    if column in data.columns:
        ours = data[~data["kernel"].map(order.is_peer) & data[column].notna()]
        if not ours.empty:
            values = ours[column].unique()
            if len(values) > 1:
                print(f"{PROG}: warning: fa-bench rows have several {column} ({', '.join(f'{v:g}' for v in values)}); "
                      "using the largest", file=sys.stderr)
            row = ours.loc[ours[column].idxmax()]
            source = str(row[source_column]) if source_column in ours.columns and pd.notna(row[source_column]) else ""
            return float(row[column]), source or f"fa-bench rows' {column}"
    return DEFAULT_COPY_GBS, "H100 device copy, measured (no fa-bench practical_gbs in the CSV)"


def decode_series(data: pd.DataFrame) -> pd.DataFrame:
    """The decode chart's rows: one sequence, one query row, non-causal (the B=1 seqlen_k series)."""
    return data[(data["batch_size"] == 1) & (data["seqlen_q"] == 1) & (data["is_causal"] == 0)]


def plot_decode(data: pd.DataFrame, out_dir: Path, dtype: str, ceiling: tuple[float, str], order: KernelOrder,
                styles: dict[str, Style]) -> list[Path]:
    """GB/s vs seqlen_k at B=1, Sq=1 (log-x), one line per kernel and peer, one panel per (H, D, H_kv),
    the best fa-bench kernel at each point underlaid in grey, the copy ceiling as a line."""
    data = with_gbs(decode_series(data))
    if data.empty:
        raise DataError(f"decode plot: no {dtype} rows with batch_size 1, seqlen_q 1, non-causal and a time "
                        "(run scripts/sweep.sh --grid decode)")
    ceiling_gbs, ceiling_source = ceiling
    panels = data[["num_head", "head_dim", "num_head_kv"]].drop_duplicates()
    panels = sorted(panels.itertuples(index=False), key=lambda p: (p.num_head, p.head_dim, -p.num_head_kv))
    fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4.6), squeeze=False, sharey=True)
    top = max(ceiling_gbs, data["gbs"].max()) * 1.12
    for ax, (num_head, head_dim, num_head_kv) in zip(axes[0], panels):
        panel = data[(data["num_head"] == num_head) & (data["head_dim"] == head_dim)
                     & (data["num_head_kv"] == num_head_kv)]
        ours = panel[panel["kernel"].isin(order.rungs)]
        if not ours.empty:  # what fa-bench reaches at each point, whichever rung does it
            best = ours.groupby("seqlen_k")["gbs"].max().sort_index()
            ax.plot(best.index, best.values, color="0.6", linewidth=7, alpha=0.45, solid_capstyle="round",
                    label="fa-bench best", zorder=1)
        for kernel in order.ordered(panel["kernel"]):
            series = panel[panel["kernel"] == kernel].groupby("seqlen_k")["gbs"].max().sort_index()
            style = styles[kernel]
            ax.plot(series.index, series.values, marker=style.marker, markersize=4, label=kernel, color=style.color,
                    linestyle=style.linestyle, zorder=3)
        ax.axhline(ceiling_gbs, color="black", linestyle=(0, (6, 3)), linewidth=1.2, zorder=2,
                   label=f"copy ceiling {ceiling_gbs:,.0f} GB/s")
        seqlens = sorted(panel["seqlen_k"].unique())
        ax.set_xscale("log", base=2)
        ax.set_xticks(seqlens)
        ax.set_xticklabels([seqlen_tick_label(s) for s in seqlens])
        ax.minorticks_off()
        ax.set_ylim(0, top)
        ax.set_title(f"H={num_head}, H_kv={num_head_kv}" + (" (MHA)" if num_head == num_head_kv else " (GQA)")
                     + f", D={head_dim}")
        ax.set_xlabel("seqlen_k (B=1, Sq=1)")
        ax.set_ylabel("GB/s (compulsory bytes / median time)")
        ax.grid(True, alpha=0.3)
    handles = {}
    for ax in axes.flat:  # one legend for the figure, every line once
        for handle, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, handle)
    fig.legend(list(handles.values()), list(handles), loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8)
    fig.suptitle(f"Decode: KV-cache read rate, {dtype}{gpu_suffix(data)}\ncopy ceiling: {ceiling_source}",
                 fontsize=10)
    fig.tight_layout()
    return save_figure(fig, out_dir, "decode")


# ----------------------------------------------------------------------------------------------
# Markdown table
# ----------------------------------------------------------------------------------------------

def batch_heads_seq(shape: dict[str, int]) -> str:
    """'B×H×S', with H_kv where it is not H and S as Sq/Sk where they differ."""
    seq = f"{shape['seqlen_q']}" if shape["seqlen_q"] == shape["seqlen_k"] else f"{shape['seqlen_q']}/{shape['seqlen_k']}"
    return f"{shape['batch_size']}×{heads_label(shape['num_head'], shape.get('num_head_kv', shape['num_head']))}×{seq}"


def format_shape(shape: dict[str, int]) -> str:
    return f"{batch_heads_seq(shape)}×{shape['head_dim']} {'causal' if shape['is_causal'] else 'non-causal'}"


def available_shapes(data: pd.DataFrame) -> list[str]:
    """The shapes present, as --shape takes them (B,H,S,D,causal, then H_kv where it is not H)."""
    shapes = data[SHAPE_COLUMNS].drop_duplicates().sort_values(SHAPE_COLUMNS)
    return [",".join(str(v) for v in (r.batch_size, r.num_head, r.seqlen_q, r.head_dim, r.is_causal))
            + ("" if r.num_head_kv == r.num_head else f",{r.num_head_kv}")
            + ("" if r.seqlen_q == r.seqlen_k else f" (Sk {r.seqlen_k})") for r in shapes.itertuples()]


def format_percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}%"


def ladder_table_markdown(data: pd.DataFrame, order: KernelOrder, shape: dict[str, int] | None = None) -> str:
    """| shape | causal | kernel | TFLOP/s | % of <peer> ... | per shape, kernels in ladder order.

    Every peer present in the data gets a column; '—' where that peer has no row for the shape.
    """
    if shape is not None:
        data = rows_of_shape(data, shape)
        if data.empty:
            raise DataError(f"table: no rows for shape {format_shape(shape)}")
    peers = [k for k in order.ordered(data["kernel"]) if order.is_peer(k)]
    header = ["shape (B×H×S×D)", "causal", "kernel", "TFLOP/s", *[f"% of {p}" for p in peers]]
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join(["---"] * 3 + ["--:"] * (1 + len(peers))) + "|"]
    for key, rows in data.groupby(TABLE_SHAPE_ORDER, sort=True):
        shape_of_rows = dict(zip(TABLE_SHAPE_ORDER, (int(v) for v in key)))
        tflops = rows.set_index("kernel")["tflops"]
        label = format_shape(shape_of_rows).rsplit(" ", 1)[0]  # the causal flag has its own column
        for kernel in order.ordered(tflops.index):
            cells = [label, str(shape_of_rows["is_causal"]), kernel, f"{tflops[kernel]:.1f}"]
            cells += [format_percent(percent(tflops[kernel], tflops.get(p))) for p in peers]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def wide_table_markdown(data: pd.DataFrame, order: KernelOrder) -> str:
    """| D | causal | B×H×S | <each kernel> ... | best fa-bench / best peer | — one line per shape,
    fa-bench's kernels in ladder order then the peers, TFLOP/s rounded to whole numbers ('–' where a
    kernel has no row for the shape), and the best fa-bench kernel against the best peer of that
    shape ('–' without a peer). The README's results table is this table of one sweep's CSV."""
    kernels = order.ordered(data["kernel"])
    header = ["D", "causal", "B×H×S", *kernels, "best fa-bench / best peer"]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * 3 + ["--:"] * (len(kernels) + 1)) + "|"]
    for key, rows in data.groupby(TABLE_SHAPE_ORDER, sort=True):
        shape = dict(zip(TABLE_SHAPE_ORDER, (int(v) for v in key)))
        tflops = rows.set_index("kernel")["tflops"]
        ours = [tflops[k] for k in tflops.index if not order.is_peer(k)]
        theirs = [tflops[k] for k in tflops.index if order.is_peer(k)]
        ratio = percent(max(ours), max(theirs)) if ours and theirs else None
        cells = [str(shape["head_dim"]), str(shape["is_causal"]), batch_heads_seq(shape)]
        cells += [f"{tflops[k]:.0f}" if k in tflops.index else "–" for k in kernels]
        cells.append("–" if ratio is None else f"{ratio:.0f}%")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


DECODE_TABLE_KINDS = ("anchors", "all")


def decode_shapes(data: pd.DataFrame, kind: str) -> pd.DataFrame:
    """The rows of the decode table's shapes: `anchors` = peers.py --grid decode's anchor shapes
    (peer_backends.common.DECODE_ANCHOR_SHAPES, non-causal) at whatever K/V heads the CSV has;
    `all` = every shape with fewer query rows than keys."""
    if kind == "all":
        return data[data["seqlen_q"] < data["seqlen_k"]]
    mask = pd.Series(False, index=data.index)
    for b, h, sq, sk, d in DECODE_ANCHOR_SHAPES:
        mask |= ((data["batch_size"] == b) & (data["num_head"] == h) & (data["seqlen_q"] == sq)
                 & (data["seqlen_k"] == sk) & (data["head_dim"] == d) & (data["is_causal"] == 0))
    return data[mask]


def decode_table_markdown(data: pd.DataFrame, order: KernelOrder, ceiling: tuple[float, str], kind: str) -> str:
    """| B×H×Sq×Sk×D | H_kv | best fa-bench | its GB/s and % of copy | best peer | its GB/s and % of copy |
    fa-bench / peer | per decode shape, then the ceiling's value and source. '—' where a side has no
    timed row. Where the rows carry the mean SM clock (sm_clock_mean_mhz), each side's clock follows
    its % of copy: at a power cap a decode row's read rate and its clock move together (session 38,
    H200: rung 7 at 1,740 MHz against cuDNN's 1,980 at 64×32×1×8192)."""
    rows = with_gbs(decode_shapes(data, kind))
    if rows.empty:
        what = "the anchors' decode shapes" if kind == "anchors" else "shapes with seqlen_q < seqlen_k"
        raise DataError(f"decode table: no timed rows of {what} (run scripts/sweep.sh --grid decode)")
    ceiling_gbs, ceiling_source = ceiling
    show_clock = "sm_clock_mean_mhz" in rows and bool(rows["sm_clock_mean_mhz"].notna().any())
    side_columns = ["GB/s", "% of copy", *(["MHz"] if show_clock else [])]
    header = ["B×H×Sq×Sk×D", "H_kv", "best fa-bench", *[f"fa-bench {c}" for c in side_columns], "best peer",
              *[f"peer {c}" for c in side_columns], "fa-bench / peer"]
    numbers = ["--:"] * len(side_columns)
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * 3 + numbers + ["---"] + numbers + ["--:"]) + "|"]
    keys = ["batch_size", "num_head", "seqlen_q", "seqlen_k", "head_dim", "num_head_kv"]

    def line_order(item):  # anchors in peers.py's order, else by shape; MHA before GQA
        b, h, sq, sk, d, kv = (int(v) for v in item[0])
        anchor = DECODE_ANCHOR_SHAPES.index((b, h, sq, sk, d)) if kind == "anchors" else 0
        return (anchor, b, h, sq, sk, d, -kv)
    for key, shape in sorted(rows.groupby(keys), key=line_order):
        b, h, sq, sk, d, kv = (int(v) for v in key)

        def best(side):
            if side.empty:
                return ["—"] * (1 + len(side_columns)), None
            row = side.loc[side["gbs"].idxmax()]
            cells = [row["kernel"], f"{row['gbs']:,.0f}", f"{100 * row['gbs'] / ceiling_gbs:.1f}%"]
            if show_clock:
                mhz = row["sm_clock_mean_mhz"]
                cells.append("—" if pd.isna(mhz) else f"{mhz:,.0f}")
            return cells, row["gbs"]
        ours, our_gbs = best(shape[shape["kernel"].isin(order.rungs)])
        theirs, their_gbs = best(shape[shape["kernel"].map(order.is_peer)])
        ratio = f"{our_gbs / their_gbs:.2f}×" if our_gbs and their_gbs else "—"
        lines.append("| " + " | ".join([f"{b}×{h}×{sq}×{sk}×{d}", str(kv), *ours, *theirs, ratio]) + " |")
    lines.append("")
    lines.append(f"Copy ceiling {ceiling_gbs:,.0f} GB/s ({ceiling_source}); GB/s = compulsory bytes / median time.")
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------
# Command line
# ----------------------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description="Charts and tables from fa-bench CSVs.")
    parser.add_argument("csv", nargs="+", help="fa-bench CSV files (peers.py rows included)")
    parser.add_argument("--out", type=Path, help="folder for the PNG and SVG files (needed unless --table)")
    parser.add_argument("--table", action="store_true",
                        help="print a markdown table of TFLOP/s and %% of each peer per shape; no charts")
    parser.add_argument("--wide-table", action="store_true",
                        help="print a markdown table with one line per shape and one TFLOP/s column per kernel, "
                             "plus the best fa-bench kernel as %% of the best peer (the README's results table); "
                             "no charts")
    parser.add_argument("--decode-table", nargs="?", const="anchors", choices=DECODE_TABLE_KINDS,
                        help="print a markdown table of the decode shapes (anchors: peers.py --grid decode's, the "
                             "default; all: every shape with seqlen_q < seqlen_k): best fa-bench kernel and best "
                             "peer, GB/s and %% of the copy ceiling; no charts")
    parser.add_argument("--plots", default=",".join(DEFAULT_PLOTS),
                        help=f"comma list of {', '.join(PLOTS)} (default {','.join(DEFAULT_PLOTS)}; decode is "
                             "asked for by name, on a sweep.sh --grid decode CSV)")
    parser.add_argument("--dtype", help="rows of this dtype only (default: fa-bench's, BFloat16)")
    parser.add_argument("--gpu", help="rows whose gpu column contains this text (needed when several GPUs)")
    parser.add_argument("--tokens", type=int, default=FA2_GRID_TOKENS,
                        help="throughput plot: keep batch*seqlen == this (default 16384, the fa2 grid; 0: all)")
    parser.add_argument("--shape", type=parse_shape, default=None,
                        help="ladder plot shape B,H,S,D,causal[,H_kv] (H_kv default H; default: fa-bench's "
                             "default problem, 4,16,8192,128,0); with --table: only this shape")
    parser.add_argument("--peer", default="torch_fa2", help="ladder plot: %% of this peer (default torch_fa2)")
    parser.add_argument("--peak_tflops", type=float, help=f"compute ceiling (default: CSV, else {DEFAULT_PEAK_TFLOPS:g})")
    parser.add_argument("--peak_gbs", type=float,
                        help=f"roofline: HBM ceiling (default: CSV, else {DEFAULT_PEAK_GBS:g}); decode: "
                             f"the copy line (default: CSV's practical_gbs, else {DEFAULT_COPY_GBS:g})")
    fa_schema.add_arguments(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    plots = [p.strip() for p in args.plots.split(",") if p.strip()]
    unknown = [p for p in plots if p not in PLOTS]
    if unknown:
        parser.error(f"--plots {','.join(unknown)}: choose from {', '.join(PLOTS)}")
    if sum([args.table, args.wide_table, args.decode_table is not None]) > 1:
        parser.error("--table, --wide-table and --decode-table: one table at a time")
    tables = args.table or args.wide_table or args.decode_table is not None
    if not tables and args.out is None:
        parser.error("--out DIR is needed to write charts (or use --table / --wide-table / --decode-table)")
    required = list(BASE_COLUMNS)
    if not tables and "roofline" in plots:
        required.append("arithmetic_intensity")
    if args.decode_table or (not tables and "decode" in plots):
        required += DECODE_COLUMNS
    try:
        schema = fa_schema.from_args(args)
    except fa_schema.SchemaError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 2
    dtype = args.dtype or schema.defaults["dtype"]
    if dtype not in schema.dtypes:
        parser.error(f"--dtype {dtype}: must be one of {', '.join(schema.dtypes)}")
    order = KernelOrder.of(schema)
    try:
        data = select_rows(read_csvs(args.csv, required), dtype, args.gpu)
        if args.table:
            print(ladder_table_markdown(fastest_per_kernel_and_shape(data), order, args.shape))
            return 0
        if args.wide_table:
            print(wide_table_markdown(fastest_per_kernel_and_shape(data), order))
            return 0
        if args.decode_table:
            print(decode_table_markdown(data, order, copy_ceiling(data, order, args.peak_gbs), args.decode_table))
            return 0
        best = fastest_per_kernel_and_shape(data)
        styles = kernel_styles(data["kernel"], order)
        written = []
        if "throughput" in plots:
            written += plot_throughput_vs_seqlen(best, args.out, dtype, args.tokens, order, styles)
        if "ladder" in plots:
            written += plot_ladder(best, args.out, dtype, args.shape or parse_shape(default_shape(schema)),
                                   args.peer, order, styles)
        if "roofline" in plots:
            tflops, gbs, source = peak_ceilings(data, args.peak_tflops, args.peak_gbs)
            written += plot_roofline(data, args.out, dtype, tflops, gbs, source, order, styles)
        if "decode" in plots:
            written += plot_decode(best, args.out, dtype, copy_ceiling(data, order, args.peak_gbs), order, styles)
    except DataError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
