"""What fa-bench says about itself, for the scripts: `fa-bench --schema` and its analytic rows.

The CSV columns, the kernels in rung order, the dtypes with their check tolerances, the flag
defaults and the NVTX range names come from the binary (app/schema.cpp), and the FLOPs and
compulsory bytes of a problem come from fa-bench's own CSV rows, so no script keeps a copy of
them that could drift from app/report.cpp, lib/registry.cpp or lib/problem.cpp.

Every script finds the binary the same way: --fa-bench PATH, else $FA_BENCH, else build/fa-bench
in this repository. Scripts that only read (plot.py, ncu_profile.py --from-ncu-csv) also take
--schema-json FILE, a saved `fa-bench --schema` (sweep.sh writes one next to ladder.csv).

Standard library only: importing this module needs neither torch nor pandas.
"""
from __future__ import annotations

import argparse
import csv
import functools
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FA_BENCH = REPO_ROOT / "build" / "fa-bench"
ENV_FA_BENCH = "FA_BENCH"

# The --schema documents this module understands (app/schema.h kSchemaVersion).
SCHEMA_VERSION = 1

# The columns of a problem's shape (no kernel, dtype or tile): plot.py's panels and tables, ab.py's
# --versus ratios.
SHAPE_COLUMNS = ("batch_size", "num_head", "num_head_kv", "seqlen_q", "seqlen_k", "head_dim", "is_causal")
# The problem columns that identify an analytic row, in the order of Problem.key in the peers.
# num_head_kv is part of it: K and V's compulsory bytes count the K/V heads, not the query heads.
ANALYTIC_KEY = ("dtype", "batch_size", "seqlen_q", "seqlen_k", "num_head", "num_head_kv", "head_dim", "is_causal")
# Where the fields the calls are grouped by sit in an ANALYTIC_KEY tuple.
_BATCH, _HEADS, _KV_HEADS, _HEAD_DIM = (ANALYTIC_KEY.index(c) for c in ("batch_size", "num_head", "num_head_kv",
                                                                          "head_dim"))
# What a script takes from fa-bench's analytic rows instead of computing it.
ANALYTIC_COLUMNS = ("softmax_scale", "flops", "compulsory_bytes", "arithmetic_intensity")
# One fa-bench call sweeps the cartesian product of the flag lists; past this many rows, the
# problems are asked for in groups instead (a product of seven lists grows fast).
MAX_ROWS_PER_CALL = 4096


class SchemaError(Exception):
    """fa-bench could not be found or did not answer: one line for the user, exit status 2."""


# ----------------------------------------------------------------------------------------------
# Finding the binary and reading --schema
# ----------------------------------------------------------------------------------------------

def find_fa_bench(given: str | os.PathLike | None = None) -> Path:
    """The fa-bench binary: `given` (a path or a name on PATH), else $FA_BENCH, else build/fa-bench."""
    for value, origin in ((given, "--fa-bench"), (os.environ.get(ENV_FA_BENCH), f"${ENV_FA_BENCH}")):
        if value:
            found = shutil.which(str(value))
            if found is None:
                raise SchemaError(f"fa-bench not found: {value} ({origin}) is not an executable file")
            return Path(found)
    if shutil.which(str(DEFAULT_FA_BENCH)):
        return DEFAULT_FA_BENCH
    raise SchemaError(f"fa-bench not found: pass --fa-bench PATH, set {ENV_FA_BENCH}, or build "
                      f"{DEFAULT_FA_BENCH.relative_to(REPO_ROOT)} (cmake -S . -B build && cmake --build build)")


