#!/usr/bin/env python3
"""Charts and the README ladder table from fa-bench CSVs (peers.py rows included).

    python3 scripts/plot.py results/h100/ladder.csv --out results/h100/plots
    python3 scripts/plot.py results/h100/ladder.csv --table          # markdown table on stdout

Plots (PNG and SVG each, into --out):
  throughput_vs_seqlen  TFLOP/s vs sequence length, one line per kernel/peer, one panel per
                        (head_dim, causal); square problems on the fa2 grid (batch·seqlen = 16k)
  ladder                one bar per rung on one --shape, annotated with % of --peer
  roofline              arithmetic intensity vs TFLOP/s for every row, with both ceilings

Rows are filtered to one --dtype (default BFloat16). Rows with check=FAIL are dropped with a
warning, rows without a time (a backend refused the shape) are dropped quietly. When a kernel has
several rows for one shape (tile sweeps, repeated runs), the fastest is used: it is the
configuration the kernel would be tuned to.

Exit status 2, with one line on stderr, for a missing file or column or an empty selection.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

import matplotlib

matplotlib.use("Agg")  # files only; no display on the GPU machine
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

PROG = "plot.py"

# The ladder's rungs in order; kernels not listed here follow them alphabetically, then peers.
RUNG_ORDER = ["naive", "tiled", "cp_async", "mma", "warp_specialized", "wgmma_tma", "wgmma_ws", "wgmma_overlap"]
PEER_ORDER = ["torch_fa2", "torch_cudnn", "torch_efficient", "torch_math"]
PEER_PREFIX = "torch_"

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
DEFAULT_SHAPE = "4,16,8192,128,0"  # B,H,S,D,causal: the CuTe DSL example's default problem
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
        frame = pd.read_csv(path)
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


def is_peer(kernel: str) -> bool:
    return kernel.startswith(PEER_PREFIX)


def kernel_sort_key(kernel: str) -> tuple:
    """Rungs in ladder order, then unknown kernels alphabetically, then peers (fa2 first)."""
    if is_peer(kernel):
        return (2, PEER_ORDER.index(kernel) if kernel in PEER_ORDER else len(PEER_ORDER), kernel)
    if kernel in RUNG_ORDER:
        return (0, RUNG_ORDER.index(kernel), kernel)
    return (1, 0, kernel)


def ordered_kernels(kernels) -> list[str]:
    return sorted(set(kernels), key=kernel_sort_key)


def kernel_colors(kernels: Sequence[str]) -> dict[str, object]:
    """A fixed color per kernel (tab10 then tab20 cycling), the same in every chart of one run."""
    palette = list(plt.get_cmap("tab10").colors) + list(plt.get_cmap("tab20").colors[1::2])
    return {k: palette[i % len(palette)] for i, k in enumerate(ordered_kernels(kernels))}


def parse_shape(text: str) -> dict[str, int]:
    """'B,H,S,D,causal' -> shape columns (S is both seqlen_q and seqlen_k)."""
    try:
        b, h, s, d, c = (int(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected B,H,S,D,causal, e.g. {DEFAULT_SHAPE}") from None
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
                              colors: dict) -> list[Path]:
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
            for kernel in ordered_kernels(panel["kernel"]):
                series = panel[panel["kernel"] == kernel].groupby("seqlen_q")["tflops"].max().sort_index()
                ax.plot(series.index, series.values, marker="o", label=kernel, color=colors[kernel],
                        linestyle="--" if is_peer(kernel) else "-")
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
    labels = ordered_kernels(handles)
    fig.legend([handles[k] for k in labels], labels, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.suptitle(f"Attention forward throughput, {dtype}{gpu_suffix(data)}")
    fig.tight_layout()
    return save_figure(fig, out_dir, "throughput_vs_seqlen")


def gpu_suffix(data: pd.DataFrame) -> str:
    if "gpu" in data.columns and data["gpu"].notna().any():
        return f", {data['gpu'].dropna().iloc[0]}"
    return ""


def plot_ladder(data: pd.DataFrame, out_dir: Path, dtype: str, shape: dict[str, int], peer: str,
                colors: dict) -> list[Path]:
    """One bar per rung on one shape, each annotated with its TFLOP/s and % of the chosen peer."""
    rows = rows_of_shape(data, shape)
    if rows.empty:
        raise DataError(f"ladder plot: no {dtype} rows for shape {format_shape(shape)}; "
                        f"shapes present: {', '.join(available_shapes(data))}")
    tflops = rows.set_index("kernel")["tflops"]
    kernels = ordered_kernels(tflops.index)
    peer_tflops = tflops.get(peer)
    if peer_tflops is None:
        print(f"{PROG}: warning: no {peer} row for {format_shape(shape)}; bars carry no %", file=sys.stderr)
    fig, ax = plt.subplots(figsize=(max(6.0, 1.1 * len(kernels) + 2), 4.8))
    values = [tflops[k] for k in kernels]
    bars = ax.bar(kernels, values, color=[colors[k] for k in kernels],
                  edgecolor=["black" if is_peer(k) else "none" for k in kernels])
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
                  peak_source: str, colors: dict) -> list[Path]:
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
    for kernel in ordered_kernels(data["kernel"]):
        rows = data[data["kernel"] == kernel]
        ax.scatter(rows["arithmetic_intensity"], rows["tflops"], s=22, color=colors[kernel], label=kernel,
                   marker="D" if is_peer(kernel) else "o", edgecolors="black" if is_peer(kernel) else "none",
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


def ladder_table_markdown(data: pd.DataFrame, shape: dict[str, int] | None = None) -> str:
    """| shape | causal | kernel | TFLOP/s | % of <peer> ... | per shape, kernels in ladder order.

    Every peer present in the data gets a column; '—' where that peer has no row for the shape.
    """
    if shape is not None:
        data = rows_of_shape(data, shape)
        if data.empty:
            raise DataError(f"table: no rows for shape {format_shape(shape)}")
    peers = [k for k in ordered_kernels(data["kernel"]) if is_peer(k)]
    header = ["shape (B×H×S×D)", "causal", "kernel", "TFLOP/s", *[f"% of {p}" for p in peers]]
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join(["---"] * 3 + ["--:"] * (1 + len(peers))) + "|"]
    for key, rows in data.groupby(TABLE_SHAPE_ORDER, sort=True):
        shape_of_rows = dict(zip(TABLE_SHAPE_ORDER, (int(v) for v in key)))
        tflops = rows.set_index("kernel")["tflops"]
        label = format_shape(shape_of_rows).rsplit(" ", 1)[0]  # the causal flag has its own column
        for kernel in ordered_kernels(tflops.index):
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
    parser.add_argument("--dtype", default="BFloat16", choices=["BFloat16", "Float16", "Float32"],
                        help="rows of this dtype only (default BFloat16)")
    parser.add_argument("--gpu", help="rows whose gpu column contains this text (needed when several GPUs)")
    parser.add_argument("--tokens", type=int, default=FA2_GRID_TOKENS,
                        help="throughput plot: keep batch*seqlen == this (default 16384, the fa2 grid; 0: all)")
    parser.add_argument("--shape", type=parse_shape, default=None,
                        help=f"ladder plot shape B,H,S,D,causal (default {DEFAULT_SHAPE}); "
                             "with --table: only this shape")
    parser.add_argument("--peer", default="torch_fa2", help="ladder plot: %% of this peer (default torch_fa2)")
    parser.add_argument("--peak_tflops", type=float, help=f"compute ceiling (default: CSV, else {DEFAULT_PEAK_TFLOPS:g})")
    parser.add_argument("--peak_gbs", type=float, help=f"bandwidth ceiling (default: CSV, else {DEFAULT_PEAK_GBS:g})")
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
        data = select_rows(read_csvs(args.csv, required), args.dtype, args.gpu)
        if args.table:
            print(ladder_table_markdown(fastest_per_kernel_and_shape(data), args.shape))
            return 0
        best = fastest_per_kernel_and_shape(data)
        colors = kernel_colors(data["kernel"])
        written = []
        if "throughput" in plots:
            written += plot_throughput_vs_seqlen(best, args.out, args.dtype, args.tokens, colors)
        if "ladder" in plots:
            written += plot_ladder(best, args.out, args.dtype, args.shape or parse_shape(DEFAULT_SHAPE),
                                   args.peer, colors)
        if "roofline" in plots:
            tflops, gbs, source = peak_ceilings(data, args.peak_tflops, args.peak_gbs)
            written += plot_roofline(data, args.out, args.dtype, tflops, gbs, source, colors)
    except DataError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
