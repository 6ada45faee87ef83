#!/usr/bin/env python3
"""Time two or more fa-bench builds against each other on the same problems, in one device call.

    python3 scripts/ab.py --build base=/tmp/fin3/fa-bench --build try=/tmp/nm/fa-bench \\
        --problem "--batch_size 2 --num_head 32 --seqlen_q 8192 --seqlen_k 8192 --head_dim 64" \\
        --problem "--batch_size 4 --num_head 16 --seqlen_q 8192 --seqlen_k 8192 --head_dim 128" \\
        --flags "--kernel wgmma_overlap,wgmma_persistent --causal 0,1" --rounds 3 --deadline 500 --out $OUT/ab
    python3 scripts/ab.py --summarize $OUT/ab          # the table again, from the CSVs a run left
    python3 scripts/ab.py --summarize $OUT/ab --versus wgmma_fp8:wgmma_overlap,wgmma_persistent

A --problem value is one shell-quoted string of fa-bench flags; one without a space (a lone
`--is_causal`) must be written --problem=--is_causal, or argparse takes it for an option of ab.py.
The first --build is the base every other build is divided by. Each round runs every problem on
every build, the builds back to back and in an order that rotates by round (round r starts at the
r-th build), so neither side always runs on the GPU the other just warmed or heated: on the H100
the same kernel measured 672 and 596 TFLOP/s in two calls, and within a call the clock the 700 W
cap leaves drifts by tens of MHz from run to run. Only rows of one call are compared; the result
per row is the median over rounds, with every round's value and mean SM clock printed beside it
so a reader sees the spread the ratio sits in. fa-bench's FP32 reference check runs in the first
--check-rounds rounds (default 1: a wrong build shows as FAIL without tripling the call's time).

Each build's rows go to OUT/ab_TAG.csv (fa-bench appends to its --csv), every run's output to
OUT/ab.log under a header naming the round, build and command, and the summary to
OUT/ab_summary.csv. --deadline stops starting runs that many seconds after the start, so a device
call's time limit cuts rounds, not the summary. Exit status 0; 1 when a run failed or timed out
(the summary is still printed); 2 on bad input.

--versus NUM:DEN[,DEN...] (repeatable; each name a kernel, or kernel@dtype) prints, per build and per
problem shape (batch, heads, K/V heads, lengths, head_dim, causal), the best median of the NUM rows
over the best median of the DEN rows, each side's best over its kernels, dtypes and tiles: issue
#11's FP8 rung over the best bf16 rung of the same call is `--versus
wgmma_fp8:wgmma_overlap,wgmma_persistent`. A run writes those lines to OUT/ab_versus.csv too.

Standard library only (the device machine has no extra packages); it replaces the A/B loop and the
median printer that every session's device-call script carried a copy of until session 33.
"""
from __future__ import annotations

import argparse
import collections
import csv
import math
import shlex
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import fa_schema  # standard library only, as this script

# The columns of a problem's shape (fa_schema's): what --versus divides across kernels and dtypes.
SHAPE_KEY = fa_schema.SHAPE_COLUMNS
# The columns that make two rows the same measurement (besides the build).
ROW_KEY = ("kernel", "dtype", *SHAPE_KEY, "m_block_size", "n_block_size")
SUMMARY_COLUMNS = ROW_KEY + ("build", "rounds", "tflops_median", "ratio_to_base", "tflops", "sm_clock_mean_mhz",
                             "check")


VERSUS_COLUMNS = ("build",) + SHAPE_KEY + ("numerator", "numerator_tflops", "denominator", "denominator_tflops",
                                           "ratio")


def tflops_text(x: float) -> str:
    """TFLOP/s as the summary prints it: one decimal from 100 up, four significant digits below, so
    a decode row's 4.2 TFLOP/s reads 4.241 and a 1 % change shows (session 38's decode A/B, where one
    decimal left 4.2 against 4.1 for builds 1.3 % apart)."""
    return f"{x:.1f}" if x >= 100 else f"{x:#.4g}"


class BadInput(Exception):
    """One line for the user; exit status 2."""


@dataclass(frozen=True)
class Build:
    tag: str
    path: Path


