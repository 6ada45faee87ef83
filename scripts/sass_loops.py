#!/usr/bin/env python3
"""The hot loops of each kernel in a build's SASS, and whether a change moved them.

    python3 scripts/sass_loops.py build/fa-bench                      # every kernel's loops
    python3 scripts/sass_loops.py --kernel M192 before/fa-bench after/fa-bench

An input is an executable or object (`cuobjdump -sass` is run on it) or a text file holding that
command's output. A loop is a backward branch spanning at least --min-instructions instructions,
reported with its size, its tensor-core (xMMA / xGMMA), MUFU, local-memory (LDL / STL: a spill in
the loop) and uniform-datapath (U...) instruction counts.

With two inputs, each kernel in both is compared loop by loop, each of the first's loops (largest
first) against the second's loop with the closest opcode counts (an outer loop a change added
around the old one is left unpaired, not compared with it): a loop is
`identical` when its instruction sequence is the same once register numbers, predicates and
immediates are blanked, else the script prints how similar the sequences are (difflib's ratio) and
which opcodes' counts changed; --against-kernel compares the one function --kernel matches in the
first input with the one this matches in the second (a kernel renamed by a new template argument,
e.g. an experiment's config). Why it exists: ptxas schedules a kernel's loop anew on changes far
from it (rung 8, sessions 27-28: an epilogue change, a producer-only prefetch and a persistent outer
loop each reordered the consumers' 1,094-instruction loop and cost 1-3 %), so a change meant to
leave a loop alone is checked here before it is timed on a GPU. Exit status: 0, or 1 when two
inputs were given and a compared kernel's loops differ (or one side lacks a kernel the other has),
2 on bad input.
"""
from __future__ import annotations

import argparse
import collections
import difflib
import re
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

_FUNCTION = re.compile(r"^\s*Function : (\S+)")
_INSTRUCTION = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
_BRANCH_TARGET = re.compile(r"\bBRA(?:\.[A-Z.]+)?\s+(?:!?U?P\d+,\s*)?0x([0-9a-f]+)")


@dataclass
class Loop:
    start: int  # address of the branch target (the loop's first instruction)
    end: int  # address of the backward branch
    instructions: list[str] = field(default_factory=list)

    def opcode_counts(self) -> collections.Counter:
        return collections.Counter(opcode(i) for i in self.instructions)

    def summary(self) -> str:
        ops = [opcode(i) for i in self.instructions]
        mma = sum(1 for o in ops if "MMA" in o)  # HMMA, QGMMA, HGMMA, ...
        mufu = sum(1 for o in ops if o.startswith("MUFU"))
        local = sum(1 for o in ops if o.split(".")[0] in ("LDL", "STL"))
        uniform = sum(1 for o in ops if o.startswith("U"))
        return (f"[{self.start:#06x}, {self.end:#06x}] {len(ops)} instructions: {mma} MMA, {mufu} MUFU, "
                f"{local} LDL/STL, {uniform} uniform")


def opcode(instruction: str) -> str:
    """The opcode with its modifiers, past a guard predicate (`@!P0 BRA ...` -> `BRA`)."""
    words = instruction.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0] if words else ""


def normalize(instruction: str) -> str:
    """The instruction with register numbers, predicates and immediates blanked, so that two builds
    whose register allocation differs but whose schedule does not compare equal."""
    text = re.sub(r"0x[0-9a-f]+", "#", instruction)
    text = re.sub(r"\bUR\d+\b", "UR", text)
    text = re.sub(r"\bR\d+\b", "R", text)
    text = re.sub(r"\bUP\d\b", "UP", text)
    text = re.sub(r"\bP\d\b", "P", text)
    text = re.sub(r"\bB\d+\b", "B", text)  # convergence barriers (BSSY / BSYNC)
    text = text.replace(".reuse", "")
    return " ".join(text.split())


def parse(lines) -> dict[str, list[tuple[int, str]]]:
    """Each function's (address, instruction) list from `cuobjdump -sass` text, by mangled name. A
    name that appears twice (one kernel in two embedded cubins) keeps its first listing."""
    functions: dict[str, list[tuple[int, str]]] = {}
    current = None
    for line in lines:
        m = _FUNCTION.match(line)
        if m:
            current = None if m.group(1) in functions else m.group(1)
            if current:
                functions[current] = []
            continue
        m = _INSTRUCTION.match(line)
        if m and current:
            functions[current].append((int(m.group(1), 16), m.group(2)))
    return functions


def find_loops(code: list[tuple[int, str]], min_instructions: int) -> list[Loop]:
    """Backward branches spanning at least min_instructions instructions, in address order. Not the
    returns of ptxas' out-of-line wait stubs (at the function's end: a try-wait, a guarded branch
    back to it, then an unguarded `BRA` back into the body), which are no loop of the kernel's."""
    loops = []
    for k, (address, text) in enumerate(code):
        m = _BRANCH_TARGET.search(text)
        if not m:
            continue
        target = int(m.group(1), 16)
        if target >= address:
            continue
        stub_return = not text.startswith("@") and k > 0 and code[k - 1][1].startswith("@") and \
            _BRANCH_TARGET.search(code[k - 1][1]) is not None
        if stub_return:
            continue
        body = [t for a, t in code if target <= a <= address]
        if len(body) >= min_instructions:
            loops.append(Loop(target, address, body))
    return sorted(loops, key=lambda loop: (loop.start, loop.end))


