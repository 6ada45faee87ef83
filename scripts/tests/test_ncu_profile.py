"""ncu_profile.py on synthetic fixtures (scripts/tests/data/), and with stand-in ncu and fa-bench.

The ncu fixture holds one problem (B=4, H=16, S=4096, D=128, BFloat16, non-causal) profiled with
--kernel mma,naive: three naive launches (GEMM, softmax, GEMM) in one NVTX range, then one mma
launch. The expected numbers below are the fixture's cells, spelled out.

Range names are read as the built fa-bench's --schema says they are written (conftest.py).
"""
import functools
import json
import csv
import io
import re
import stat
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import ncu_profile
from conftest import live_schema

REPO_ROOT = Path(__file__).resolve().parents[2]
SCRIPT = REPO_ROOT / "scripts" / "ncu_profile.py"
DATA = Path(__file__).resolve().parent / "data"
RAW = DATA / "ncu_raw_synthetic.csv"
EXPLAIN = DATA / "explain_synthetic.csv"
NVTX_COLUMN = "thread_domain:push_pop_ranges"

NAIVE = ("naive", "BFloat16", 4, 16, 16, 4096, 4096, 128, 0)
MMA = ("mma", "BFloat16", 4, 16, 16, 4096, 4096, 128, 0)

# The fixture's launches: (duration ns, DRAM read, DRAM write, GMMA %, HMMA %, occupancy %, regs).
NAIVE_LAUNCHES = [(1_612_448, 142_606_336, 4_295_032_832, 21.44, 0.0, 9.38, 168),
                  (2_214_720, 4_295_098_368, 2_147_549_184, 0.0, 0.0, 86.12, 32),
                  (986_304, 2_214_658_048, 67_174_400, 48.71, 0.0, 12.06, 168)]
MMA_LAUNCH = (1_375_712, 214_958_080, 67_141_632, 0.0, 71.32, 15.87, 128)
MMA_MODEL_BYTES = 4_429_190_000  # "4.42919e+09": fa-bench prints 6 significant digits
NAIVE_MODEL_BYTES = 13_153_300_000  # "1.31533e+10"
COMPULSORY_BYTES = 268_435_456  # (2·4096 + 2·4096)·4·16·128·2


@functools.lru_cache(maxsize=None)
def names():
    return ncu_profile.RangeNames.of(live_schema())


# ----------------------------------------------------------------------------------------------
# Helpers: fixture variants
# ----------------------------------------------------------------------------------------------

def fixture_table(path=RAW):
    """(banner lines, CSV rows from the header on) of an ncu report."""
    lines = path.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    return lines[:at], list(csv.reader(lines[at:]))


def render(banner, table):
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(table)
    return "\n".join(banner) + "\n" + out.getvalue()


def without_column(table, name):
    at = table[0].index(name)
    return [row[:at] + row[at + 1:] for row in table]


def with_cells(table, name, function):
    """The table with function(row_index, cell) applied to column `name` of the data rows (not the
    header or the units row)."""
    at = table[0].index(name)
    out = [list(row) for row in table]
    for i, row in enumerate(out[2:]):
        row[at] = function(i, row[at])
    return out


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def explain_rows():
    with EXPLAIN.open(newline="") as f:
        return list(csv.DictReader(f))


def write_explain(tmp_path, rows):
    path = tmp_path / "explain.csv"
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return path


def joined(text, explain_path=EXPLAIN, clock_control="", ncu_version=""):
    report = ncu_profile.parse_ncu_csv(text, names(), "fixture")
    return ncu_profile.join_with_explain(report, ncu_profile.read_explain_csv(explain_path), clock_control,
                                         ncu_version)


def row_of(data, kernel):
    rows = data[data["kernel"] == kernel]
    assert len(rows) == 1, rows
    return rows.iloc[0]