def parse_build(text: str) -> Build:
    tag, sep, path = text.partition("=")
    if not sep or not tag or not path:
        raise BadInput(f"--build {text!r}: expected TAG=PATH, e.g. base=/tmp/fin3/fa-bench")
    if not tag.replace("_", "").replace("-", "").isalnum():
        raise BadInput(f"--build {text!r}: TAG must be letters, digits, '-' or '_' (it names OUT/ab_TAG.csv)")
    return Build(tag, Path(path))


def round_order(builds: list[Build], round_index: int) -> list[Build]:
    """The builds in the order round `round_index` (from 0) runs them: rotated by the round."""
    n = len(builds)
    return [builds[(i + round_index) % n] for i in range(n)]


def run_all(args: argparse.Namespace, builds: list[Build], out: Path) -> int:
    """Runs the rounds; returns the number of failed runs."""
    start = time.monotonic()
    failures = started = 0
    with open(out / "ab.log", "a") as log:
        for r in range(args.rounds):
            for problem in args.problem:
                for build in round_order(builds, r):
                    elapsed = time.monotonic() - start
                    if args.deadline is not None and elapsed > args.deadline and started:
                        print(f"deadline: stopped at {elapsed:.0f} s, in round {r + 1}", flush=True)
                        return failures
                    command = [str(build.path), *shlex.split(problem), *shlex.split(args.flags)]
                    if r >= args.check_rounds:
                        command.append("--skip_ref_check")
                    command += ["--csv", str(out / f"ab_{build.tag}.csv")]
                    started += 1
                    log.write(f"### round {r + 1} build {build.tag}: {shlex.join(command)}\n")
                    log.flush()
                    try:
                        rc = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT,
                                            timeout=args.timeout).returncode
                    except subprocess.TimeoutExpired:
                        rc = "timeout"
                    if rc != 0:
                        failures += 1
                        print(f"round {r + 1} build {build.tag}: exit {rc}: {problem}", flush=True)
            print(f"round {r + 1} done at {time.monotonic() - start:.0f} s", flush=True)
    return failures


def read_rows(out: Path) -> dict[str, list[dict[str, str]]]:
    """{tag: rows} from every OUT/ab_TAG.csv, rows without a tflops value (skipped problems) left out."""
    rows = {}
    for path in sorted(out.glob("ab_*.csv")):
        if path.name == "ab_summary.csv":
            continue
        with open(path, newline="") as f:
            rows[path.stem[3:]] = [row for row in csv.DictReader(f) if row.get("tflops")]
    return rows


def summarize(rows: dict[str, list[dict[str, str]]], base: str | None) -> list[dict[str, str]]:
    """One summary row per measurement and build: median TFLOP/s over rounds and its ratio to base's."""
    groups = collections.defaultdict(list)
    for tag, tag_rows in rows.items():
        for row in tag_rows:
            groups[(tuple(row.get(c, "") for c in ROW_KEY), tag)].append(row)
    medians = {key: statistics.median(float(r["tflops"]) for r in group) for key, group in groups.items()}
    # A build that changes the tile a kernel runs by default (session 38's decode ring: 64 x 128 ->
    # 64 x 64) has no row of the base's tile. Where each side ran exactly one tile of that kernel on
    # that problem, those two rows pair; where either ran several (a tile sweep), only equal tiles do.
    tiles = collections.defaultdict(set)  # (ROW_KEY less its last two columns, the tile; build) -> keys
    for key, tag in groups:
        tiles[(key[:-2], tag)].add(key)

    def base_median_of(key, tag):
        if (key, base) in medians:
            return medians[(key, base)]
        mine, theirs = tiles[(key[:-2], tag)], tiles.get((key[:-2], base), set())
        return medians[(next(iter(theirs)), base)] if len(mine) == 1 and len(theirs) == 1 else None

    summary = []
    for (key, tag), group in sorted(groups.items(), key=lambda item: (item[0][0], item[0][1] != base, item[0][1])):
        base_median = base_median_of(key, tag)
        median = medians[(key, tag)]
        summary.append({
            **dict(zip(ROW_KEY, key)),
            "build": tag,
            "rounds": str(len(group)),
            "tflops_median": tflops_text(median),
            "ratio_to_base": f"{median / base_median:.4f}" if base_median else "",
            "tflops": " ".join(tflops_text(float(r["tflops"])) for r in group),
            "sm_clock_mean_mhz": " ".join(r.get("sm_clock_mean_mhz", "")[:4] or "-" for r in group),
            "check": " ".join(sorted({r.get("check", "") or "-" for r in group})),
        })
    return summary


