"""The scripts against the built fa-bench: what each expects of its --schema is there, and every
script answers --help.

CTest runs this with FA_BENCH set to the binary it built, so a change to fa-bench's CSV columns,
kernel list or NVTX range names that a script depends on fails here, not on a GPU machine.
"""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import fa_schema
import ncu_profile
import peers
import plot
from peer_backends import BACKENDS, peer_kernels
from peer_backends.common import TIME_COLUMNS

REPO_ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = REPO_ROOT / "scripts"


def test_the_schema_is_one_json_document_with_what_the_scripts_read(schema):
    assert schema.data["schema_version"] == fa_schema.SCHEMA_VERSION
    assert len(schema.columns) == len(set(schema.columns)) > 40
    assert all(schema.meanings[c] for c in schema.columns)
    for kernel in schema.kernels:
        assert kernel["instances"], kernel["slug"]
        for inst in kernel["instances"]:
            assert inst["dtype"] in schema.dtypes
    assert schema.data["layouts"] == ["bshd", "bhsd"]


def test_schema_needs_no_gpu_and_matches_the_binarys_csv_header(schema, tmp_path):
    # The header fa-bench writes (here without a GPU: its analytic rows) is the schema's list.
    out = tmp_path / "rows.csv"
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    subprocess.run([str(schema.fa_bench), "--seqlen_q", "64", "--seqlen_k", "64", "--csv", str(out)], env=env,
                   capture_output=True, check=True)
    assert out.read_text().splitlines()[0] == ",".join(schema.columns)


def test_rung_order_is_fa_benchs_list_order(schema):
    listed = subprocess.run([str(schema.fa_bench), "--list"], capture_output=True, text=True, check=True).stdout
    rungs = [(m[1], int(m[2])) for m in re.finditer(r"^(\S+) +rung (\d+) ", listed, re.M)]
    assert [slug for slug, _ in sorted(rungs, key=lambda r: r[1])] == schema.rung_order
    assert plot.KernelOrder.of(schema).rungs == tuple(schema.rung_order)


def test_peer_names_never_collide_with_fa_benchs_kernels(schema):
    assert not set(peer_kernels()) & set(schema.rung_order)
    assert len(set(peer_kernels())) == len(BACKENDS)


def test_columns_plot_reads_are_fa_benchs(schema):
    needed = {*plot.BASE_COLUMNS, *plot.NUMERIC_COLUMNS, *plot.SHAPE_COLUMNS, *plot.TABLE_SHAPE_ORDER,
              "arithmetic_intensity", "check", "gpu", "peak_source"}
    assert needed <= set(schema.columns), needed - set(schema.columns)


def test_columns_ncu_profile_reads_are_fa_benchs_and_its_range_names_parse(schema):
    needed = {*ncu_profile.EXPLAIN_COLUMNS, "check"} - {"kernel"}
    assert needed <= set(schema.columns), needed - set(schema.columns)
    names = ncu_profile.RangeNames.of(schema)
    key = ("wgmma_overlap", "Float16", 2, 8, 2, 300, 777, 64, 1)
    text = names.format(key)
    assert names.parse(f"fa-bench@{text} timed") == key  # the innermost range's name, as ncu shows it
    assert names.parse(f"{text}x") is None  # a name ends at a word boundary
    assert schema.nvtx_include() == f"regex:{schema.nvtx_domain}@.*/"


def test_range_names_without_a_column_the_script_needs_are_refused(schema):
    data = json.loads(json.dumps(schema.data))
    data["nvtx"]["problem"] = data["nvtx"]["problem"].replace(" d{head_dim}", "")
    with pytest.raises(ncu_profile.DataError, match="lack head_dim"):
        ncu_profile.RangeNames.of(fa_schema.Schema(data, None))


def test_columns_peers_write_are_fa_benchs(schema):
    needed = {*fa_schema.ANALYTIC_KEY, *fa_schema.ANALYTIC_COLUMNS, *TIME_COLUMNS, "check", "max_abs_err",
              "rel_l2_err", "note", "layout"}
    assert needed <= set(schema.columns), needed - set(schema.columns)
    assert all(name in schema.dtypes for name in ("BFloat16", "Float16"))  # the peers' dtypes
    assert set(peers.SHAPE_FLAGS) <= set(schema.defaults) and set(peers.TILE_FLAGS) <= set(schema.columns)


def test_tolerances_are_fa_benchs_and_the_readme_states_them(schema):
    readme = (REPO_ROOT / "README.md").read_text()
    for dtype in schema.dtypes:
        rel_l2, max_rel = schema.tolerance(dtype)
        line = next(line for line in readme.splitlines() if line.startswith(f"| {dtype} |"))
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert (float(cells[1].lstrip("≤ ")), float(cells[2].lstrip("≤ "))) == (rel_l2, max_rel), dtype


def test_the_readme_explains_every_csv_column(schema):
    readme = (REPO_ROOT / "README.md").read_text()
    table = readme[readme.index("| CSV column | meaning |"):]
    table = table[:table.index("\n\n")]
    named = set(re.findall(r"`([^`]+)`", "\n".join(line.split("|")[1] for line in table.splitlines()[2:])))
    named = {word for cell in named for word in cell.split()}
    assert set(schema.columns) <= named, set(schema.columns) - named


def test_a_binary_without_schema_says_so_in_one_line(tmp_path):
    old = tmp_path / "fa-bench"
    old.write_text("#!/bin/sh\necho 'The following argument was not expected: --schema' >&2\nexit 2\n")
    old.chmod(0o755)
    with pytest.raises(fa_schema.SchemaError, match=r"--schema failed \(exit 2\): .*not expected.*rebuild it"):
        fa_schema.load(old)


def test_the_binary_is_found_by_flag_then_environment(schema, monkeypatch, tmp_path):
    monkeypatch.setenv("FA_BENCH", str(schema.fa_bench))
    assert fa_schema.find_fa_bench() == schema.fa_bench
    assert fa_schema.find_fa_bench(schema.fa_bench) == schema.fa_bench
    with pytest.raises(fa_schema.SchemaError, match="--fa-bench"):
        fa_schema.find_fa_bench(tmp_path / "absent")


# ----------------------------------------------------------------------------------------------
# --help: usage and exit 0, for every script, without fa-bench, torch or a GPU
# ----------------------------------------------------------------------------------------------

PYTHON_SCRIPTS = ["peers.py", "plot.py", "ncu_profile.py", "remodel.py", "ptxas_report.py", "ncu_hotspots.py",
                  "sass_loops.py", "ab.py", "fa4_sass.py"]
SHELL_SCRIPTS = ["sweep.sh", "sanitize.sh", "gpu_session.sh", "dev.sh", "wgmma_guard.sh"]


def test_every_script_is_covered():
    scripts = {p.name for p in SCRIPTS.iterdir() if p.suffix in (".py", ".sh")} - {"fa_schema.py"}
    assert scripts == set(PYTHON_SCRIPTS) | set(SHELL_SCRIPTS)  # fa_schema.py is a module, not a script


@pytest.mark.parametrize("script", PYTHON_SCRIPTS + SHELL_SCRIPTS)
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_prints_usage_and_exits_0(script, flag, tmp_path):
    command = [sys.executable] if script.endswith(".py") else ["bash"]
    env = dict(os.environ, FA_BENCH=str(tmp_path / "absent"))  # --help needs no binary
    done = subprocess.run([*command, str(SCRIPTS / script), flag], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage:"), done.stdout[:200]
    assert list(tmp_path.iterdir()) == []  # and nothing was run or written
