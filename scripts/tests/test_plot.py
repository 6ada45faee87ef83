"""plot.py on the synthetic sample CSV (results/sample/ladder_sample.csv).

The sample has three BFloat16 shapes on an "H100": 16×16×1024×128 and 4×16×4096×128 (fa2 grid,
16k tokens) and 4×16×8192×128 (the default), with naive/tiled/mma, torch_fa2/torch_cudnn, a
cp_async row that FAILed its check (and claims an impossible 900 TFLOP/s), a torch_efficient
row that the backend refused (no time), and fa4 and cute_fa2 rows at the default shape. Its
columns are fa-bench's (the test in test_peers.py checks them against the built binary).

The kernel order comes from the built fa-bench's --schema (conftest.py finds the binary).
"""
import csv
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

import plot
from peer_backends import peer_kernels

REPO_ROOT = Path(__file__).resolve().parents[2]
SAMPLE = REPO_ROOT / "results" / "sample" / "ladder_sample.csv"
CHARTS = ("throughput_vs_seqlen", "ladder", "roofline")


def sample_rows():
    with SAMPLE.open(newline="") as f:
        return list(csv.DictReader(f))


def write_csv(path, rows, columns):
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return path


def parse_markdown_table(text):
    """Markdown table -> list of {header: cell}, skipping the |---| rule."""
    lines = [line for line in text.splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    return [dict(zip(header, (cell.strip() for cell in line.strip("|").split("|")))) for line in lines[2:]]


def test_every_chart_is_written_as_png_and_svg(tmp_path, capsys):
    assert plot.main([str(SAMPLE), "--out", str(tmp_path)]) == 0
    for stem in CHARTS:
        png, svg = tmp_path / f"{stem}.png", tmp_path / f"{stem}.svg"
        assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n"), stem
        assert png.stat().st_size > 5000, stem  # a real chart, not an empty canvas
        assert b"<svg" in svg.read_bytes()[:4000], stem
    printed = capsys.readouterr().out.split()
    assert sorted(printed) == sorted(str(tmp_path / f"{s}.{ext}") for s in CHARTS for ext in ("png", "svg"))


def test_table_percentages_are_computed_from_the_sample(capsys):
    assert plot.main([str(SAMPLE), "--table"]) == 0
    table = parse_markdown_table(capsys.readouterr().out)

    # Expected values straight from the CSV text, independently of pandas.
    tflops = defaultdict(dict)  # (B, H, S, D, causal) -> {kernel: TFLOP/s}
    for row in sample_rows():
        if row["check"] != "FAIL" and row["tflops"]:
            key = tuple(row[c] for c in ("batch_size", "num_head", "seqlen_q", "head_dim", "is_causal"))
            tflops[key][row["kernel"]] = float(row["tflops"])
    expected = {}
    for (b, h, s, d, causal), kernels in tflops.items():
        for kernel, value in kernels.items():
            expected[(f"{b}×{h}×{s}×{d}", causal, kernel)] = (
                f"{value:.1f}",
                f"{100 * value / kernels['torch_fa2']:.1f}%",
                f"{100 * value / kernels['torch_cudnn']:.1f}%",
            )
    got = {(r["shape (B×H×S×D)"], r["causal"], r["kernel"]):
           (r["TFLOP/s"], r["% of torch_fa2"], r["% of torch_cudnn"]) for r in table}
    assert got == expected
    # Spelled out once, for the reader: mma 300 vs fa2 400 and cuDNN 500 TFLOP/s.
    assert got[("4×16×8192×128", "0", "mma")] == ("300.0", "75.0%", "60.0%")


def test_table_lists_kernels_in_ladder_order_then_peers(capsys):
    assert plot.main([str(SAMPLE), "--table", "--shape", "4,16,8192,128,0"]) == 0
    kernels = [r["kernel"] for r in parse_markdown_table(capsys.readouterr().out)]
    assert kernels == ["naive", "tiled", "mma", "torch_fa2", "torch_cudnn", "fa4", "cute_fa2"]


def test_fail_rows_are_excluded_with_a_warning(capsys):
    data = plot.select_rows(plot.read_csvs([str(SAMPLE)], plot.BASE_COLUMNS), "BFloat16", None)
    assert "cp_async" not in set(data["kernel"])
    warning = capsys.readouterr().err
    assert "excluding 1 row with check=FAIL" in warning and "cp_async 4×16×8192×128" in warning

    assert plot.main([str(SAMPLE), "--table"]) == 0
    out, err = capsys.readouterr()
    assert "cp_async" not in out and "check=FAIL" in err


def test_refused_backend_rows_without_time_are_skipped():
    data = plot.select_rows(plot.read_csvs([str(SAMPLE)], plot.BASE_COLUMNS), "BFloat16", None)
    assert "torch_efficient" not in set(data["kernel"])  # its only row has no time
    assert data["tflops"].notna().all()


def test_missing_column_exits_2_with_one_line(tmp_path, capsys):
    columns = [c for c in sample_rows()[0] if c != "tflops"]
    path = write_csv(tmp_path / "no_tflops.csv", sample_rows(), columns)
    assert plot.main([str(path), "--table"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"plot.py: {path}: missing column tflops (needed for the chosen output)"]


def test_missing_column_exit_status_from_the_command_line(tmp_path):
    columns = [c for c in sample_rows()[0] if c != "kernel"]
    path = write_csv(tmp_path / "no_kernel.csv", sample_rows(), columns)
    done = subprocess.run([sys.executable, str(REPO_ROOT / "scripts" / "plot.py"), str(path), "--table"],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip() == f"plot.py: {path}: missing column kernel (needed for the chosen output)"


def test_roofline_needs_arithmetic_intensity_but_the_table_does_not(tmp_path, capsys):
    columns = [c for c in sample_rows()[0] if c != "arithmetic_intensity"]
    path = write_csv(tmp_path / "no_ai.csv", sample_rows(), columns)
    assert plot.main([str(path), "--table"]) == 0
    assert plot.main([str(path), "--out", str(tmp_path / "plots"), "--plots", "roofline"]) == 2
    assert "missing column arithmetic_intensity" in capsys.readouterr().err


def test_missing_file_exits_2(tmp_path, capsys):
    assert plot.main([str(tmp_path / "absent.csv"), "--table"]) == 2
    assert capsys.readouterr().err.strip() == f"plot.py: no such file: {tmp_path / 'absent.csv'}"


def test_extra_model_columns_are_accepted_and_peaks_come_from_them(tmp_path, capsys):
    rows = sample_rows()
    for row in rows:
        row.update(model_bytes="1", bound_ms="2", pct_of_bound="50", peak_tflops="900", peak_gbs="3000",
                   peak_source="synthetic peaks")
    columns = list(rows[0])
    path = write_csv(tmp_path / "with_model.csv", rows, columns)
    data = plot.select_rows(plot.read_csvs([str(path)], plot.BASE_COLUMNS), "BFloat16", None)
    assert plot.peak_ceilings(data, None, None) == (900.0, 3000.0, "CSV: synthetic peaks")
    assert plot.peak_ceilings(data, 500.0, None) == (500.0, 3000.0, "--peak flags")
    assert plot.main([str(path), "--out", str(tmp_path / "plots"), "--plots", "roofline"]) == 0
    assert (tmp_path / "plots" / "roofline.png").stat().st_size > 0


def test_peaks_default_to_the_h100_ceilings():
    data = plot.select_rows(plot.read_csvs([str(SAMPLE)], plot.BASE_COLUMNS), "BFloat16", None)
    tflops, gbs, _ = plot.peak_ceilings(data, None, None)
    assert (tflops, gbs) == (761.0, 2966.0)


def test_rows_from_two_gpus_need_a_gpu_filter(tmp_path, capsys):
    rows = sample_rows()
    other = [dict(row, gpu="NVIDIA H200") for row in rows]
    path = write_csv(tmp_path / "two_gpus.csv", rows + other, list(rows[0]))
    assert plot.main([str(path), "--table"]) == 2
    assert "several GPUs" in capsys.readouterr().err
    assert plot.main([str(path), "--table", "--gpu", "H200"]) == 0


def test_unknown_ladder_shape_names_the_shapes_present(tmp_path, capsys):
    assert plot.main([str(SAMPLE), "--out", str(tmp_path), "--plots", "ladder", "--shape", "1,1,64,64,1"]) == 2
    err = capsys.readouterr().err
    assert "no BFloat16 rows for shape 1×1×64×64 causal" in err and "4,16,8192,128,0" in err


def test_kernel_order_is_fa_benchs_ladder_then_unknown_then_peers(schema):
    order = plot.KernelOrder.of(schema)
    assert order.rungs == tuple(schema.rung_order) and order.peers == tuple(peer_kernels())
    kernels = ["cute_fa2", "torch_cudnn", "mma", "zeta", "naive", "fa4", "wgmma_tma", "torch_fa2", "torch_new",
               "tiled"]
    assert order.ordered(kernels) == [
        "naive", "tiled", "mma", "wgmma_tma", "torch_new", "zeta", "torch_fa2", "torch_cudnn", "fa4", "cute_fa2"]
    assert order.is_peer("fa4") and not order.is_peer("mma") and not order.is_peer("torch_new")


def test_every_peer_has_a_style_of_its_own_and_rungs_share_one(schema):
    order = plot.KernelOrder.of(schema)
    styles = plot.kernel_styles([*schema.rung_order, *peer_kernels()], order)
    peer_styles = [(styles[k].linestyle, styles[k].marker, styles[k].hatch) for k in peer_kernels()]
    assert len(set(peer_styles)) == len(peer_styles)
    assert all(styles[k].peer and styles[k].linestyle != "-" and styles[k].marker != "o" for k in peer_kernels())
    assert {(styles[k].linestyle, styles[k].marker, styles[k].hatch) for k in schema.rung_order} == {("-", "o", None)}
    assert len({styles[k].color for k in styles}) == len(styles)


def test_a_csv_of_an_older_fa_bench_reads_by_column_name(tmp_path, capsys):
    # fa-bench before its model columns wrote 37 of today's columns: plot.py goes by name.
    rows = sample_rows()
    older = [c for c in rows[0] if c not in ("model_bytes", "bound_ms", "pct_of_bound", "bound_term", "peak_source",
                                             "peak_tflops", "peak_gbs", "smem_per_cta", "regs_per_thread",
                                             "ctas_per_sm", "waves")]
    path = write_csv(tmp_path / "older.csv", rows, older[::-1])  # and in another order
    assert plot.main([str(path), "--table", "--shape", "4,16,8192,128,0"]) == 0
    assert [r["kernel"] for r in parse_markdown_table(capsys.readouterr().out)][:3] == ["naive", "tiled", "mma"]


def test_rows_of_two_schemas_in_one_file_are_one_line_not_a_traceback(tmp_path, capsys):
    # What an append under another header used to leave: a 37-column header, 48-column rows.
    rows = sample_rows()
    columns = list(rows[0])
    older = [c for c in columns if c not in ("model_bytes", "bound_ms", "pct_of_bound", "bound_term", "peak_source",
                                             "peak_tflops", "peak_gbs", "smem_per_cta", "regs_per_thread",
                                             "ctas_per_sm", "waves")]
    path = write_csv(tmp_path / "mixed.csv", rows[:2], older)
    with path.open("a", newline="") as f:
        csv.writer(f, lineterminator="\n").writerow([rows[2][c] for c in columns])
    assert plot.main([str(path), "--table"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"plot.py: {path}: not a CSV file fa-bench wrote (")


def test_a_saved_schema_replaces_the_binary(schema, tmp_path, monkeypatch, capsys):
    saved = tmp_path / "schema.json"
    saved.write_text(json.dumps(schema.data))
    monkeypatch.setenv("FA_BENCH", str(tmp_path / "absent"))
    assert plot.main([str(SAMPLE), "--table", "--schema-json", str(saved)]) == 0
    capsys.readouterr()
    assert plot.main([str(SAMPLE), "--table"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"plot.py: fa-bench not found: {tmp_path / 'absent'} ($FA_BENCH) is not an executable file"]


def test_dtype_names_are_fa_benchs(capsys):
    with pytest.raises(SystemExit) as exit_info:
        plot.main([str(SAMPLE), "--table", "--dtype", "Float8"])
    assert exit_info.value.code == 2
    assert "--dtype Float8: must be one of Float16, BFloat16, Float32" in capsys.readouterr().err


@pytest.mark.parametrize("text", ["4,16,8192,128", "4,16,8192,128,2", "a,b,c,d,e"])
def test_bad_shape_flag_is_a_usage_error(text):
    with pytest.raises(SystemExit) as exit_info:
        plot.main([str(SAMPLE), "--table", "--shape", text])
    assert exit_info.value.code == 2
