"""remodel.py: the model columns of a results CSV recomputed by fa-bench, and the committed results
within the bound (issue #14: pct_of_bound <= 100 on every row)."""
import csv
import subprocess
from pathlib import Path

import pytest

import remodel

REPO_ROOT = Path(__file__).resolve().parents[2]
# A row of a CSV written before model v2 (53 columns): mma on the default problem, 339 TFLOP/s,
# with the table's cuBLAS GEMM and copy as its peaks.
OLD_COLUMNS = ["gpu", "kernel", "dtype", "layout", "batch_size", "seqlen_q", "seqlen_k", "num_head", "num_head_kv",
               "head_dim", "is_causal", "m_block_size", "n_block_size", "num_threads", "num_splits", "pack_gqa",
               "flops", "time_ms_median", "tflops", "bandwidth_gbs", "check", "model_bytes", "bound_ms",
               "pct_of_bound", "bound_term", "peak_source", "peak_tflops", "peak_gbs", "pct_of_copy", "note"]
H100 = "NVIDIA H100 80GB HBM3"


def old_row(**changes):
    row = dict(gpu=H100, kernel="mma", dtype="BFloat16", layout="bshd", batch_size="4", seqlen_q="8192",
               seqlen_k="8192", num_head="16", num_head_kv="16", head_dim="128", is_causal="0", m_block_size="128",
               n_block_size="32", num_threads="128", num_splits="1", pack_gqa="0", flops="2199023255552",
               time_ms_median="6.48", tflops="339.355", bandwidth_gbs="82.85", check="PASS", model_bytes="1.72872e+10",
               bound_ms="5.8", pct_of_bound="181", bound_term="memory", peak_source="calibrated:2026-11-22T02:00:00Z",
               peak_tflops="761", peak_gbs="2966", pct_of_copy="2.79333", note="")
    row.update(changes)
    return row


def write(path, rows, columns=OLD_COLUMNS):
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return path


def read(path):
    with path.open(newline="") as f:
        reader = csv.DictReader(f)
        return reader.fieldnames, list(reader)


def test_missing_model_columns_go_where_fa_benchs_schema_puts_them(schema):
    assert remodel.merged_columns(OLD_COLUMNS, schema.columns)[21:34] == [
        "model_bytes", "model_hbm_bytes", "t_math_ms", "t_sfu_ms", "t_hbm_ms", "t_l2_ms", "bound_ms", "bound_sum_ms",
        "pct_of_bound", "bound_term", "peak_source", "peak_tflops", "peak_gbs"]
    # A file in fa-bench's columns, less the new ones, gets exactly fa-bench's columns back.
    new = set(remodel.MODEL_COLUMNS + remodel.PRACTICAL_COLUMNS) - {"model_bytes", "bound_ms", "bound_term",
                                                                     "peak_source", "peak_tflops", "peak_gbs"}
    previous = [c for c in schema.columns if c not in new]
    assert remodel.merged_columns(previous, schema.columns) == schema.columns


def test_an_old_row_gets_model_v2_and_keeps_its_practical_figures(schema, tmp_path):
    path = write(tmp_path / "old.csv", [old_row(), old_row(kernel="torch_cudnn", m_block_size="", n_block_size="",
                                                        num_threads="", model_bytes="", bound_ms="", pct_of_bound="",
                                                        bound_term="", peak_source="", peak_tflops="", peak_gbs="",
                                                        pct_of_copy="", time_ms_median="3.35")])
    assert remodel.main([str(path), "--jobs", "1"]) == 0
    columns, (mma, cudnn) = read(path)
    assert {"t_math_ms", "t_sfu_ms", "t_hbm_ms", "t_l2_ms", "bound_sum_ms", "practical_gbs"} <= set(columns)
    # The tensor term binds: 2,199,023,255,552 FLOP / 1070.53 TFLOP/s = 2.05414 ms, 31.7 % of 6.48 ms.
    assert (mma["bound_term"], mma["bound_ms"], mma["t_math_ms"]) == ("tensor", "2.05414", "2.05414")
    assert mma["pct_of_bound"] == "31.6997"
    assert (mma["peak_tflops"], mma["peak_gbs"], mma["peak_source"]) == ("1070.53", "3352.32", f"table:{H100}")
    # L2 bytes are model v1's bytes, per head Q and O 8192 · 128 · 4 = 4,194,304 and K/V once per
    # 128-row tile 64 · 8192 · 128 · 4 = 268,435,456, times 64 heads.
    assert mma["model_bytes"] == "1.74483e+10"
    assert float(mma["model_hbm_bytes"]) == pytest.approx(536870912, rel=1e-5)  # compulsory: the K/V fit the L2
    # What the row was measured against moves to practical_*; pct_of_copy stays as measured.
    assert (mma["practical_source"], mma["practical_tflops"], mma["practical_gbs"], mma["pct_of_copy"]) == (
        "calibrated:2026-11-22T02:00:00Z", "761", "2966", "2.79333")
    # A peer row takes wgmma_overlap's model on the H100; its practical figures are the table's.
    assert cudnn["bound_term"] == "tensor" and cudnn["pct_of_bound"] == "61.3176"  # 2.05414 / 3.35
    assert (cudnn["practical_source"], cudnn["practical_gbs"]) == (f"table:{H100}", "2966")
    assert cudnn["pct_of_copy"] == "2.79332"  # 82.85 / 2966


