#!/usr/bin/env python3
"""Charts and the README ladder table from fa-bench CSVs (peers.py rows included).

    build/venv/bin/python scripts/plot.py results/nvidia-h100-80gb-hbm3/ladder.csv --out /tmp/plots
    build/venv/bin/python scripts/plot.py results/nvidia-h100-80gb-hbm3/ladder.csv --table   # markdown

Kernel order: fa-bench's rungs in ladder order (from `fa-bench --schema`: --fa-bench PATH,
$FA_BENCH or build/fa-bench, or a saved document with --schema-json FILE), then kernels neither
fa-bench nor peers.py knows (alphabetically), then the peers in peers.py's order
(scripts/peer_backends), each peer with its own line style, marker and hatch.

Plots (PNG and SVG each, into --out):
  throughput_vs_seqlen  TFLOP/s vs sequence length, one line per kernel/peer, one panel per
                        (head_dim, causal); square problems on the fa2 grid (batch·seqlen = 16k)
  ladder                one bar per rung on one --shape, annotated with % of --peer
  roofline              arithmetic intensity vs TFLOP/s for every row, with both ceilings

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

PROG = "plot.py"

# Peers differ from rungs at a glance: a line style, a marker and a bar hatch of their own
# (cycled), where rungs are solid lines, circles and plain bars.
PEER_LINESTYLES = ["--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1))]
PEER_MARKERS = ["s", "^", "D", "v", "P", "X", "*"]
PEER_HATCHES = ["//", "\\\\", "xx", "..", "++", "oo"]

SHAPE_COLUMNS = ["batch_size", "num_head", "seqlen_q", "seqlen_k", "head_dim", "is_causal"]
# Table order: like the charts' panels (head_dim, causal), then by sequence length.
TABLE_SHAPE_ORDER = ["head_dim", "is_causal", "seqlen_q", "seqlen_k", "batch_size", "num_head"]
# Columns every mode needs; the roofline adds arithmetic_intensity.
BASE_COLUMNS = ["kernel", "dtype", *SHAPE_COLUMNS, "tflops"]
NUMERIC_COLUMNS = [*SHAPE_COLUMNS, "tflops", "arithmetic_intensity", "peak_tflops", "peak_gbs"]

# Ceilings measured on the H100 here: a bf16 GEMM reaches 761 TFLOP/s and a device copy
# 2966 GB/s (of the 989 TFLOP/s and 3350 GB/s on the datasheet). A CSV with peak_tflops /
# peak_gbs columns overrides these, and the flags override both.
DEFAULT_PEAK_TFLOPS = 761.0
DEFAULT_PEAK_GBS = 2966.0
FA2_GRID_TOKENS = 16384

PLOTS = ("throughput", "ladder", "roofline")


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


def shape_label(row) -> str:
    """'4×16×8192×128' (B×H×S×D), or '4×16×8192/4096×128' when Sq ≠ Sk."""
    seq = f"{row.seqlen_q}" if row.seqlen_q == row.seqlen_k else f"{row.seqlen_q}/{row.seqlen_k}"
    return f"{row.batch_size}×{row.num_head}×{seq}×{row.head_dim}"


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
    """'B,H,S,D,causal' -> shape columns (S is both seqlen_q and seqlen_k)."""
    try:
        b, h, s, d, c = (int(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected B,H,S,D,causal, e.g. 4,16,8192,128,0") from None
    if c not in (0, 1):
        raise argparse.ArgumentTypeError(f"{text!r}: causal must be 0 or 1")
    return {"batch_size": b, "num_head": h, "seqlen_q": s, "seqlen_k": s, "head_dim": d, "is_causal": c}


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

    Square problems only, and by default only batch·seqlen = 16k tokens (the fa2 grid), so each
    panel compares equal work per point. tokens=0 keeps every batch; then the best is plotted.
    """
    data = data[data["seqlen_q"] == data["seqlen_k"]]
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

    csv_tflops, csv_gbs = from_csv("peak_tflops"), from_csv("peak_gbs")
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


