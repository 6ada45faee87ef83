#!/usr/bin/env python3
"""Where a kernel's warps wait, per SASS line, from an Nsight Compute report's source page.

    ncu --nvtx --nvtx-include "regex:fa-bench@.*/" --section SourceCounters --section WarpStateStats \\
        --import-source no -o /tmp/r9 build/fa-bench --profile --kernel wgmma_persistent ...
    ncu --import /tmp/r9.ncu-rep --page source --csv --print-source sass > /tmp/r9.sass.csv
    build/venv/bin/python scripts/ncu_hotspots.py /tmp/r9.sass.csv            # or --report /tmp/r9.ncu-rep
    build/venv/bin/python scripts/ncu_hotspots.py /tmp/r9.sass.csv --compare /tmp/cudnn.sass.csv

For each kernel in the file: the SASS lines that collected the most warp stall samples (their
share of the kernel's samples, the instruction, how often it ran, its three largest stall
reasons), the stall reasons over the whole kernel, and the executed-instruction mix by opcode
(the tables sessions 16-17 of the README's Hopper notes were read from: ncu's GUI shows them one
line at a time, and its CSV has ~60 columns a line). With --compare, the first kernel of each of
two exports side by side: instructions, stall reasons and instruction mix (rung 9 against
cuDNN's kernel in session 16 was read that way).

Reading ncu's source-page CSV (ncu 2025.3): each kernel is a block that starts with a row
`"Kernel Name","<name>"`, then a header row (Address, Source, "Warp Stall Sampling (All
Samples)", "Instructions Executed", stall_<reason> and "stall_<reason> (Not Issued)" ...), then
one row per SASS instruction. Numbers may carry thousands separators. A stall reason here is the
stall_<reason> column (all samples of that reason: issued or not); "(Not Issued)" columns are left
out so that a sample counts once. The opcode of a line is the first word of its Source after an
optional predicate (`@!P0 BRA ...` -> BRA), with its modifiers (`HGMMA.64x128x16.F32.BF16` ->
HGMMA).
"""
from __future__ import annotations

import argparse
import csv
import gzip
import io
import math
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from ncu_profile import parse_number

SAMPLES = "Warp Stall Sampling (All Samples)"
EXECUTED = "Instructions Executed"
REQUIRED = ("Source", SAMPLES, EXECUTED)
_PREDICATE = re.compile(r"^@!?U?P[T0-9]+\s+")


@dataclass
class Line:
    address: str
    source: str
    samples: int
    executed: int
    stalls: dict[str, int]

    @property
    def opcode(self) -> str:
        return opcode_of(self.source)


@dataclass
class Kernel:
    name: str
    lines: list[Line] = field(default_factory=list)

    @property
    def samples(self) -> int:
        return sum(line.samples for line in self.lines)


def opcode_of(source: str) -> str:
    text = _PREDICATE.sub("", source.strip())
    word = text.split(None, 1)[0] if text else ""
    return word.split(".", 1)[0]


def to_int(cell: str) -> int:
    """A count cell as ncu_profile.py reads numbers (thousands separators; blank or n/a: 0)."""
    value = parse_number(cell)
    return 0 if math.isnan(value) else int(value)


def parse(text: str) -> list[Kernel]:
    """The kernels of a `--page source --csv --print-source sass` export, in file order."""
    kernels: list[Kernel] = []
    header: list[str] | None = None
    for row in csv.reader(io.StringIO(text)):
        if not row or not any(cell.strip() for cell in row):
            continue
        if row[0] == "Kernel Name":
            kernels.append(Kernel(row[1] if len(row) > 1 else ""))
            header = None
            continue
        if not kernels:
            continue  # ncu's ==PROF== banner or warnings before the first block
        if header is None:
            missing = [name for name in REQUIRED if name not in row]
            if missing:
                raise ValueError(f"ncu_hotspots.py: the source page lacks {', '.join(missing)}: export it with "
                                 "--page source --csv --print-source sass from a report taken with "
                                 "--section SourceCounters")
            header = row
            continue
        cells = dict(zip(header, row))
        stalls = {name[len("stall_"):]: to_int(value) for name, value in cells.items()
                  if name.startswith("stall_") and not name.endswith("(Not Issued)") and to_int(value) > 0}
        kernels[-1].lines.append(Line(cells.get("Address", ""), cells["Source"].strip(), to_int(cells[SAMPLES]),
                                      to_int(cells[EXECUTED]), stalls))
    if not kernels:
        raise ValueError("ncu_hotspots.py: no \"Kernel Name\" block: not ncu's --page source --csv output")
    return kernels


def hot_lines(kernel: Kernel, top: int) -> list[tuple[float, Line]]:
    total = kernel.samples or 1
    ranked = sorted(kernel.lines, key=lambda line: -line.samples)[:top]
    return [(100.0 * line.samples / total, line) for line in ranked]