def first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def run_schema(fa_bench: Path) -> dict:
    """The parsed `fa-bench --schema` document."""
    try:
        done = subprocess.run([str(fa_bench), "--schema"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as error:
        raise SchemaError(f"{fa_bench} --schema could not run: {error}") from None
    if done.returncode != 0:
        why = first_line(done.stderr) or first_line(done.stdout)
        raise SchemaError(f"{fa_bench} --schema failed (exit {done.returncode}): {why} "
                          "(a binary older than --schema? rebuild it)")
    return parse_schema(done.stdout, f"{fa_bench} --schema")


def parse_schema(text: str, source: str) -> dict:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise SchemaError(f"{source}: not a JSON document ({error})") from None
    version = data.get("schema_version") if isinstance(data, dict) else None
    if version != SCHEMA_VERSION:
        raise SchemaError(f"{source}: schema_version {version}, this script reads {SCHEMA_VERSION}")
    return data


@dataclass(frozen=True)
class Schema:
    """The --schema document with the views the scripts use."""
    data: dict
    fa_bench: Path | None  # the binary it came from; None when read from a file

    @property
    def columns(self) -> list[str]:
        """The CSV columns, in the order fa-bench writes them."""
        return [c["name"] for c in self.data["csv_columns"]]

    @property
    def meanings(self) -> dict[str, str]:
        return {c["name"]: c["meaning"] for c in self.data["csv_columns"]}

    @property
    def kernels(self) -> list[dict]:
        return sorted(self.data["kernels"], key=lambda k: k["rung"])

    @property
    def rung_order(self) -> list[str]:
        """Kernel slugs in ladder order (rung 0 first)."""
        return [k["slug"] for k in self.kernels]

    @property
    def dtypes(self) -> list[str]:
        return [d["name"] for d in self.data["dtypes"]]

    def output_bytes(self, dtype: str) -> int:
        """Bytes of one element of O for this input dtype (fa-bench's output_bytes: FP8 writes bf16)."""
        for d in self.data["dtypes"]:
            if d["name"] == dtype:
                return int(d["output_bytes"])
        raise KeyError(dtype)

    def tolerance(self, dtype: str) -> tuple[float, float]:
        """(rel_l2 limit, max_abs_err / max|ref| limit): fa-bench's tolerance_for(dtype)."""
        for d in self.data["dtypes"]:
            if d["name"] == dtype:
                return float(d["tolerance_rel_l2"]), float(d["tolerance_max_rel"])
        raise KeyError(dtype)

    @property
    def defaults(self) -> dict:
        """fa-bench's flag defaults: dtype, batch_size, seqlen_q, seqlen_k, num_head, head_dim, ..."""
        return dict(self.data["defaults"])

    @property
    def example_tile(self) -> tuple[int, int, int]:
        """(m_block_size, n_block_size, num_threads) of the CuTe DSL example's default tile."""
        t = self.data["example_tile"]
        return int(t["m_block_size"]), int(t["n_block_size"]), int(t["num_threads"])

    @property
    def nvtx_domain(self) -> str:
        return self.data["nvtx"]["domain"]

    def nvtx_include(self) -> str:
        """ncu's --nvtx-include for every push/pop range of fa-bench's domain."""
        return f"regex:{self.nvtx_domain}@.*/"

    def range_pattern(self) -> re.Pattern:
        """A pattern matching the name of a --profile range ("<kernel> <problem>"), with one named
        group per field: kernel and the problem's CSV columns. Built from the formats fa-bench
        prints, so a change of the range names there changes this pattern too. A kernel is a
        slug, a dtype one of the schema's names, every other field of the problem an integer."""
        nvtx = self.data["nvtx"]
        template = nvtx["ranges"]["profile"].replace("{problem}", nvtx["problem"])
        fields = {name: r"\d+" for name in _FIELD.findall(template)}
        fields.update(kernel=r"[A-Za-z0-9_]+", dtype="|".join(re.escape(d) for d in self.dtypes))
        return format_to_pattern(template, fields)

    def format_range(self, kernel: str, **problem) -> str:
        """The --profile range name of a kernel on a problem (problem fields by CSV column name)."""
        nvtx = self.data["nvtx"]
        return nvtx["ranges"]["profile"].replace("{problem}", nvtx["problem"]).format(kernel=kernel, **problem)


# A field's text: a kernel slug or a dtype name are words, numbers are digits.
_FIELD_PATTERN = r"[A-Za-z0-9_]+"
_FIELD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def format_to_pattern(template: str, fields: dict[str, str] | None = None) -> re.Pattern:
    """'{kernel} b{batch_size}' -> a regex with (?P<kernel>...) and (?P<batch_size>...) groups,
    each matching fields[name] (default: a word); the text between fields is matched literally.
    The match must end at a word boundary, so 'c1' does not match the start of 'c10'."""
    fields = fields or {}
    parts, at = [], 0
    for m in _FIELD.finditer(template):
        parts.append(re.escape(template[at:m.start()]))
        parts.append(f"(?P<{m.group(1)}>{fields.get(m.group(1), _FIELD_PATTERN)})")
        at = m.end()
    parts.append(re.escape(template[at:]))
    return re.compile("".join(parts) + r"\b")


@functools.lru_cache(maxsize=None)
def _schema_of_binary(fa_bench: Path, mtime_ns: int) -> dict:
    del mtime_ns  # part of the cache key only: a rebuilt binary is asked again
    return run_schema(fa_bench)


def load(fa_bench: str | os.PathLike | None = None, schema_json: str | os.PathLike | None = None) -> Schema:
    """The schema from a saved document (schema_json), else from the binary (find_fa_bench)."""
    if schema_json:
        path = Path(schema_json)
        if not path.is_file():
            raise SchemaError(f"no such file: {path} (--schema-json)")
        return Schema(parse_schema(path.read_text(encoding="utf-8"), str(path)), None)
    binary = find_fa_bench(fa_bench)
    return Schema(_schema_of_binary(binary, binary.stat().st_mtime_ns), binary)


def add_arguments(parser: argparse.ArgumentParser, schema_json: bool = True) -> None:
    """--fa-bench (and --schema-json for scripts that only read) on a script's parser."""
    parser.add_argument("--fa-bench", metavar="PATH",
                        help=f"fa-bench binary whose --schema the script reads (default ${ENV_FA_BENCH}, "
                             "else build/fa-bench)")
    if schema_json:
        parser.add_argument("--schema-json", metavar="FILE",
                            help="a saved `fa-bench --schema` document, instead of running fa-bench")


def from_args(args: argparse.Namespace) -> Schema:
    return load(getattr(args, "fa_bench", None), getattr(args, "schema_json", None))


# ----------------------------------------------------------------------------------------------
# Analytic rows: FLOPs, compulsory bytes, intensity and the effective scale, from fa-bench
# ----------------------------------------------------------------------------------------------

def _fa_bench_calls(keys: Sequence[tuple]) -> list[dict[str, list]]:
    """Flag lists whose cartesian products cover `keys` (ANALYTIC_KEY tuples), in few calls: the
    problems of one (batch_size, num_head, head_dim) go together, and groups are merged while the
    merged product stays at most MAX_ROWS_PER_CALL rows (one call for a whole fa2 grid) and every
    num_head_kv of the call divides every num_head of it (fa-bench refuses the call otherwise)."""
    def lists(group):
        return {column: sorted({key[i] for key in group}, key=str) for i, column in enumerate(ANALYTIC_KEY)}

    def rows(group):
        count = 1
        for values in lists(group).values():
            count *= len(values)
        return count

    def heads_divide(group):
        return all(h % kv == 0 for h in {key[_HEADS] for key in group} for kv in {key[_KV_HEADS] for key in group})

    groups: dict[tuple, list[tuple]] = {}
    for key in keys:
        groups.setdefault((key[_BATCH], key[_HEADS], key[_HEAD_DIM]), []).append(key)
    calls: list[list[tuple]] = []
    for group in groups.values():
        for call in calls:
            if rows(call + group) <= MAX_ROWS_PER_CALL and heads_divide(call + group):
                call.extend(group)
                break
        else:
            calls.append(list(group))
    return [lists(call) for call in calls]


@functools.lru_cache(maxsize=64)
def _analytic_call(fa_bench: Path, flags: tuple[str, ...]) -> tuple[tuple[tuple, dict], ...]:
    with tempfile.TemporaryDirectory(prefix="fa_schema.") as tmp:
        csv_path = Path(tmp) / "analytic.csv"
        # No GPU on purpose: fa-bench then writes its analytic row for every problem, quickly and
        # whatever the device could run. --explain --kernel naive keeps a run that still sees a
        # GPU cheap (no timing) and gives one row per problem too.
        env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
        command = [str(fa_bench), "--explain", "--kernel", "naive", "--csv", str(csv_path), *flags]
        try:
            done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
        except (OSError, subprocess.SubprocessError) as error:
            raise SchemaError(f"fa-bench could not run for the analytic columns: {error}") from None
        # Exit 2 with rows written means only that no kernel could run there; rows are what count.
        if done.returncode not in (0, 2) or not csv_path.is_file():
            why = first_line(done.stderr) or first_line(done.stdout)
            raise SchemaError(f"fa-bench gave no analytic rows (exit {done.returncode}): {why}")
        with csv_path.open(newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            rows = list(reader)
    lacking = [c for c in (*ANALYTIC_KEY, *ANALYTIC_COLUMNS) if c not in (reader.fieldnames or [])]
    if lacking:
        raise SchemaError(f"fa-bench's analytic rows lack {', '.join(lacking)} (a binary older than GQA? rebuild it)")
    out = []
    for row in rows:
        key = tuple(row[c] if c == "dtype" else int(row[c]) for c in ANALYTIC_KEY)
        out.append((key, {c: row[c] for c in ANALYTIC_COLUMNS}))
    return tuple(out)


def analytic_rows(fa_bench: Path, keys: Iterable[tuple], softmax_scale: float | None = None) -> dict[tuple, dict]:
    """{key: {softmax_scale, flops, compulsory_bytes, arithmetic_intensity}} as fa-bench writes
    them (text, exactly as on its own rows), for every ANALYTIC_KEY tuple in `keys`."""
    keys = list(dict.fromkeys(keys))
    found: dict[tuple, dict] = {}
    for lists in _fa_bench_calls(keys):
        flags = []
        for column, values in lists.items():
            flag = "causal" if column == "is_causal" else column
            flags += [f"--{flag}", ",".join(str(v) for v in values)]
        if softmax_scale:
            flags += ["--softmax_scale", repr(float(softmax_scale))]
        found.update(_analytic_call(fa_bench, tuple(flags)))
    missing = [key for key in keys if key not in found]
    if missing:
        raise SchemaError(f"fa-bench wrote no analytic row for {dict(zip(ANALYTIC_KEY, missing[0]))}")
    return {key: found[key] for key in keys}
