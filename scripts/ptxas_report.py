#!/usr/bin/env python3
"""One line per compiled kernel instance from `ptxas -v` output: registers, spills, stack.

The rung headers quote these numbers (registers per thread, spill bytes) and every register
budget decision rests on them; `scripts/dev.sh regs FILE.cu` compiles a kernel file with the
build's own flags plus `-Xptxas -v` and pipes the output here. Reads stdin, prints a table (or
CSV with --csv). Exit status 1 when any instance spills and --fail-on-spill is given (for a quick
check after a change), 0 otherwise.
"""
from __future__ import annotations

import argparse
import csv
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass

_ENTRY = re.compile(r"Compiling entry function '(?P<name>[^']+)' for '(?P<arch>[^']+)'")
_FRAME = re.compile(r"(?P<stack>\d+) bytes stack frame, (?P<stores>\d+) bytes spill stores, "
                    r"(?P<loads>\d+) bytes spill loads")
_USED = re.compile(r"Used (?P<regs>\d+) registers")


@dataclass
class Instance:
    mangled: str
    arch: str
    registers: int = -1
    stack_bytes: int = 0
    spill_store_bytes: int = 0
    spill_load_bytes: int = 0
    name: str = ""

    @property
    def spills(self) -> bool:
        return self.spill_store_bytes > 0 or self.spill_load_bytes > 0


def parse(lines) -> list[Instance]:
    """The entry functions in the order ptxas compiled them. The frame and register lines that
    follow an entry's "Compiling entry function" line belong to it (ptxas prints them in that
    order for each entry, per target architecture)."""
    out: list[Instance] = []
    for line in lines:
        if m := _ENTRY.search(line):
            out.append(Instance(m["name"], m["arch"]))
        elif out and (m := _FRAME.search(line)):
            out[-1].stack_bytes = int(m["stack"])
            out[-1].spill_store_bytes = int(m["stores"])
            out[-1].spill_load_bytes = int(m["loads"])
        elif out and (m := _USED.search(line)):
            out[-1].registers = int(m["regs"])
    return out


def shorten(demangled: str) -> str:
    """`void fa::(anonymous namespace)::mma_fwd_kernel<fa::(anonymous namespace)::MmaTraits<
    __nv_bfloat16, 64, 128, 64, 4>>(fa::FwdParams)` -> `mma_fwd_kernel<MmaTraits<__nv_bfloat16,
    64, 128, 64, 4>>`: the namespaces, the return type and the parameter list say nothing that
    tells two instances apart."""
    s = demangled.replace("(anonymous namespace)::", "").replace("fa::", "")
    s = re.sub(r"^void ", "", s)
    depth = 0
    for i, ch in enumerate(s):  # drop the parameter list: the first '(' outside template brackets
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0:
            return s[:i]
    return s


def demangle(names: list[str]) -> list[str]:
    """Through c++filt when it is installed (binutils); mangled names otherwise."""
    tool = shutil.which("c++filt")
    if not tool or not names:
        return names
    res = subprocess.run([tool], input="\n".join(names) + "\n", capture_output=True, text=True, check=False)
    got = res.stdout.splitlines()
    return got if res.returncode == 0 and len(got) == len(names) else names


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--csv", action="store_true", help="CSV instead of a table")
    ap.add_argument("--fail-on-spill", action="store_true", help="exit 1 if any instance spills")
    args = ap.parse_args(argv)
    instances = parse(sys.stdin)
    for inst, name in zip(instances, demangle([i.mangled for i in instances])):
        inst.name = shorten(name)
    if args.csv:
        w = csv.writer(sys.stdout, lineterminator="\n")
        w.writerow(["kernel", "arch", "registers", "stack_bytes", "spill_store_bytes", "spill_load_bytes"])
        for i in instances:
            w.writerow([i.name, i.arch, i.registers, i.stack_bytes, i.spill_store_bytes, i.spill_load_bytes])
    else:
        width = max([len(i.name) for i in instances] + [6])
        print(f"{'kernel':<{width}}  {'arch':<7} {'regs':>4} {'stack':>5} {'spill st/ld (B)':>15}")
        for i in instances:
            spill = f"{i.spill_store_bytes}/{i.spill_load_bytes}" if i.spills else "-"
            print(f"{i.name:<{width}}  {i.arch:<7} {i.registers:>4} {i.stack_bytes:>5} {spill:>15}")
    if not instances:
        print("ptxas_report.py: no 'Compiling entry function' line in the input (was -Xptxas -v passed?)",
              file=sys.stderr)
        return 2
    return 1 if args.fail_on_spill and any(i.spills for i in instances) else 0


if __name__ == "__main__":
    sys.exit(main())