def reasons(kernel: Kernel) -> list[tuple[str, float]]:
    counts: dict[str, int] = {}
    for line in kernel.lines:
        for reason, n in line.stalls.items():
            counts[reason] = counts.get(reason, 0) + n
    total = sum(counts.values()) or 1
    return sorted(((reason, 100.0 * n / total) for reason, n in counts.items()), key=lambda x: -x[1])


def opcode_mix(kernel: Kernel) -> list[tuple[str, int]]:
    counts: dict[str, int] = {}
    for line in kernel.lines:
        counts[line.opcode] = counts.get(line.opcode, 0) + line.executed
    return sorted(counts.items(), key=lambda x: -x[1])


def report(kernels: Iterable[Kernel], top: int, out=None) -> None:
    out = out or sys.stdout
    for kernel in kernels:
        print(f"== {kernel.name}", file=out)
        executed = sum(line.executed for line in kernel.lines)
        print(f"{kernel.samples} warp stall samples, {executed} warp instructions executed", file=out)
        print("share   executed  top reasons                                        instruction", file=out)
        for share, line in hot_lines(kernel, top):
            top3 = sorted(line.stalls.items(), key=lambda x: -x[1])[:3]
            why = ", ".join(f"{reason} {n}" for reason, n in top3)
            print(f"{share:5.1f}%  {line.executed:>9}  {why:49.49s}  {line.source[:80]}", file=out)
        print("stall reasons: " + ", ".join(f"{reason} {pct:.1f}%" for reason, pct in reasons(kernel)[:10]),
              file=out)
        mix = opcode_mix(kernel)
        print("instruction mix (M): " + " ".join(f"{op}:{n / 1e6:.2f}" for op, n in mix[:24]), file=out)


def compare(a: Kernel, b: Kernel, out=None, rows: int = 24) -> None:
    """Two kernels side by side (ours against a peer's, or a change against its base): samples,
    instructions, stall reasons and the instruction mix, the larger of the two first."""
    out = out or sys.stdout
    print(f"== A {a.name}\n== B {b.name}", file=out)
    ea, eb = (sum(line.executed for line in k.lines) for k in (a, b))
    print(f"warp instructions executed (M): A {ea / 1e6:.2f}  B {eb / 1e6:.2f}", file=out)
    ra, rb = dict(reasons(a)), dict(reasons(b))
    print("stall reason        A %     B %", file=out)
    for reason in sorted(set(ra) | set(rb), key=lambda r: -max(ra.get(r, 0.0), rb.get(r, 0.0)))[:12]:
        print(f"{reason:16s} {ra.get(reason, 0.0):6.1f}  {rb.get(reason, 0.0):6.1f}", file=out)
    ma, mb = dict(opcode_mix(a)), dict(opcode_mix(b))
    print("opcode           A (M)   B (M)", file=out)
    for op in sorted(set(ma) | set(mb), key=lambda o: -max(ma.get(o, 0), mb.get(o, 0)))[:rows]:
        print(f"{op:14s} {ma.get(op, 0) / 1e6:7.2f} {mb.get(op, 0) / 1e6:7.2f}", file=out)


def read_export(path: str) -> str:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="") as f:
        return f.read()


def export(report_path: str) -> str:
    ncu = shutil.which("ncu")
    if ncu is None:
        raise ValueError("ncu_hotspots.py: --report needs ncu on PATH (or pass the exported CSV instead)")
    done = subprocess.run([ncu, "--import", report_path, "--page", "source", "--csv", "--print-source", "sass"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise ValueError(f"ncu_hotspots.py: ncu --import {report_path} failed: {done.stderr.strip()[:200]}")
    return done.stdout


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv", nargs="?", help="ncu --page source --csv --print-source sass output (.gz too)")
    parser.add_argument("--report", help="an .ncu-rep to export with ncu first (instead of CSV)")
    parser.add_argument("--top", type=int, default=20, help="SASS lines to list per kernel (default 20)")
    parser.add_argument("--compare", metavar="CSV",
                        help="a second export: its first kernel against the first one's, side by side")
    args = parser.parse_args(argv)
    if (args.csv is None) == (args.report is None):
        print("ncu_hotspots.py: give the exported CSV or --report FILE.ncu-rep (one of them)", file=sys.stderr)
        return 2
    if args.top < 1:
        print("ncu_hotspots.py: --top must be at least 1", file=sys.stderr)
        return 2
    try:
        text = export(args.report) if args.report else read_export(args.csv)
        if args.compare:
            compare(parse(text)[0], parse(read_export(args.compare))[0])
        else:
            report(parse(text), args.top)
    except (OSError, ValueError) as e:
        print(str(e) if isinstance(e, ValueError) else f"ncu_hotspots.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