def compare(a: Loop, b: Loop) -> tuple[bool, float, dict[str, tuple[int, int]]]:
    """(identical once normalized, difflib ratio, opcodes whose counts differ: (a, b))."""
    na = [normalize(i) for i in a.instructions]
    nb = [normalize(i) for i in b.instructions]
    if na == nb:
        return True, 1.0, {}
    ratio = difflib.SequenceMatcher(None, na, nb, autojunk=False).ratio()
    ca, cb = a.opcode_counts(), b.opcode_counts()
    counts = {op: (ca[op], cb[op]) for op in sorted(set(ca) | set(cb)) if ca[op] != cb[op]}
    return False, ratio, counts


def pair_loops(la: list[Loop], lb: list[Loop]) -> list[tuple[Loop, Loop]]:
    """Each loop of la, largest first, with the not yet paired loop of lb whose opcode counts differ
    least from its own (the sum of absolute differences)."""
    free = list(lb)
    pairs = []
    for a in sorted(la, key=lambda loop: -len(loop.instructions)):
        if not free:
            break
        ca = a.opcode_counts()

        def distance(b: Loop) -> int:
            cb = b.opcode_counts()
            return sum(abs(ca[op] - cb[op]) for op in set(ca) | set(cb))

        best = min(free, key=distance)
        free.remove(best)
        pairs.append((a, best))
    return pairs


def read_input(path: str, cuobjdump: str) -> list[str]:
    """`cuobjdump -sass` of a binary, or the text of a file that already holds such a dump."""
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"{path}: no such file")
    head = p.read_bytes()[:4]
    if head != b"\x7fELF":
        return p.read_text(errors="replace").splitlines()
    tool = shutil.which(cuobjdump) or (cuobjdump if Path(cuobjdump).is_file() else None)
    if tool is None:
        raise ValueError(f"{path} is a binary and {cuobjdump} was not found (--cuobjdump names it)")
    out = subprocess.run([tool, "-sass", str(p)], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise ValueError(f"{tool} -sass {path} failed: {out.stderr.strip()}")
    return out.stdout.splitlines()


def main(argv: list[str] | None = None) -> int:
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="+", metavar="INPUT", help="one or two binaries or cuobjdump -sass dumps")
    ap.add_argument("--kernel", default="", help="only functions whose mangled name matches this regex")
    ap.add_argument("--against-kernel", default=None,
                    help="with two inputs: compare the function --kernel matches in the first with the one this "
                    "matches in the second")
    ap.add_argument("--min-instructions", type=int, default=64, help="smallest loop reported (default 64)")
    ap.add_argument("--cuobjdump", default="cuobjdump", help="the cuobjdump to run on binaries")
    args = ap.parse_intermixed_args(argv)  # dev.sh puts the build's binary before the flags
    if len(args.inputs) > 2:
        print("sass_loops.py: at most two inputs (before, after)", file=sys.stderr)
        return 2
    if args.min_instructions < 2:
        print("sass_loops.py: --min-instructions must be at least 2", file=sys.stderr)
        return 2
    if args.against_kernel is not None and len(args.inputs) != 2:
        print("sass_loops.py: --against-kernel needs two inputs", file=sys.stderr)
        return 2
    try:
        patterns = [re.compile(args.kernel)] * 2
        if args.against_kernel is not None:
            patterns[1] = re.compile(args.against_kernel)
        dumps = [parse(read_input(i, args.cuobjdump)) for i in args.inputs]
    except (re.error, ValueError) as e:
        print(f"sass_loops.py: {e}", file=sys.stderr)
        return 2
    dumps = [{name: code for name, code in d.items() if p.search(name)} for d, p in zip(dumps, patterns)]
    if not any(dumps):
        print(f"sass_loops.py: no function matches --kernel {args.kernel!r}", file=sys.stderr)
        return 2
    if args.against_kernel is not None:
        if len(dumps[0]) != 1 or len(dumps[1]) != 1:
            print(f"sass_loops.py: --kernel and --against-kernel must each match one function "
                  f"({len(dumps[0])} and {len(dumps[1])} do)", file=sys.stderr)
            return 2
        (name_a, code_a), (name_b, code_b) = next(iter(dumps[0].items())), next(iter(dumps[1].items()))
        dumps = [{f"{name_a} / {name_b}": code_a}, {f"{name_a} / {name_b}": code_b}]

    if len(dumps) == 1:
        for name, code in dumps[0].items():
            loops = find_loops(code, args.min_instructions)
            print(f"== {name}: {len(code)} instructions, {len(loops)} loops")
            for loop in loops:
                print(f"  {loop.summary()}")
        return 0

    before, after = dumps
    differ = False
    for name in sorted(set(before) | set(after)):
        if name not in before or name not in after:
            print(f"== {name}: only in {'the second' if name in after else 'the first'} input")
            differ = True
            continue
        la = find_loops(before[name], args.min_instructions)
        lb = find_loops(after[name], args.min_instructions)
        print(f"== {name}: {len(la)} / {len(lb)} loops")
        if len(la) != len(lb):
            differ = True
        for i, (a, b) in enumerate(pair_loops(la, lb)):
            same, ratio, counts = compare(a, b)
            if same:
                print(f"  loop {i}: identical ({len(a.instructions)} instructions)")
                continue
            differ = True
            print(f"  loop {i}: differs, {len(a.instructions)} -> {len(b.instructions)} instructions, "
                  f"similarity {ratio:.3f}")
            if counts:
                print("    opcode counts: " + ", ".join(f"{op} {x} -> {y}" for op, (x, y) in counts.items()))
            else:
                print("    the same opcode counts: only the order moved")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