def parse_markdown_table(text):
    """Markdown table -> list of {header: cell}, skipping the |---| rule."""
    lines = [line for line in text.splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    return [dict(zip(header, (cell.strip() for cell in line.strip("|").split("|")))) for line in lines[2:]]


# ----------------------------------------------------------------------------------------------
# Parsing
# ----------------------------------------------------------------------------------------------

def test_parse_skips_the_banner_and_the_units_row_and_converts_units():
    report = ncu_profile.parse_ncu_csv(RAW.read_text(), names(), "fixture")
    launches = report.launches
    assert list(launches["id"]) == [0, 1, 2, 3]
    assert list(launches["range_key"]) == [NAIVE, NAIVE, NAIVE, MMA]
    assert NVTX_COLUMN in report.attribution
    mma = launches.iloc[3]
    assert mma[ncu_profile.M_DURATION] == pytest.approx(1.375712)  # 1,375,712 nsecond -> ms
    assert mma[ncu_profile.M_DRAM_READ] == 214_958_080  # thousands separators dropped
    assert mma[ncu_profile.M_GRID] == 2048
    # A quoted kernel name with commas stays one cell.
    assert launches.iloc[1]["kernel_name"] == ("void fa::naive_softmax_kernel<__nv_bfloat16>"
                                               "(const float *, __nv_bfloat16 *, int, float, bool)")
    assert report.meta == {}


def test_scaled_units_are_converted_to_ms_and_bytes():
    banner, table = fixture_table()
    at = {name: table[0].index(name) for name in (ncu_profile.M_DURATION, ncu_profile.M_DRAM_READ)}
    table[1][at[ncu_profile.M_DURATION]] = "usecond"
    table[1][at[ncu_profile.M_DRAM_READ]] = "Mbyte"
    table[5][at[ncu_profile.M_DURATION]] = "1,375.712"
    table[5][at[ncu_profile.M_DRAM_READ]] = "214.95808"
    mma = ncu_profile.parse_ncu_csv(render(banner, table), names()).launches.iloc[3]
    assert mma[ncu_profile.M_DURATION] == pytest.approx(1.375712)
    assert mma[ncu_profile.M_DRAM_READ] == pytest.approx(214_958_080)
    # The crossbar's byte counts too.
    banner, table = fixture_table(VALIDATION_RAW)
    table[1][table[0].index(ncu_profile.M_XBAR_READ)] = "Gbyte"
    table[2][table[0].index(ncu_profile.M_XBAR_READ)] = "5.670705477"
    table[1][table[0].index(ncu_profile.M_XBAR_WRITE)] = "Mibyte"
    table[2][table[0].index(ncu_profile.M_XBAR_WRITE)] = "64"
    mma = ncu_profile.parse_ncu_csv(render(banner, table), names()).launches.iloc[0]
    assert mma[ncu_profile.M_XBAR_READ] == pytest.approx(5_670_705_477)
    assert mma[ncu_profile.M_XBAR_WRITE] == pytest.approx(64 * 2 ** 20)


@pytest.mark.parametrize("column,cell", [
    ("NVTX", "fa-bench@{}"),                                  # a column named NVTX
    (NVTX_COLUMN, "{}"),                                      # the bare range name
    ("NVTX Push/Pop Ranges", "fa-bench:outer;fa-bench:{}"),  # a stack: the innermost wins
    ("Process Domain", "[fa-bench] {}"),
])
def test_range_names_are_found_whatever_the_column_and_cell_look_like(column, cell):
    banner, table = fixture_table()
    table[0][table[0].index(NVTX_COLUMN)] = column
    table = with_cells(table, column, lambda i, text: cell.format(text.removeprefix("fa-bench@")))
    report = ncu_profile.parse_ncu_csv(render(banner, table), names())
    assert list(report.launches["range_key"]) == [NAIVE, NAIVE, NAIVE, MMA]
    assert repr(column) in report.attribution


def test_range_names_in_the_kernel_name_column_print_nvtx_rename_kernel():
    banner, table = fixture_table()
    ranges = [row[table[0].index(NVTX_COLUMN)] for row in table[2:]]
    table = without_column(with_cells(table, "Kernel Name", lambda i, _: ranges[i].removeprefix("fa-bench@")),
                           NVTX_COLUMN)
    report = ncu_profile.parse_ncu_csv(render(banner, table), names())
    assert list(report.launches["range_key"]) == [NAIVE, NAIVE, NAIVE, MMA]
    assert "'Kernel Name'" in report.attribution


def test_a_report_without_a_header_or_a_duration_is_a_data_error():
    with pytest.raises(ncu_profile.DataError, match="no ncu CSV header"):
        ncu_profile.parse_ncu_csv("==PROF== Connected to process 1\n==WARNING== No kernels were profiled.\n", names())
    banner, table = fixture_table()
    with pytest.raises(ncu_profile.DataError, match="gpu__time_duration.sum"):
        ncu_profile.parse_ncu_csv(render(banner, without_column(table, ncu_profile.M_DURATION)), names())


# ----------------------------------------------------------------------------------------------
# Aggregation and the join
# ----------------------------------------------------------------------------------------------

def test_naive_launches_of_one_range_are_summed():
    naive = row_of(joined(RAW.read_text()), "naive")
    durations = [launch[0] for launch in NAIVE_LAUNCHES]
    assert naive["launches"] == 3
    assert naive["duration_ms"] == pytest.approx(sum(durations) / 1e6)  # 4.813472 ms
    assert naive["dram_read_bytes"] == sum(launch[1] for launch in NAIVE_LAUNCHES) == 6_652_362_752
    assert naive["dram_write_bytes"] == sum(launch[2] for launch in NAIVE_LAUNCHES) == 6_509_756_416
    assert naive["dram_bytes"] == 6_652_362_752 + 6_509_756_416
    assert naive["smem_bank_conflicts"] == 1024  # the softmax's loads
    assert naive["registers"] == 168  # the most any launch used
    # Utilisations are weighted by duration: the softmax's 2.2 ms at 0 % GMMA pulls it down.
    gmma = sum(launch[0] * launch[3] for launch in NAIVE_LAUNCHES) / sum(durations)
    occupancy = sum(launch[0] * launch[5] for launch in NAIVE_LAUNCHES) / sum(durations)
    assert naive["tensor_pipe_pct"] == pytest.approx(gmma, abs=0.005)  # 17.16
    assert naive["pipe"] == "GMMA"
    assert naive["achieved_occupancy_pct"] == pytest.approx(occupancy, abs=0.005)


def test_a_single_launch_range_and_its_hmma_pipe():
    mma = row_of(joined(RAW.read_text()), "mma")
    assert mma["launches"] == 1
    assert mma["duration_ms"] == pytest.approx(MMA_LAUNCH[0] / 1e6)
    assert mma["dram_bytes"] == MMA_LAUNCH[1] + MMA_LAUNCH[2]
    assert mma["tensor_pipe_pct"] == pytest.approx(71.32)
    assert mma["pipe"] == "HMMA"
    assert mma["smem_bank_conflicts"] == 262_144 + 131_072  # loads + stores
    assert mma["achieved_occupancy_pct"] == pytest.approx(15.87)
    assert mma["registers"] == 128


def test_join_takes_tile_and_model_from_the_explain_rows_in_run_order(capsys):
    data = joined(RAW.read_text(), clock_control="none", ncu_version="2025.3.0.0")
    assert list(data.columns) == ncu_profile.OUTPUT_COLUMNS
    assert list(data["kernel"]) == ["naive", "mma"]  # fa-bench's order, not alphabetical
    mma, naive = row_of(data, "mma"), row_of(data, "naive")
    assert (mma["tile"], naive["tile"]) == ("128x64x128", "-")
    assert (mma["model_bytes"], naive["model_bytes"]) == (MMA_MODEL_BYTES, NAIVE_MODEL_BYTES)
    assert mma["compulsory_bytes"] == naive["compulsory_bytes"] == COMPULSORY_BYTES
    assert mma["measured_over_model"] == pytest.approx((MMA_LAUNCH[1] + MMA_LAUNCH[2]) / MMA_MODEL_BYTES, abs=1e-4)
    assert naive["measured_over_model"] == pytest.approx(13_162_119_168 / NAIVE_MODEL_BYTES, abs=1e-4)
    assert (mma["clock_control"], mma["ncu_version"]) == ("none", "2025.3.0.0")
    assert "wgmma_tma" not in capsys.readouterr().err  # UNSUPPORTED rows had no range to miss


def test_without_range_names_launches_are_attributed_by_order(capsys):
    banner, table = fixture_table()
    by_order = joined(render(banner, without_column(table, NVTX_COLUMN)))
    assert "by order, 3 per naive range" in capsys.readouterr().err
    pd.testing.assert_frame_equal(by_order, joined(RAW.read_text()))


def test_by_order_rung_8_ranges_hold_its_pre_pass_where_it_runs_one():
    # Causal 8,192 rows per K/V head (4,096 x 2 query heads per K/V head): the pre-pass and the
    # kernel; causal 4,096 rows (one head per K/V head): the kernel alone; non-causal 4,096 rows:
    # both again; non-causal 4,095: the kernel.
    fp8_a = ("wgmma_fp8", "Float8E4M3FN", 1, 16, 8, 4096, 4096, 128, 1)
    mma = ("mma", "BFloat16", 1, 16, 16, 4096, 4096, 128, 0)
    fp8_b = ("wgmma_fp8", "Float8E4M3FN", 1, 16, 16, 4096, 4096, 128, 1)
    fp8_c = ("wgmma_fp8", "Float8E4M3FN", 1, 16, 16, 4096, 4096, 128, 0)
    fp8_d = ("wgmma_fp8", "Float8E4M3FN", 1, 16, 16, 4095, 4096, 128, 0)
    # Head_dim 256 takes it from half as many rows: causal 4,096 (both), non-causal 2,047 (the kernel).
    fp8_e = ("wgmma_fp8", "Float8E4M3FN", 1, 16, 16, 4096, 4096, 256, 1)
    fp8_f = ("wgmma_fp8", "Float8E4M3FN", 1, 16, 16, 2047, 4096, 256, 0)
    groups = ncu_profile.attribute_by_order(10, [fp8_a, mma, fp8_b, fp8_c, fp8_d, fp8_e, fp8_f])
    assert groups == [(fp8_a, 0), (fp8_a, 0), (mma, 0), (fp8_b, 0), (fp8_c, 0), (fp8_c, 0), (fp8_d, 0),
                      (fp8_e, 0), (fp8_e, 0), (fp8_f, 0)]
    with pytest.raises(ncu_profile.DataError, match="cannot attribute 5 launches to 3 ranges"):
        ncu_profile.attribute_by_order(5, [fp8_a, mma, fp8_b])


def test_launch_order_that_does_not_split_evenly_exits_2(tmp_path, capsys):
    banner, table = fixture_table()
    raw = write(tmp_path, "raw.csv", render(banner, without_column(table, NVTX_COLUMN)))
    rows = explain_rows()
    rows.append(dict(rows[0], is_causal="1"))  # a second naive range: 3 launches cannot split over 2
    code = ncu_profile.main(["--from-ncu-csv", str(raw), "--explain-csv", str(write_explain(tmp_path, rows))])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("ncu_profile.py: cannot attribute 4 launches to 3 ranges by order")


def test_a_tile_sweep_gives_each_launch_of_a_shared_range_its_own_row(tmp_path):
    rows = explain_rows()
    rows.insert(2, dict(rows[1], m_block_size="64", model_bytes="8.59832e+09"))  # mma, second tile
    banner, table = fixture_table()
    second = list(table[5])
    second[0] = "4"
    second[table[0].index(ncu_profile.M_DURATION)] = "2,000,000"
    data = joined(render(banner, table + [second]), write_explain(tmp_path, rows))
    mma = data[data["kernel"] == "mma"]
    assert list(mma["tile"]) == ["128x64x128", "64x64x128"]
    assert list(mma["duration_ms"]) == pytest.approx([1.375712, 2.0])
    assert list(mma["model_bytes"]) == [MMA_MODEL_BYTES, 8_598_320_000]


@pytest.mark.parametrize("how", ["n/a", "absent"])
def test_a_missing_gmma_metric_is_tolerated(how, capsys):
    banner, table = fixture_table()
    if how == "n/a":
        table = with_cells(table, ncu_profile.M_GMMA, lambda i, _: "n/a")
    else:
        table = without_column(table, ncu_profile.M_GMMA)
    data = joined(render(banner, table))
    assert (row_of(data, "mma")["pipe"], row_of(data, "mma")["tensor_pipe_pct"]) == ("HMMA", pytest.approx(71.32))
    assert (row_of(data, "naive")["pipe"], row_of(data, "naive")["tensor_pipe_pct"]) == ("none", 0.0)
    assert "warning" not in capsys.readouterr().err


def test_explain_rows_without_a_launch_and_ranges_without_explain_rows_are_named(tmp_path, capsys):
    rows = explain_rows()
    rows.append(dict(rows[1], seqlen_q="8192", seqlen_k="8192"))  # explained, never profiled
    data = joined(RAW.read_text(), write_explain(tmp_path, [rows[1], rows[3]]))  # no naive row
    err = capsys.readouterr().err
    assert "range 'naive BFloat16 b4 h16 hkv16 sq4096 sk4096 d128 c0' is not in the explain CSV" in err
    assert "no launch profiled for 'mma BFloat16 b4 h16 hkv16 sq8192 sk8192 d128 c0'" in err
    assert list(data["kernel"]) == ["mma", "naive"]  # explained rows first
    assert pd.isna(row_of(data, "naive")["model_bytes"])
    assert pd.isna(row_of(data, "naive")["measured_over_model"])


# ----------------------------------------------------------------------------------------------
# The command line with --from-ncu-csv: CSV and markdown table
# ----------------------------------------------------------------------------------------------

def test_from_ncu_csv_writes_the_output_csv(tmp_path, capsys):
    out = tmp_path / "sub" / "ncu.csv"
    assert ncu_profile.main(["--from-ncu-csv", str(RAW), "--explain-csv", str(EXPLAIN), "--out", str(out),
                             "--clock-control", "base"]) == 0
    with out.open(newline="") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
    assert reader.fieldnames == ncu_profile.OUTPUT_COLUMNS
    assert [(r["kernel"], r["tile"], r["launches"]) for r in rows] == [("naive", "-", "3"), ("mma", "128x64x128", "1")]
    mma = rows[1]
    assert mma["dram_bytes"] == "282099712"  # integers stay integers
    assert mma["model_bytes"] == str(MMA_MODEL_BYTES)
    assert mma["measured_over_model"] == "0.0637"
    assert (mma["clock_control"], mma["ncu_version"]) == ("base", "")
    assert f"wrote 2 rows to {out}" in capsys.readouterr().out


def test_markdown_table_compares_model_and_measured_bytes(capsys):
    assert ncu_profile.main(["--from-ncu-csv", str(RAW), "--explain-csv", str(EXPLAIN)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Predicted (napkin model) vs measured (ncu) DRAM bytes")
    table = {row["kernel"]: row for row in parse_markdown_table(out)}
    assert list(table) == ["naive", "mma"]
    assert table["mma"] == {
        "kernel": "mma", "shape (B×H×S×D)": "4×16×4096×128", "causal": "0", "tile": "128x64x128",
        "ms": "1.376", "model MB": "4,429.2", "measured MB": "282.1", "measured / model": "0.064",
        "compulsory MB": "268.4", "tensor pipe": "71.3% HMMA", "smem bank conflicts": "393,216",
        "occupancy": "15.9%", "regs": "128"}
    naive = table["naive"]
    assert (naive["model MB"], naive["measured MB"], naive["measured / model"]) == ("13,153.3", "13,162.1", "1.001")
    assert (naive["ms"], naive["tensor pipe"], naive["tile"]) == ("4.813", "17.2% GMMA", "-")


def test_the_table_has_a_dtype_column_only_for_several_dtypes(tmp_path, capsys):
    rows = explain_rows()
    rows.append(dict(rows[1], dtype="Float16"))
    banner, table = fixture_table()
    fp16 = list(table[5])
    fp16[0] = "4"
    at = table[0].index(NVTX_COLUMN)
    fp16[at] = fp16[at].replace("BFloat16", "Float16")
    raw = write(tmp_path, "raw.csv", render(banner, table + [fp16]))
    assert ncu_profile.main(["--from-ncu-csv", str(raw), "--explain-csv", str(write_explain(tmp_path, rows))]) == 0
    table_rows = parse_markdown_table(capsys.readouterr().out)
    assert [(r["kernel"], r["dtype"]) for r in table_rows] == [("naive", "BFloat16"), ("mma", "BFloat16"),
                                                               ("mma", "Float16")]


def test_from_ncu_csv_needs_explain_csv():
    with pytest.raises(SystemExit) as exit_info:
        ncu_profile.main(["--from-ncu-csv", str(RAW)])
    assert exit_info.value.code == 2


@pytest.mark.parametrize("no_gpu", [dict(gpu="none"), dict(kernel="(analytic)")], ids=["today", "older"])
def test_explain_csv_of_a_machine_without_gpu_exits_2(tmp_path, capsys, no_gpu):
    rows = [dict(explain_rows()[0], check="n/a", **no_gpu)]
    code = ncu_profile.main(["--from-ncu-csv", str(RAW), "--explain-csv", str(write_explain(tmp_path, rows))])
    assert code == 2
    assert "saw no CUDA GPU" in capsys.readouterr().err


# ----------------------------------------------------------------------------------------------
# Running: missing ncu, and stand-in ncu / fa-bench executables
# ----------------------------------------------------------------------------------------------

def executable(path: Path, body: str) -> Path:
    path.write_text(f"#!{sys.executable}\n{body}")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def stand_in_fa_bench(tmp_path: Path, explain: Path = EXPLAIN) -> Path:
    """--schema prints the built fa-bench's schema; --explain copies the explain fixture (`explain`)
    to --csv and logs its arguments; otherwise exits 0."""
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(live_schema().data))
    return executable(tmp_path / "fa-bench", f"""
import shutil, sys
args = sys.argv[1:]
if args == ["--schema"]:
    print(open({str(schema)!r}).read())
    sys.exit(0)
with open({str(tmp_path / "fa-bench.calls")!r}, "a") as log:
    log.write(" ".join(args) + "\\n")
if "--explain" in args:
    shutil.copy({str(explain)!r}, args[args.index("--csv") + 1])
    print("kernel dtype B H ... (explain table)")
""")


def stand_in_ncu(tmp_path: Path, mode: str = "ok") -> Path:
    """--version prints a version; a profile call logs its arguments, then by mode: ok writes the
    fixture to --log-file (stdout: to stdout, after a fa-bench line); perm reports ERR_NVGPUCTRPERM;
    fail exits 1 with the app's error; no_gmma rejects the wgmma metric and writes the fixture
    without its column; no_xbar rejects the crossbar metrics and writes the validation fixture
    without their columns."""
    _, table = fixture_table()
    no_gmma = tmp_path / "no_gmma.csv"
    no_gmma.write_text(render(["==PROF== Connected to process 1 (fa-bench)"],
                              without_column(table, ncu_profile.M_GMMA)))
    banner, validation = fixture_table(VALIDATION_RAW)
    no_xbar = tmp_path / "no_xbar.csv"
    no_xbar.write_text(render(banner, without_column(without_column(validation, ncu_profile.M_XBAR_READ),
                                                     ncu_profile.M_XBAR_WRITE)))
    return executable(tmp_path / "ncu", f"""
import pathlib, sys
args = sys.argv[1:]
if args == ["--version"]:
    print("NVIDIA (R) Nsight Compute Command Line Profiler")
    print("Copyright (c) 2018-2025 NVIDIA Corporation")
    print("Version 2025.3.0.0 (build 00000000) (public-release)")
    sys.exit(0)
with open({str(tmp_path / "ncu.calls")!r}, "a") as calls:
    calls.write("\\x1f".join(args) + "\\n")
log = pathlib.Path(args[args.index("--log-file") + 1])
mode = {mode!r}
metrics = args[args.index("--metrics") + 1].split(",")
if mode == "ok":
    log.write_text(pathlib.Path({str(RAW)!r}).read_text())
elif mode == "perm":
    log.write_text("==PROF== Connected to process 1 (fa-bench)\\n==ERROR== ERR_NVGPUCTRPERM - The user does "
                   "not have permission to access NVIDIA GPU Performance Counters on the target device 0.\\n")
    sys.exit(1)
elif mode == "fail":
    log.write_text("==PROF== Connected to process 1 (fa-bench)\\n"
                   "==ERROR== The application returned an error code (1).\\n")
    print("fa-bench: CUDA error: launch: too many resources requested for launch", file=sys.stderr)
    sys.exit(1)
elif mode == "stdout":
    print("device 0: Synthetic GPU (sm_90, 132 SMs)")
    print(pathlib.Path({str(RAW)!r}).read_text())
elif mode == "no_gmma":
    gmma = "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active"
    if gmma in metrics:
        log.write_text("==ERROR== Failed to find metric " + gmma + "\\n")
        sys.exit(1)
    log.write_text(pathlib.Path({str(no_gmma)!r}).read_text())
elif mode == "no_xbar":
    xbar = [m for m in metrics if "xbar" in m]
    if xbar:
        log.write_text("".join("==ERROR== Failed to find metric " + m + "\\n" for m in xbar))
        sys.exit(1)
    log.write_text(pathlib.Path({str(no_xbar)!r}).read_text())
""")


def ncu_calls(tmp_path):
    return [line.split("\x1f") for line in (tmp_path / "ncu.calls").read_text().splitlines()]


def run_main(tmp_path, mode="ok", extra=()):
    fa_bench = stand_in_fa_bench(tmp_path)
    ncu = stand_in_ncu(tmp_path, mode)
    out = tmp_path / "results" / "ncu.csv"
    code = ncu_profile.main(["--fa-bench", str(fa_bench), "--ncu", str(ncu), "--kernel", "mma,naive",
                             "--seqlen_q", "4096", "--seqlen_k", "4096", "--out", str(out), *extra])
    return code, out


def test_missing_ncu_path_exits_2_with_one_line(tmp_path, capsys):
    code = ncu_profile.main(["--ncu", "/nonexistent/ncu", "--fa-bench", str(stand_in_fa_bench(tmp_path)),
                             "--out", str(tmp_path / "ncu.csv")])
    assert code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert captured.err.startswith("ncu_profile.py: ncu not found (no executable at /nonexistent/ncu")
    assert not (tmp_path / "fa-bench.calls").exists()  # nothing ran


def test_no_ncu_on_path_exits_2_from_the_command_line(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    done = subprocess.run([sys.executable, str(SCRIPT), "--out", str(tmp_path / "ncu.csv")], capture_output=True,
                          text=True, env={"PATH": str(empty)})
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "ncu_profile.py: ncu not found (no 'ncu' on PATH; install Nsight Compute or pass --ncu PATH)"]


def test_run_calls_explain_then_ncu_and_saves_the_raw_report(tmp_path, capsys):
    code, out = run_main(tmp_path)
    assert code == 0, capsys.readouterr().err
    explain_call = (tmp_path / "fa-bench.calls").read_text().splitlines()
    assert len(explain_call) == 1  # the profile run is ncu's child, the stand-in ncu does not start it
    assert re.fullmatch(r"--explain --csv \S+/explain\.csv --kernel mma,naive --seqlen_q 4096 --seqlen_k 4096",
                        explain_call[0])

    (call,) = ncu_calls(tmp_path)
    fa_bench_at = call.index(str(tmp_path / "fa-bench"))
    options, child = call[:fa_bench_at], call[fa_bench_at + 1:]
    assert child == ["--profile", "--kernel", "mma,naive", "--seqlen_q", "4096", "--seqlen_k", "4096"]
    assert options[options.index("--nvtx-include") + 1] == "regex:fa-bench@.*/" == live_schema().nvtx_include()
    assert options[options.index("--page") + 1] == "raw"
    assert options[options.index("--print-units") + 1] == "base"
    assert options[options.index("--clock-control") + 1] == "none"
    assert {"--nvtx", "--csv"} <= set(options)
    assert options[options.index("--metrics") + 1].split(",") == ncu_profile.METRICS

    raw = tmp_path / "results" / "ncu.raw.csv"
    lines = raw.read_text().splitlines()
    assert lines[:2] == ["# ncu_profile.py: ncu_version=2025.3.0.0", "# ncu_profile.py: clock_control=none"]
    assert lines[2].startswith("# ncu_profile.py: command=")
    assert lines[3:] == RAW.read_text().splitlines()

    data = pd.read_csv(out, keep_default_na=False)
    assert list(data["kernel"]) == ["naive", "mma"]
    assert set(data["ncu_version"]) == {"2025.3.0.0"} and set(data["clock_control"]) == {"none"}

    # Re-processing the saved report gives the same CSV, version and clock control included.
    again = tmp_path / "again.csv"
    assert ncu_profile.main(["--from-ncu-csv", str(raw), "--explain-csv", str(EXPLAIN), "--out", str(again)]) == 0
    assert again.read_text() == out.read_text()


def test_the_seed_goes_to_the_profiled_run_only(tmp_path, capsys):
    code, _ = run_main(tmp_path, extra=("--seed", "7"))
    assert code == 0, capsys.readouterr().err
    (explain_call,) = (tmp_path / "fa-bench.calls").read_text().splitlines()
    assert "--seed" not in explain_call.split()  # fa-bench --explain refuses a flag it would ignore
    (call,) = ncu_calls(tmp_path)
    child = call[call.index(str(tmp_path / "fa-bench")) + 1:]
    assert child[child.index("--seed") + 1] == "7"


def test_an_explain_csv_pandas_cannot_parse_is_one_line(tmp_path, capsys):
    bad = tmp_path / "explain.csv"
    lines = EXPLAIN.read_text().splitlines()
    bad.write_text("\n".join(lines[:2]) + "\n" + lines[1] + "," + lines[1] + "\n")  # a row glued to the next
    code = ncu_profile.main(["--from-ncu-csv", str(RAW), "--explain-csv", str(bad)])
    assert code == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and f"{bad}: not a CSV file fa-bench wrote" in err[0]


def test_clock_control_base_is_passed_to_ncu(tmp_path):
    code, out = run_main(tmp_path, extra=["--clock-control", "base"])
    assert code == 0
    (call,) = ncu_calls(tmp_path)
    assert call[call.index("--clock-control") + 1] == "base"
    assert set(pd.read_csv(out)["clock_control"]) == {"base"}


def test_counters_not_permitted_exits_1(tmp_path, capsys):
    code, out = run_main(tmp_path, mode="perm")
    assert code == 1
    err = capsys.readouterr().err
    assert "not permitted to read the GPU performance counters (ERR_NVGPUCTRPERM)" in err
    assert not out.exists()


def test_ncu_failure_shows_its_last_lines_and_exits_1(tmp_path, capsys):
    code, out = run_main(tmp_path, mode="fail")
    assert code == 1
    err = capsys.readouterr().err
    assert "ncu_profile.py: ncu failed (exit 1); its last lines:" in err
    assert "==ERROR== The application returned an error code (1)." in err
    assert "fa-bench: CUDA error: launch: too many resources requested for launch" in err
    assert not out.exists()


def test_a_gpu_without_the_wgmma_metric_is_profiled_again_without_it(tmp_path, capsys):
    code, out = run_main(tmp_path, mode="no_gmma")
    assert code == 0
    calls = ncu_calls(tmp_path)
    assert len(calls) == 2
    assert ncu_profile.M_GMMA not in calls[1][calls[1].index("--metrics") + 1]
    assert "ncu rejected sm__pipe_tensor_op_gmma" in capsys.readouterr().err
    data = pd.read_csv(out)
    assert list(data["pipe"]) == ["none", "HMMA"]


def test_ncu_is_asked_for_the_crossbar_bytes_and_profiles_again_without_them_if_it_rejects_them(tmp_path, capsys):
    code, _ = run_main(tmp_path)
    assert code == 0
    metrics = ncu_calls(tmp_path)[0][ncu_calls(tmp_path)[0].index("--metrics") + 1].split(",")
    assert {ncu_profile.M_XBAR_READ, ncu_profile.M_XBAR_WRITE, ncu_profile.M_L2_SM_SECTORS} <= set(metrics)
    (tmp_path / "ncu.calls").unlink()
    capsys.readouterr()
    fa_bench, ncu = stand_in_fa_bench(tmp_path, VALIDATION_EXPLAIN), stand_in_ncu(tmp_path, "no_xbar")
    out = tmp_path / "results" / "xbar.csv"
    assert ncu_profile.main(["--fa-bench", str(fa_bench), "--ncu", str(ncu), "--kernel", "mma,wgmma_overlap",
                             "--out", str(out), "--table", "validation"]) == 0
    calls = ncu_calls(tmp_path)
    assert len(calls) == 2
    assert not [m for m in calls[1][calls[1].index("--metrics") + 1].split(",") if "xbar" in m]
    captured = capsys.readouterr()
    assert "ncu rejected l1tex__m_xbar2l1tex_read_bytes.sum, l1tex__m_l1tex2xbar_write_bytes.sum" in captured.err
    assert "no column for" not in captured.err
    assert "† lts__t_sectors_srcunit_tex × 32 B" in captured.out
    assert list(pd.read_csv(out)["l2_sm_counter"]) == ["lts_tex", "lts_tex"]


def test_a_report_printed_to_stdout_instead_of_the_log_file_is_used(tmp_path):
    code, out = run_main(tmp_path, mode="stdout")
    assert code == 0
    assert list(pd.read_csv(out)["kernel"]) == ["naive", "mma"]
    assert "device 0: Synthetic GPU" in (tmp_path / "results" / "ncu.raw.csv").read_text()


# ----------------------------------------------------------------------------------------------
# Model v2 validation: predicted HBM and L2->SM bytes against ncu (--preset validation)
# ----------------------------------------------------------------------------------------------

VALIDATION_RAW = DATA / "ncu_raw_validation_synthetic.csv"
VALIDATION_EXPLAIN = DATA / "explain_validation_synthetic.csv"
MODEL_HBM_BYTES = 268_435_000  # "2.68435e+08": the compulsory bytes, the K/V of the heads in flight fit the L2
MODEL_L2_BYTES = 4_429_190_000  # "4.42919e+09": K/V once per 128-row tile
O_BYTES = 4 * 16 * 4096 * 128 * 2  # 67,108,864: the bf16 O every rung writes
MODEL_READ_BYTES = MODEL_L2_BYTES - O_BYTES  # 4,362,081,136
# The fixture's crossbar bytes (read, write) and L2 sectors of the SMs.
MMA_XBAR = (5_670_705_477, O_BYTES)  # reads 1.30 x the model's
OVERLAP_XBAR = (4_362_076_160, O_BYTES)  # an H100's reading: the model's reads
MMA_SECTORS, OVERLAP_SECTORS = 145_333_547, 96_889_031  # 1.05 and 0.70 x model_bytes


def validation_data(text=None):
    report = ncu_profile.parse_ncu_csv(VALIDATION_RAW.read_text() if text is None else text, names(), "fixture")
    return ncu_profile.join_with_explain(report, ncu_profile.read_explain_csv(VALIDATION_EXPLAIN), "none", "")


def validation_without_xbar():
    """The validation fixture as a report from before the crossbar counters."""
    banner, table = fixture_table(VALIDATION_RAW)
    for metric in (ncu_profile.M_XBAR_READ, ncu_profile.M_XBAR_WRITE):
        table = without_column(table, metric)
    return render(banner, table)


def test_validation_compares_dram_with_the_hbm_term_and_the_crossbar_bytes_with_the_l2_term():
    data = validation_data()
    mma, overlap = (data[data["kernel"] == k].iloc[0] for k in ("mma", "wgmma_overlap"))
    assert mma["model_hbm_bytes"] == MODEL_HBM_BYTES and mma["model_bytes"] == MODEL_L2_BYTES
    # DRAM: 214,958,080 + 67,141,632 = 282,099,712 B.
    assert mma["measured_over_model"] == pytest.approx(282_099_712 / MODEL_HBM_BYTES, abs=1e-4)
    # L2->SM: the crossbar's read + write bytes; the L2's sectors · 32 B beside them.
    assert (mma["l2_sm_read_bytes"], mma["l2_sm_write_bytes"]) == MMA_XBAR
    assert mma["l2_sm_bytes"] == sum(MMA_XBAR) == 5_737_814_341
    assert mma["l2_sm_counter"] == "xbar"
    assert mma["l2_tex_sector_bytes"] == MMA_SECTORS * 32 == 4_650_673_504
    assert mma["l2_sm_over_model"] == pytest.approx(sum(MMA_XBAR) / MODEL_L2_BYTES, abs=1e-4)  # 1.2955
    assert mma["l2_bytes"] == 9_500_000_000
    assert overlap["measured_over_model"] == pytest.approx(259_588_096 / MODEL_HBM_BYTES, abs=1e-4)
    assert overlap["l2_sm_bytes"] == sum(OVERLAP_XBAR)
    assert overlap["l2_sm_over_model"] == pytest.approx(1.0, abs=1e-4)
    assert overlap["l2_tex_sector_bytes"] == OVERLAP_SECTORS * 32


def test_the_reads_are_set_against_the_model_bytes_less_o():
    data = validation_data()
    mma, overlap = (data[data["kernel"] == k].iloc[0] for k in ("mma", "wgmma_overlap"))
    assert mma["l2_sm_read_over_model"] == pytest.approx(1.30, abs=1e-4)
    # Against model_bytes (not less O) it would read 0.9848, 1.5 % off; the fixture matches to 5 kB.
    assert overlap["l2_sm_read_over_model"] == pytest.approx(OVERLAP_XBAR[0] / MODEL_READ_BYTES, abs=1e-4)
    assert overlap["l2_sm_read_over_model"] == pytest.approx(1.0, abs=2e-6)


@pytest.mark.parametrize("dtype,element", [("BFloat16", 2), ("Float16", 2), ("Float32", 4), ("Float8E4M3FN", 2)])
def test_o_bytes_follow_the_output_dtype_fp8_writing_bf16(dtype, element, schema):
    row = {"dtype": dtype, "batch_size": 4, "num_head": 16, "seqlen_q": 4096, "head_dim": 128}
    assert ncu_profile.output_bytes(row, schema) == 4 * 16 * 4096 * 128 * element
    # GQA: O has the query heads; Sk plays no part.
    decode = {"dtype": dtype, "batch_size": 1, "num_head": 32, "num_head_kv": 8, "seqlen_q": 1,
              "seqlen_k": 131072, "head_dim": 128}
    assert ncu_profile.output_bytes(decode, schema) == 32 * 128 * element
    assert pd.isna(ncu_profile.output_bytes({**row, "dtype": "Float4"}, schema))
    assert pd.isna(ncu_profile.output_bytes(row, None))


def test_a_report_without_the_crossbar_counters_falls_back_to_the_l2_sectors(capsys):
    data = validation_data(validation_without_xbar())
    assert "no column for" not in capsys.readouterr().err  # optional: not worth a warning
    mma, overlap = (data[data["kernel"] == k].iloc[0] for k in ("mma", "wgmma_overlap"))
    assert list(data["l2_sm_counter"]) == ["lts_tex", "lts_tex"]
    assert mma["l2_sm_bytes"] == mma["l2_tex_sector_bytes"] == MMA_SECTORS * 32
    assert mma["l2_sm_over_model"] == pytest.approx(1.05, abs=1e-4)
    assert overlap["l2_sm_over_model"] == pytest.approx(0.70, abs=1e-4)
    assert pd.isna(mma["l2_sm_read_bytes"]) and pd.isna(mma["l2_sm_write_bytes"])
    assert pd.isna(mma["l2_sm_read_over_model"])
    printed = ncu_profile.validation_table(data)
    table = {row["kernel"]: row for row in parse_markdown_table(printed)}
    assert table["mma"]["L2→SM measured MB"] == "4,650.7 †" and table["mma"]["within 20 %"] == "yes"
    assert table["wgmma_overlap"]["within 20 %"] == "no: L2"
    assert table["mma"]["reads / model reads"] == "—"
    assert "† lts__t_sectors_srcunit_tex × 32 B: the report has no crossbar counters" in printed
    # Neither counter: no L2->SM bytes, no counter named.
    banner, stripped = fixture_table(VALIDATION_RAW)
    for metric in (ncu_profile.M_XBAR_READ, ncu_profile.M_XBAR_WRITE, ncu_profile.M_L2_SM_SECTORS):
        stripped = without_column(stripped, metric)
    neither = validation_data(render(banner, stripped))
    assert neither["l2_sm_bytes"].isna().all() and list(neither["l2_sm_counter"].fillna("")) == ["", ""]
    assert "†" not in ncu_profile.validation_table(neither)


def test_the_validation_table_marks_what_agrees_within_20_percent():
    printed = ncu_profile.validation_table(validation_data())
    assert printed.splitlines()[0] == (
        "| kernel | shape (B×H×Sq/Sk×D) | causal | tile | HBM model MB | DRAM measured MB | DRAM / model | "
        "L2→SM model MB | L2→SM measured MB | L2→SM / model | reads / model reads | lts tex MB | within 20 % |")
    table = {row["kernel"]: row for row in parse_markdown_table(printed)}
    assert table["mma"] == {
        "kernel": "mma", "shape (B×H×Sq/Sk×D)": "4×16×4096×128", "causal": "0", "tile": "128x32x128",
        "HBM model MB": "268.4", "DRAM measured MB": "282.1", "DRAM / model": "1.051",
        "L2→SM model MB": "4,429.2", "L2→SM measured MB": "5,737.8", "L2→SM / model": "1.296",
        "reads / model reads": "1.300", "lts tex MB": "4,650.7", "within 20 %": "no: L2"}
    assert table["wgmma_overlap"]["L2→SM measured MB"] == "4,429.2"
    assert table["wgmma_overlap"]["L2→SM / model"] == "1.000"
    assert table["wgmma_overlap"]["reads / model reads"] == "1.000"
    assert table["wgmma_overlap"]["lts tex MB"] == "3,100.4"
    assert table["wgmma_overlap"]["within 20 %"] == "yes"
    assert "†" not in printed
    assert ncu_profile.within(1.25, float("nan")) == "no: DRAM"
    assert ncu_profile.within(float("nan"), float("nan")) == "—"


def test_an_explain_csv_from_before_model_v2_compares_dram_with_model_bytes():
    data = validation_data()
    older = ncu_profile.read_explain_csv(EXPLAIN)  # no model_hbm_bytes column
    assert "model_hbm_bytes" not in older.columns
    report = ncu_profile.parse_ncu_csv(RAW.read_text(), names(), "fixture")
    mma = row_of(ncu_profile.join_with_explain(report, older, "none", ""), "mma")
    assert pd.isna(mma["model_hbm_bytes"]) and pd.isna(mma["l2_sm_over_model"])
    assert pd.isna(mma["l2_sm_read_over_model"])
    assert len(data) == 2


def test_from_ncu_csv_prints_the_validation_table(tmp_path, capsys):
    out = tmp_path / "validation.csv"
    assert ncu_profile.main(["--from-ncu-csv", str(VALIDATION_RAW), "--explain-csv", str(VALIDATION_EXPLAIN),
                             "--table", "validation", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("Model v2 against ncu, per rung")
    assert [row["kernel"] for row in parse_markdown_table(printed)] == ["mma", "wgmma_overlap"]
    written = pd.read_csv(out)
    assert list(written.columns) == ncu_profile.OUTPUT_COLUMNS
    assert list(written["l2_sm_bytes"]) == [sum(MMA_XBAR), sum(OVERLAP_XBAR)]
    assert list(written["l2_sm_read_bytes"]) == [MMA_XBAR[0], OVERLAP_XBAR[0]]
    assert list(written["l2_sm_write_bytes"]) == [O_BYTES, O_BYTES]
    assert list(written["l2_tex_sector_bytes"]) == [MMA_SECTORS * 32, OVERLAP_SECTORS * 32]
    assert list(written["l2_sm_counter"]) == ["xbar", "xbar"]
    assert list(written["l2_sm_read_over_model"]) == pytest.approx([1.30, 1.0], abs=1e-4)
    assert "crossbar" in printed.splitlines()[0]


def test_the_validation_preset_profiles_three_shapes_of_every_rung(tmp_path, capsys):
    args = ncu_profile.build_parser().parse_args(["--preset", "validation", "--out", str(tmp_path / "v.csv")])
    sets = ncu_profile.preset_flag_sets(args)
    assert len(sets) == 3 and all(flags[:2] == ["--kernel", "all"] for flags in sets)
    assert sets[2][sets[2].index("--num_head_kv") + 1] == "8" and sets[2][sets[2].index("--seqlen_q") + 1] == "1"
    given = ncu_profile.build_parser().parse_args(["--preset", "validation", "--head_dim", "64"])
    with pytest.raises(ncu_profile.DataError, match="--preset validation sets the problem: leave out --head_dim"):
        ncu_profile.preset_flag_sets(given)
    # With stand-ins: one explain and one ncu call per shape, a raw report each, one table.
    code, out = run_main(tmp_path, extra=("--preset", "validation"))
    assert code == 2  # the stand-in's problem flags (--seqlen_q) are refused with the preset
    fa_bench = stand_in_fa_bench(tmp_path)
    ncu = stand_in_ncu(tmp_path)
    out = tmp_path / "results" / "validation.csv"
    capsys.readouterr()
    assert ncu_profile.main(["--fa-bench", str(fa_bench), "--ncu", str(ncu), "--preset", "validation",
                             "--out", str(out)]) == 0
    assert len(ncu_calls(tmp_path)) == 3
    assert [(tmp_path / "results" / f"validation.{n}.raw.csv").is_file() for n in range(3)] == [True] * 3
    assert capsys.readouterr().out.startswith("Model v2 against ncu, per rung")
