"""plot.py on the synthetic sample CSV (results/sample/ladder_sample.csv).

The sample has three BFloat16 shapes on an "H100": 16×16×1024×128 and 4×16×4096×128 (fa2 grid,
16k tokens) and 4×16×8192×128 (the default), with naive/tiled/mma, torch_fa2/torch_cudnn, a
cp_async row that FAILed its check (and claims an impossible 900 TFLOP/s), a torch_efficient
row that the backend refused (no time), and fa4 and cute_fa2 rows at the default shape. Its
columns are fa-bench's (the test in test_peers.py checks them against the built binary).

The decode chart and table read scripts/tests/data/decode_synthetic.csv (made by
make_decode_synthetic.py beside it): peers.py --grid decode's problems with made-up times for
tiled, mma, wgmma_overlap and the peers torch_fa2, torch_cudnn and fa4 (plus an FA4 row refused for
lack of split-KV), fa-bench's rows carrying a "calibrated" copy of 2995.3 GB/s (practical_gbs).

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
import fa_schema
from peer_backends import peer_kernels
from peer_backends.common import DECODE_ANCHOR_SHAPES, Problem

REPO_ROOT = Path(__file__).resolve().parents[2]
SAMPLE = REPO_ROOT / "results" / "sample" / "ladder_sample.csv"
CHARTS = ("throughput_vs_seqlen", "ladder", "roofline")
DECODE = Path(__file__).resolve().parent / "data" / "decode_synthetic.csv"
DECODE_CEILING = 2995.3  # the synthetic fa-bench rows' practical_gbs


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


def test_wide_table_has_one_line_per_shape_and_the_best_against_the_best_peer(capsys):
    assert plot.main([str(SAMPLE), "--wide-table"]) == 0
    table = parse_markdown_table(capsys.readouterr().out)

    # Expected values straight from the CSV text, independently of pandas (FAIL rows and rows
    # without a time are left out, as in every mode).
    tflops = defaultdict(dict)  # (D, causal, "B×H×S") -> {kernel: TFLOP/s}
    for row in sample_rows():
        if row["check"] != "FAIL" and row["tflops"]:
            key = (row["head_dim"], row["is_causal"], f"{row['batch_size']}×{row['num_head']}×{row['seqlen_q']}")
            tflops[key][row["kernel"]] = max(float(row["tflops"]), tflops[key].get(row["kernel"], 0.0))
    assert len(table) == len(tflops)
    peers = set(plot.peer_kernels())
    for r in table:
        kernels = tflops[(r["D"], r["causal"], r["B×H×S"])]
        for kernel in [c for c in r if c not in ("D", "causal", "B×H×S", "best fa-bench / best peer")]:
            assert r[kernel] == (f"{kernels[kernel]:.0f}" if kernel in kernels else "–")
        ours = [v for k, v in kernels.items() if k not in peers]
        theirs = [v for k, v in kernels.items() if k in peers]
        assert r["best fa-bench / best peer"] == f"{100 * max(ours) / max(theirs):.0f}%"
    # Spelled out once: at 4×16×8192×128 the best rung is mma (300), the best peer fa4 (600).
    row = next(r for r in table if (r["D"], r["causal"], r["B×H×S"]) == ("128", "0", "4×16×8192"))
    assert (row["mma"], row["fa4"], row["best fa-bench / best peer"]) == ("300", "600", "50%")


def test_wide_table_is_one_table_at_a_time_too(capsys):
    with pytest.raises(SystemExit) as exit_info:
        plot.main([str(SAMPLE), "--table", "--wide-table"])
    assert exit_info.value.code == 2
    assert "one table at a time" in capsys.readouterr().err


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


def test_peaks_are_the_csvs_model_ceilings_else_the_h100s():
    data = plot.select_rows(plot.read_csvs([str(SAMPLE)], plot.BASE_COLUMNS), "BFloat16", None)
    # The sample's rows carry model v2's H100 ceilings (scripts/remodel.py): 132 · 4096 · 1.98 GHz
    # of bf16 tensor math, 2 · 2619 MHz · 5120 bit of HBM3; the FP32 rungs' 66.9 is not the roofline's.
    tflops, gbs, source = plot.peak_ceilings(data, None, None)
    assert (tflops, gbs) == (1070.53, 3352.32)
    assert source == "CSV: table:NVIDIA H100 80GB HBM3"
    bare = data.drop(columns=["peak_tflops", "peak_gbs"])
    assert plot.peak_ceilings(bare, None, None)[:2] == (1070.5, 3352.3)


def test_the_sfu_ceiling_is_four_head_dim_flops_per_exponential():
    data = plot.select_rows(plot.read_csvs([str(SAMPLE)], plot.BASE_COLUMNS), "BFloat16", None)
    # H100: 132 SMs · 16 exp2/clk · 1.98 GHz = 4.18176e12 /s, each worth 4 · 128 FLOP at D = 128.
    assert plot.sfu_ceilings(data) == {128: pytest.approx(4.18176e12 * 4 * 128 / 1e12, rel=1e-5)}
    assert plot.sfu_ceilings(data.drop(columns=["t_sfu_ms"])) == {}


def test_the_roofline_draws_the_sfu_ceiling(monkeypatch, tmp_path):
    figures = []
    monkeypatch.setattr(plot, "save_figure", lambda fig, out_dir, stem: figures.append((fig, stem)) or [])
    assert plot.main([str(SAMPLE), "--plots", "roofline", "--out", str(tmp_path)]) == 0
    [(fig, stem)] = figures
    labels = [line.get_label() for line in fig.axes[0].get_lines()]
    assert "SFU exp2 ceiling, D=128" in labels


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


# ----------------------------------------------------------------------------------------------
# GQA rows and the decode chart and table
# ----------------------------------------------------------------------------------------------

def decode_rows():
    with DECODE.open(newline="") as f:
        return list(csv.DictReader(f))


def test_decode_csv_is_synthetic_in_fa_benchs_columns_with_its_analytic_values(schema):
    rows = decode_rows()
    assert list(rows[0]) == schema.columns  # regenerate with make_decode_synthetic.py when this fails
    problems = {Problem(int(r["batch_size"]), int(r["seqlen_q"]), int(r["seqlen_k"]), int(r["num_head"]),
                        int(r["head_dim"]), r["is_causal"] == "1", r["dtype"], int(r["num_head_kv"])): r for r in rows}
    analytic = fa_schema.analytic_rows(schema.fa_bench, [p.key for p in problems])
    for row in rows:
        assert "synthetic test data" in row["note"]
        p = Problem(int(row["batch_size"]), int(row["seqlen_q"]), int(row["seqlen_k"]), int(row["num_head"]),
                    int(row["head_dim"]), row["is_causal"] == "1", row["dtype"], int(row["num_head_kv"]))
        assert (row["flops"], row["compulsory_bytes"]) == (analytic[p.key]["flops"], analytic[p.key]["compulsory_bytes"])


def expected_decode_table():
    """The decode table's lines computed from the CSV text alone: per anchor shape and K/V heads,
    the fastest rung and the fastest peer by compulsory bytes / median time."""
    rungs = {"tiled", "mma", "wgmma_overlap"}
    best = defaultdict(dict)  # (B, H, Sq, Sk, D, H_kv) -> {"ours"/"peer": (GB/s, kernel)}
    for row in decode_rows():
        if not row["time_ms_median"] or row["is_causal"] != "0":
            continue
        key = tuple(int(row[c]) for c in ("batch_size", "num_head", "seqlen_q", "seqlen_k", "head_dim",
                                           "num_head_kv"))
        if key[:5] not in DECODE_ANCHOR_SHAPES:
            continue
        gbs = int(row["compulsory_bytes"]) / (float(row["time_ms_median"]) * 1e6)
        side = "ours" if row["kernel"] in rungs else "peer"
        best[key][side] = max(best[key].get(side, (0.0, "")), (gbs, row["kernel"]))
    lines = {}
    for (b, h, sq, sk, d, kv), sides in best.items():
        (ours, our_kernel), (peer, peer_kernel) = sides["ours"], sides["peer"]
        lines[(f"{b}×{h}×{sq}×{sk}×{d}", str(kv))] = (
            our_kernel, f"{ours:,.0f}", f"{100 * ours / DECODE_CEILING:.1f}%",
            peer_kernel, f"{peer:,.0f}", f"{100 * peer / DECODE_CEILING:.1f}%", f"{ours / peer:.2f}×")
    return lines


def test_decode_table_is_the_best_rung_against_the_best_peer_per_anchor_shape(capsys):
    assert plot.main([str(DECODE), "--decode-table"]) == 0
    out = capsys.readouterr().out
    table = parse_markdown_table(out)
    got = {(r["B×H×Sq×Sk×D"], r["H_kv"]): tuple(v for k, v in list(r.items())[2:]) for r in table}
    assert got == expected_decode_table()
    assert len(got) == 2 * len(DECODE_ANCHOR_SHAPES)  # each anchor with 32 and 8 K/V heads
    # Anchors in peers.py's order, MHA first; spelled out once: 1×32×1×131072×128 with 8 K/V heads,
    # wgmma_overlap 2900·128k/(128k+4k) GB/s against cuDNN's 2950·128k/(128k+4k).
    first = [(r["B×H×Sq×Sk×D"], r["H_kv"]) for r in table][:2]
    assert first == [("64×32×1×8192×128", "32"), ("64×32×1×8192×128", "8")]
    assert got[("1×32×1×131072×128", "8")] == ("wgmma_overlap", "2,812", "93.9%", "torch_cudnn", "2,861", "95.5%",
                                               "0.98×")
    assert "Copy ceiling 2,995 GB/s (calibrated:2026-01-01T00:00:00Z)" in out


def test_decode_table_all_lists_every_shape_with_fewer_queries_than_keys(capsys):
    assert plot.main([str(DECODE), "--decode-table", "all"]) == 0
    shapes = {r["B×H×Sq×Sk×D"] for r in parse_markdown_table(capsys.readouterr().out)}
    assert {f"1×32×1×{sk}×128" for sk in (1024, 262144)} <= shapes
    assert not any("8192×8192" in shape for shape in shapes)  # the prefill rows are not decode


def test_copy_ceiling_is_fa_benchs_practical_gbs_then_the_flag_then_the_default(schema):
    data = plot.select_rows(plot.read_csvs([str(DECODE)], plot.BASE_COLUMNS), "BFloat16", None)
    order = plot.KernelOrder.of(schema)
    assert plot.copy_ceiling(data, order, None) == (DECODE_CEILING, "calibrated:2026-01-01T00:00:00Z")
    assert plot.copy_ceiling(data, order, 3100.0) == (3100.0, "--peak_gbs")
    peers_only = data[data["kernel"].map(order.is_peer)]  # peers carry no practical_gbs
    gbs, source = plot.copy_ceiling(peers_only, order, None)
    assert gbs == plot.DEFAULT_COPY_GBS and "no fa-bench practical_gbs" in source
    # A CSV from before model v2 held the copy in peak_gbs.
    older = data.drop(columns=["practical_gbs", "practical_source"]).assign(peak_gbs=2966.0, peak_source="table:x")
    assert plot.copy_ceiling(older, order, None) == (2966.0, "table:x")


def test_decode_chart_has_a_panel_per_kv_heads_the_ceiling_and_the_best_rung(monkeypatch, tmp_path):
    figures = []
    monkeypatch.setattr(plot, "save_figure", lambda fig, out_dir, stem: figures.append((fig, stem)) or [])
    assert plot.main([str(DECODE), "--plots", "decode", "--out", str(tmp_path)]) == 0
    [(fig, stem)] = figures
    assert stem == "decode"
    axes = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in axes] == ["H=32, H_kv=32 (MHA), D=128", "H=32, H_kv=8 (GQA), D=128"]
    series = {(r["kernel"], int(r["num_head_kv"]), int(r["seqlen_k"])):
              int(r["compulsory_bytes"]) / (float(r["time_ms_median"]) * 1e6)
              for r in decode_rows() if r["batch_size"] == "1" and r["seqlen_q"] == "1" and r["time_ms_median"]}
    for ax, kv in zip(axes, (32, 8)):
        lines = {line.get_label(): line for line in ax.get_lines()}
        assert set(lines) == {"fa-bench best", "tiled", "mma", "wgmma_overlap", "torch_fa2", "torch_cudnn", "fa4",
                              "copy ceiling 2,995 GB/s"}
        x, y = lines["wgmma_overlap"].get_data()
        assert list(x) == [1024 * 2 ** i for i in range(9)]
        assert list(y) == pytest.approx([series[("wgmma_overlap", kv, sk)] for sk in x])
        # the underlay is the best rung at each point, here wgmma_overlap throughout
        assert list(lines["fa-bench best"].get_data()[1]) == pytest.approx(list(y))
        assert list(lines["copy ceiling 2,995 GB/s"].get_data()[1]) == [DECODE_CEILING, DECODE_CEILING]
        assert lines["torch_cudnn"].get_linestyle() != "-"  # peers keep their own line style


def test_decode_chart_is_written_only_when_asked(tmp_path, capsys):
    assert plot.main([str(DECODE), "--plots", "decode", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "decode.png").read_bytes().startswith(b"\x89PNG") and (tmp_path / "decode.svg").exists()
    assert plot.main([str(SAMPLE), "--out", str(tmp_path / "default")]) == 0
    assert not (tmp_path / "default" / "decode.png").exists()  # not in the default set
    capsys.readouterr()
    assert plot.main([str(SAMPLE), "--plots", "decode", "--out", str(tmp_path / "none")]) == 2
    assert "decode plot: no BFloat16 rows with batch_size 1, seqlen_q 1" in capsys.readouterr().err


def test_gqa_and_mha_rows_of_one_shape_stay_apart(capsys):
    assert plot.main([str(DECODE), "--table", "--shape", "4,32,8192,128,1,8"]) == 0
    gqa = parse_markdown_table(capsys.readouterr().out)
    assert {r["shape (B×H×S×D)"] for r in gqa} == {"4×32(kv 8)×8192×128"}
    assert plot.main([str(DECODE), "--table", "--shape", "4,32,8192,128,1"]) == 0
    mha = parse_markdown_table(capsys.readouterr().out)
    assert {r["shape (B×H×S×D)"] for r in mha} == {"4×32×8192×128"}
    # the synthetic GQA prefill runs at 99 % of the MHA TFLOP/s, kernel by kernel
    for g, m in zip(gqa, mha):
        assert g["kernel"] == m["kernel"] and float(g["TFLOP/s"]) == pytest.approx(0.99 * float(m["TFLOP/s"]),
                                                                                  abs=0.06)


def test_a_csv_without_num_head_kv_reads_as_mha(tmp_path, capsys):
    rows = sample_rows()
    path = write_csv(tmp_path / "pre_gqa.csv", rows, [c for c in rows[0] if c != "num_head_kv"])
    data = plot.select_rows(plot.read_csvs([str(path)], plot.BASE_COLUMNS), "BFloat16", None)
    assert (data["num_head_kv"] == data["num_head"]).all()
    assert plot.main([str(path), "--table", "--shape", "4,16,8192,128,0"]) == 0


def test_shape_flag_takes_an_optional_kv_head_count():
    assert plot.parse_shape("4,32,8192,128,0,8")["num_head_kv"] == 8
    assert plot.parse_shape("4,32,8192,128,0")["num_head_kv"] == 32


def test_one_table_at_a_time():
    with pytest.raises(SystemExit) as exit_info:
        plot.main([str(DECODE), "--table", "--decode-table"])
    assert exit_info.value.code == 2


def test_decode_table_shows_each_sides_clock_where_the_rows_have_one(tmp_path, capsys):
    # The synthetic rows carry no clock (the table above has no MHz columns); with one, each side's
    # clock follows its % of copy: the row the side's best GB/s came from.
    # One anchor keeps no peer row, so that side is all '—' and every line keeps the header's cells.
    rows = [r for r in decode_rows() if not (r["kernel"] in ("torch_fa2", "torch_cudnn", "fa4") and r["batch_size"] == "64")]
    for row in rows:
        row["sm_clock_mean_mhz"] = "1740.5" if row["kernel"] == "wgmma_overlap" else "1980"
    path = tmp_path / "decode_clocks.csv"
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    assert plot.main([str(path), "--decode-table"]) == 0
    out = capsys.readouterr().out
    assert len({line.count("|") for line in out.splitlines() if line.startswith("|")}) == 1  # equal cells
    table = {(r["B×H×Sq×Sk×D"], r["H_kv"]): r for r in parse_markdown_table(out)}
    row = table[("1×32×1×131072×128", "8")]
    assert (row["best fa-bench"], row["fa-bench MHz"]) == ("wgmma_overlap", "1,740")
    assert (row["best peer"], row["peer MHz"]) == ("torch_cudnn", "1,980")
    assert row["fa-bench / peer"] == "0.98×"
    lone = table[("64×32×1×8192×128", "32")]
    assert [lone[c] for c in ("best peer", "peer GB/s", "peer % of copy", "peer MHz", "fa-bench / peer")] == ["—"] * 5
    assert lone["fa-bench MHz"] != "—"