@dataclass(frozen=True)
class Selector:
    kernel: str
    dtype: str | None  # None: any dtype

    def matches(self, row: dict[str, str]) -> bool:
        return row["kernel"] == self.kernel and (self.dtype is None or row["dtype"] == self.dtype)

    def __str__(self) -> str:
        return self.kernel if self.dtype is None else f"{self.kernel}@{self.dtype}"


def parse_versus(text: str) -> tuple[list[Selector], list[Selector]]:
    """NUM:DEN[,DEN...], each side kernel or kernel@dtype names separated by commas."""
    def side(names: str) -> list[Selector]:
        selectors = []
        for name in names.split(","):
            kernel, at, dtype = name.strip().partition("@")
            if not kernel or (at and not dtype):
                raise BadInput(f"--versus {text}: expected NUM:DEN[,DEN...], each a kernel or kernel@dtype")
            selectors.append(Selector(kernel, dtype or None))
        return selectors
    num, sep, den = text.partition(":")
    if not sep:
        raise BadInput(f"--versus {text}: expected NUM:DEN[,DEN...], each a kernel or kernel@dtype")
    return side(num), side(den)


def versus(summary: list[dict[str, str]], num: list[Selector], den: list[Selector]) -> list[dict[str, str]]:
    """Per build and shape: the best NUM median over the best DEN median (shapes with both sides only)."""
    def best(rows: list[dict[str, str]], selectors: list[Selector]) -> dict[str, str] | None:
        chosen = [r for r in rows if any(sel.matches(r) for sel in selectors)]
        return max(chosen, key=lambda r: float(r["tflops_median"]), default=None)
    groups = collections.defaultdict(list)
    for row in summary:
        groups[(row["build"], tuple(row[c] for c in SHAPE_KEY))].append(row)
    lines = []
    for (build, shape), rows in sorted(groups.items()):
        top, bottom = best(rows, num), best(rows, den)
        if top is None or bottom is None:
            continue
        a, b = float(top["tflops_median"]), float(bottom["tflops_median"])
        lines.append({"build": build, **dict(zip(SHAPE_KEY, shape)),
                      "numerator": f"{top['kernel']}@{top['dtype']} {top['m_block_size']}x{top['n_block_size']}",
                      "numerator_tflops": tflops_text(a),
                      "denominator": f"{bottom['kernel']}@{bottom['dtype']} {bottom['m_block_size']}x{bottom['n_block_size']}",
                      "denominator_tflops": tflops_text(b), "ratio": f"{a / b:.3f}" if b > 0 else ""})
    return lines


def shape_text(row: dict[str, str]) -> str:
    """BxHxSqxSkxD of a summary or versus row, as both printers show it."""
    return f"{row['batch_size']}x{row['num_head']}x{row['seqlen_q']}x{row['seqlen_k']}x{row['head_dim']}"


def print_versus(lines: list[dict[str, str]], num: list[Selector], den: list[Selector]) -> None:
    label = f"{','.join(map(str, num))} / best of {','.join(map(str, den))}"
    if not lines:
        print(f"versus {label}: no shape has rows of both sides")
    for v in lines:
        print(f"versus {label}, {v['build']}: {shape_text(v)} causal={v['is_causal']}: {v['numerator_tflops']} "
              f"({v['numerator']}) / {v['denominator_tflops']} ({v['denominator']}) = {v['ratio']}x")