def test_a_row_faster_than_the_bound_fails_the_check_and_rewrites_nothing(tmp_path, capsys):
    path = write(tmp_path / "fast.csv", [old_row(time_ms_median="1.9")])
    before = path.read_text()
    assert remodel.main([str(path), "--check", "--jobs", "1"]) == 1
    assert path.read_text() == before
    assert "max pct_of_bound 108.1 %" in capsys.readouterr().out


def test_a_failed_row_is_not_held_to_the_bound(tmp_path):
    path = write(tmp_path / "fail.csv", [old_row(time_ms_median="1.0", check="FAIL")])
    assert remodel.main([str(path), "--jobs", "1"]) == 0
    _, [row] = read(path)
    assert row["pct_of_bound"] == "" and row["bound_ms"] == "2.05414"


def test_a_tile_fa_bench_does_not_build_takes_the_kernels_default_and_says_so(tmp_path, capsys):
    path = write(tmp_path / "synthetic.csv", [old_row(n_block_size="48")])  # mma builds 128x32x128, not 128x48
    assert remodel.main([str(path), "--jobs", "1"]) == 0
    _, [row] = read(path)
    assert row["bound_term"] == "tensor" and row["model_bytes"] == "1.74483e+10"
    assert "1 row(s) with a tile fa-bench does not build: modeled at the kernel's default tile" in capsys.readouterr().out


def test_a_gpu_the_model_does_not_know_is_one_line(tmp_path, capsys):
    path = write(tmp_path / "other.csv", [old_row(gpu="Some GPU")])
    assert remodel.main([str(path), "--jobs", "1"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "--model_gpu Some GPU: must be one of the GPUs the model knows" in err[0]


def committed_results():
    files = subprocess.run(["git", "ls-files", "results/*.csv"], cwd=REPO_ROOT, capture_output=True, text=True,
                           check=True).stdout.split()
    return [REPO_ROOT / f for f in files]


def test_every_committed_result_is_within_the_bound():
    checked = 0
    for path in committed_results():
        columns, rows = read(path)
        if "pct_of_bound" not in columns:
            continue
        assert "t_sfu_ms" in columns and "practical_gbs" in columns, f"{path}: run scripts/remodel.py on it"
        for row in rows:
            if row["pct_of_bound"]:
                assert float(row["pct_of_bound"]) <= 100.0, (path, row["kernel"])
                checked += 1
            elif row["time_ms_median"] and row["check"] != "FAIL":
                pytest.fail(f"{path}: a timed {row['kernel']} row has no pct_of_bound")
    assert checked > 1000


def test_a_peer_row_takes_the_model_of_fa_benchs_kernel_for_its_math_unit():
    registry = {"mma", "wgmma_overlap", "wgmma_fp8"}
    hopper = "NVIDIA H100 80GB HBM3"
    assert remodel.model_kernel({"kernel": "cudnn_fp8", "dtype": "Float8E4M3FN"}, registry, hopper) == ("wgmma_fp8", False)
    assert remodel.model_kernel({"kernel": "torch_cudnn", "dtype": "BFloat16"}, registry, hopper) == ("wgmma_overlap", False)
    assert remodel.model_kernel({"kernel": "torch_fa2", "dtype": "Float16"}, registry, "NVIDIA A100-SXM4-80GB") == ("mma", False)
    assert remodel.model_kernel({"kernel": "mma", "dtype": "BFloat16", "m_block_size": "128"}, registry, hopper) == ("mma", True)