def plot_roofline(data: pd.DataFrame, out_dir: Path, dtype: str, peak_tflops: float, peak_gbs: float,
                  peak_source: str, order: KernelOrder, styles: dict[str, Style]) -> list[Path]:
    """Every row at (FLOP/byte, TFLOP/s) under min(peak, intensity × bandwidth), log-log."""
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
    for kernel in order.ordered(data["kernel"]):
        rows = data[data["kernel"] == kernel]
        style = styles[kernel]
        ax.scatter(rows["arithmetic_intensity"], rows["tflops"], s=22, color=style.color, label=kernel,
                   marker=style.marker, edgecolors="black" if style.peer else "none",
                   linewidths=0.5, zorder=3)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(max(data["tflops"].min() / 4, 1e-3), peak_tflops * 2)
    ax.set_xlabel("arithmetic intensity (FLOP / compulsory byte)")
    ax.set_ylabel("TFLOP/s")
    ax.set_title(f"Roofline, {dtype}{gpu_suffix(data)}\nceilings: {peak_source}", fontsize=10)
    ax.grid(True, which="both", alpha=0.2)
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8)
    fig.tight_layout()
    return save_figure(fig, out_dir, "roofline")


# ----------------------------------------------------------------------------------------------
# Markdown table
# ----------------------------------------------------------------------------------------------

def format_shape(shape: dict[str, int]) -> str:
    seq = f"{shape['seqlen_q']}" if shape["seqlen_q"] == shape["seqlen_k"] else f"{shape['seqlen_q']}/{shape['seqlen_k']}"
    return (f"{shape['batch_size']}×{shape['num_head']}×{seq}×{shape['head_dim']} "
            f"{'causal' if shape['is_causal'] else 'non-causal'}")


def available_shapes(data: pd.DataFrame) -> list[str]:
    shapes = data[SHAPE_COLUMNS].drop_duplicates().sort_values(SHAPE_COLUMNS)
    return [",".join(str(v) for v in (r.batch_size, r.num_head, r.seqlen_q, r.head_dim, r.is_causal))
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


# ----------------------------------------------------------------------------------------------
# Command line
# ----------------------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description="Charts and tables from fa-bench CSVs.")
    parser.add_argument("csv", nargs="+", help="fa-bench CSV files (peers.py rows included)")
    parser.add_argument("--out", type=Path, help="folder for the PNG and SVG files (needed unless --table)")
    parser.add_argument("--table", action="store_true",
                        help="print a markdown table of TFLOP/s and %% of each peer per shape; no charts")
    parser.add_argument("--plots", default=",".join(PLOTS), help=f"comma list of {', '.join(PLOTS)} (default all)")
    parser.add_argument("--dtype", help="rows of this dtype only (default: fa-bench's, BFloat16)")
    parser.add_argument("--gpu", help="rows whose gpu column contains this text (needed when several GPUs)")
    parser.add_argument("--tokens", type=int, default=FA2_GRID_TOKENS,
                        help="throughput plot: keep batch*seqlen == this (default 16384, the fa2 grid; 0: all)")
    parser.add_argument("--shape", type=parse_shape, default=None,
                        help="ladder plot shape B,H,S,D,causal (default: fa-bench's default problem, "
                             "4,16,8192,128,0); with --table: only this shape")
    parser.add_argument("--peer", default="torch_fa2", help="ladder plot: %% of this peer (default torch_fa2)")
    parser.add_argument("--peak_tflops", type=float, help=f"compute ceiling (default: CSV, else {DEFAULT_PEAK_TFLOPS:g})")
    parser.add_argument("--peak_gbs", type=float, help=f"bandwidth ceiling (default: CSV, else {DEFAULT_PEAK_GBS:g})")
    fa_schema.add_arguments(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    plots = [p.strip() for p in args.plots.split(",") if p.strip()]
    unknown = [p for p in plots if p not in PLOTS]
    if unknown:
        parser.error(f"--plots {','.join(unknown)}: choose from {', '.join(PLOTS)}")
    if not args.table and args.out is None:
        parser.error("--out DIR is needed to write charts (or use --table)")
    required = list(BASE_COLUMNS)
    if not args.table and "roofline" in plots:
        required.append("arithmetic_intensity")
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
    except DataError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