def print_summary(summary: list[dict[str, str]], base: str, out: Path | None) -> None:
    for s in summary:
        shape = shape_text(s)
        ratio = f" {s['ratio_to_base']}x" if s["ratio_to_base"] and s["build"] != base else ""
        print(f"{s['kernel']} {s['dtype']} {shape} causal={s['is_causal']} {s['m_block_size']}x{s['n_block_size']} "
              f"{s['build']}: {s['tflops_median']}{ratio} [{s['tflops']}] @ [{s['sm_clock_mean_mhz']}] {s['check']}")
    # One line per build against the base: where the rows' ratios sit, as a first read of the table.
    ratios = collections.defaultdict(list)
    for s in summary:
        if s["build"] != base and s["ratio_to_base"]:
            ratios[s["build"]].append(float(s["ratio_to_base"]))
    for tag, values in ratios.items():
        geomean = math.exp(statistics.fmean(math.log(v) for v in values))
        print(f"{tag} / {base} over {len(values)} rows: geometric mean {geomean:.4f}, "
              f"from {min(values):.4f} to {max(values):.4f}")
    if out is not None:
        with open(out / "ab_summary.csv", "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=SUMMARY_COLUMNS)
            writer.writeheader()
            writer.writerows(summary)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", action="append", default=[], metavar="TAG=PATH",
                        help="an fa-bench binary and its name; the first is the base (repeat, at least two; "
                             "one with --versus)")
    parser.add_argument("--problem", action="append", default=[], metavar="FLAGS",
                        help="fa-bench flags of one problem, quoted (repeat)")
    parser.add_argument("--flags", default="", help="fa-bench flags added to every run (kernels, causal, dtype)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--check-rounds", type=int, default=1,
                        help="rounds that run the reference check (the rest pass --skip_ref_check)")
    parser.add_argument("--deadline", type=float, default=None, metavar="SECONDS",
                        help="start no run later than this many seconds after the first")
    parser.add_argument("--timeout", type=float, default=120.0, metavar="SECONDS", help="per fa-bench run")
    parser.add_argument("--out", type=Path, help="folder for ab_TAG.csv, ab.log and ab_summary.csv")
    parser.add_argument("--summarize", type=Path, metavar="OUT",
                        help="only print the summary of a finished run's folder (base: --base or the first tag)")
    parser.add_argument("--base", help="with --summarize: the base build's tag")
    parser.add_argument("--versus", action="append", default=[], metavar="NUM:DEN[,DEN...]",
                        help="per build and shape, the best NUM kernel's median over the best DEN kernel's "
                             "(kernel or kernel@dtype names; repeat)")
    args = parser.parse_args(argv)
    try:
        comparisons = [parse_versus(v) for v in args.versus]
        if args.summarize is not None:
            rows = read_rows(args.summarize)
            if not rows:
                raise BadInput(f"--summarize {args.summarize}: no ab_TAG.csv there")
            base = args.base or next(iter(rows))
            if base not in rows:
                raise BadInput(f"--base {base}: no ab_{base}.csv in {args.summarize}")
            summary = summarize(rows, base)
            print_summary(summary, base, None)
            for num, den in comparisons:
                print_versus(versus(summary, num, den), num, den)
            return 0
        builds = [parse_build(b) for b in args.build]
        # One build is a run of its own rounds, worth it only for the ratios --versus takes in it
        # (issue #11's FP8 over bf16 on one binary).
        if len(builds) < (1 if comparisons else 2):
            raise BadInput("--build: give at least two builds (TAG=PATH), the first is the base, "
                           "or one with --versus")
        if len({b.tag for b in builds}) != len(builds):
            raise BadInput("--build: each build needs its own TAG")
        for b in builds:
            if not b.path.is_file():
                raise BadInput(f"--build {b.tag}={b.path}: no such file")
        if not args.problem:
            raise BadInput("--problem: give at least one problem's flags")
        if args.rounds < 1:
            raise BadInput(f"--rounds {args.rounds}: must be at least 1")
        if args.out is None:
            raise BadInput("--out: a folder for the CSVs and the log is required")
        args.out.mkdir(parents=True, exist_ok=True)
        if any(args.out.glob("ab_*.csv")):
            raise BadInput(f"--out {args.out}: holds ab_*.csv of an earlier run (rows would mix); use a new folder")
    except BadInput as error:
        print(f"ab.py: {error}", file=sys.stderr)
        return 2
    failures = run_all(args, builds, args.out)
    summary = summarize(read_rows(args.out), builds[0].tag)
    print_summary(summary, builds[0].tag, args.out)
    if comparisons:
        all_lines = []
        for num, den in comparisons:
            lines = versus(summary, num, den)
            print_versus(lines, num, den)
            all_lines += lines
        with open(args.out / "ab_versus.csv", "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=VERSUS_COLUMNS)
            writer.writeheader()
            writer.writerows(all_lines)
    return 1 if failures else 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `ab.py --summarize DIR | head` ends quietly
    sys.exit(main())
