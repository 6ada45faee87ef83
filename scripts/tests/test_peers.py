"""peers.py's pure helpers, without torch: FLOP/byte counts, the grid, flags, rows and CSV."""
import argparse
import csv
import importlib.util
import statistics
from pathlib import Path

import pytest

import peers

REPO_ROOT = Path(__file__).resolve().parents[2]
SAMPLE = REPO_ROOT / "results" / "sample" / "ladder_sample.csv"
PROVENANCE = {"timestamp": "2025-01-01T00:00:00Z", "git_commit": "abc1234", "gpu": "Test GPU", "sm_count": 132,
              "sm_clock_mhz": "1980", "driver_version": "570.00", "cuda_runtime": "12.8"}


def test_module_imports_without_torch():
    assert "torch" not in vars(peers)  # torch is imported inside the measuring functions only


@pytest.mark.parametrize("seqlen_q,seqlen_k", [(1, 1), (5, 3), (3, 5), (8, 8), (7, 1), (1, 9)])
def test_causal_scores_match_the_top_left_mask_counted_row_by_row(seqlen_q, seqlen_k):
    by_rows = sum(min(i + 1, seqlen_k) for i in range(seqlen_q))  # row i sees keys j <= i
    assert peers.unmasked_scores(seqlen_q, seqlen_k, True) == by_rows
    assert peers.unmasked_scores(seqlen_q, seqlen_k, False) == seqlen_q * seqlen_k


def test_flops_and_bytes_of_the_default_problem():
    p = peers.Problem(4, 8192, 8192, 16, 128, causal=False)
    assert peers.attention_flops(p) == 4 * 4 * 16 * 128 * 8192 * 8192 == 2_199_023_255_552
    # Causal keeps the triangle 8192·8193/2: just over half of the full count.
    causal = peers.Problem(4, 8192, 8192, 16, 128, causal=True)
    assert peers.attention_flops(causal) == 4 * 4 * 16 * 128 * (8192 * 8193 // 2)
    # (2·8192 + 2·8192)·4·16·128 elements × 2 bytes = 512 MiB; fp32 doubles it.
    assert peers.compulsory_bytes(p) == 536_870_912
    assert peers.compulsory_bytes(peers.Problem(4, 8192, 8192, 16, 128, False, "Float32")) == 2 * 536_870_912


def test_fa2_grid_is_flashattention2s_benchmark_grid_plus_the_default():
    grid = peers.fa2_grid()
    assert len(grid) == 26  # 6 seqlens × 2 head configs × 2 causal + default × 2 causal
    assert len(set(grid)) == 26
    default = [p for p in grid if (p.batch, p.seqlen_q, p.num_head, p.head_dim) == (4, 8192, 16, 128)]
    assert sorted(p.causal for p in default) == [False, True]
    fa2_points = [p for p in grid if p not in default]
    assert all(p.batch * p.seqlen_q == 16384 and p.seqlen_q == p.seqlen_k for p in fa2_points)
    assert {p.seqlen_q for p in fa2_points} == {512, 1024, 2048, 4096, 8192, 16384}
    assert {(p.head_dim, p.num_head) for p in fa2_points} == {(64, 32), (128, 16)}
    assert all(p.dtype == "BFloat16" for p in grid)
    assert len(peers.fa2_grid(["BFloat16", "Float16"])) == 52


def problems_for(*argv):
    return peers.problems_from_args(peers.build_parser().parse_args(list(argv)))


def test_shape_flags_take_comma_lists_and_sweep_the_cartesian_product():
    problems = problems_for("--batch_size", "1,2", "--seqlen_q", "128", "--seqlen_k", "256,512",
                            "--causal", "0,1", "--dtype", "Float16")
    assert len(problems) == 2 * 2 * 2
    assert {(p.batch, p.seqlen_k, p.causal) for p in problems} == {
        (b, sk, c) for b in (1, 2) for sk in (256, 512) for c in (False, True)}
    assert all(p.seqlen_q == 128 and p.num_head == 16 and p.head_dim == 128 and p.dtype == "Float16"
               for p in problems)


def test_defaults_are_fa_benchs_default_problem_and_is_causal_sets_causal():
    assert problems_for() == [peers.Problem(4, 8192, 8192, 16, 128, False)]
    assert problems_for("--is_causal") == [peers.Problem(4, 8192, 8192, 16, 128, True)]


def test_grid_replaces_shape_flags_with_a_note(capsys):
    assert problems_for("--grid", "fa2", "--seqlen_q", "64") == peers.fa2_grid()
    assert "ignoring --seqlen_q" in capsys.readouterr().err


def test_backends_are_validated_and_deduplicated():
    assert peers.parse_backends("fa2,cudnn,fa2") == ["fa2", "cudnn"]
    with pytest.raises(argparse.ArgumentTypeError, match="fa3: unknown backend"):
        peers.parse_backends("fa2,fa3")
    assert [peers.kernel_slug(b) for b in peers.BACKENDS] == [
        "torch_fa2", "torch_cudnn", "torch_efficient", "torch_math"]


def test_bad_flag_values_exit_2():
    for argv in (["--causal", "0,2"], ["--dtype", "Float8"], ["--batch_size", "0"], ["--iterations", "0"]):
        with pytest.raises(SystemExit) as exit_info:
            peers.main(argv)
        assert exit_info.value.code == 2, argv


def test_timing_stats():
    stats = peers.timing_stats([1.0, 2.0, 3.0, 4.0])
    assert stats["time_ms_median"] == 2.5 and stats["time_ms_min"] == 1.0 and stats["time_ms_max"] == 4.0
    assert stats["noise_pct"] == pytest.approx(100 * statistics.pstdev([1, 2, 3, 4]) / 2.5)


def row_for(run, problem=peers.Problem(4, 8192, 8192, 16, 128, True)):
    return peers.build_row(problem, "fa2", PROVENANCE, run, warmup=5, iterations=20, cold_l2=False, seed=0,
                           softmax_scale=peers.default_softmax_scale(128))


def test_row_of_a_timed_backend():
    p = peers.Problem(4, 8192, 8192, 16, 128, True)
    row = row_for(dict(peers.timing_stats([2.0, 2.0, 2.2]), check="PASS", max_abs_err=0.001, rel_l2_err=0.002), p)
    assert list(row) == peers.CSV_COLUMNS
    assert row["kernel"] == "torch_fa2" and row["layout"] == "bhsd" and row["is_causal"] == "1"
    assert row["m_block_size"] == row["n_block_size"] == row["num_threads"] == ""
    assert row["flops"] == str(peers.attention_flops(p))
    assert float(row["tflops"]) == pytest.approx(peers.attention_flops(p) / (2.0 * 1e9), rel=1e-5)
    assert float(row["bandwidth_gbs"]) == pytest.approx(peers.compulsory_bytes(p) / (2.0 * 1e6), rel=1e-5)
    assert row["softmax_scale"] == "0.0883883" and row["check"] == "PASS"


def test_row_of_a_refused_shape_has_empty_time_fields_and_the_reason():
    row = row_for({"note": "RuntimeError: No available kernel. Aborting execution."})
    assert all(row[c] == "" for c in peers.TIME_COLUMNS)
    assert row["check"] == "SKIPPED" and row["note"].startswith("RuntimeError: No available kernel")
    assert row["flops"] != "" and row["arithmetic_intensity"] != ""


# Warnings PyTorch 2.11 (cu130, H100) gave when only the flash backend was allowed and the shape
# was causal with seqlen_q != seqlen_k.
FLASH_REFUSAL_WARNINGS = [
    "Memory efficient kernel not used because: (Triggered internally at /pytorch/aten/src/ATen/native/"
    "transformers/cuda/sdp_utils.cpp:986.)",
    "Memory Efficient attention has been runtime disabled. (Triggered internally at /pytorch/aten/src/ATen/"
    "native/transformers/sdp_utils_cpp.h:552.)",
    "Flash attention kernel not used because: (Triggered internally at /pytorch/aten/src/ATen/native/"
    "transformers/cuda/sdp_utils.cpp:988.)",
    "Flash attention does not support the is_causal flag when seqlen_q != seqlen_k. Got seqlen_q: 1000 "
    "seqlen_k: 512. If you would like to use causal attention with non-square masks, please see "
    "CausalAttnMask. (Triggered internally at /pytorch/aten/src/ATen/native/transformers/cuda/sdp_utils.cpp:457.)",
    "cuDNN attention kernel not used because: (Triggered internally at /pytorch/aten/src/ATen/native/"
    "transformers/cuda/sdp_utils.cpp:990.)",
    "cuDNN attention has been runtime disabled. (Triggered internally at /pytorch/aten/src/ATen/native/"
    "transformers/cuda/sdp_utils.cpp:706.)",
]


def test_refusal_note_keeps_only_pytorchs_reason():
    note = peers.refusal_note(RuntimeError("No available kernel. Aborting execution."), FLASH_REFUSAL_WARNINGS)
    assert note == ("refused: Flash attention does not support the is_causal flag when seqlen_q != seqlen_k. "
                    "Got seqlen_q: 1000 seqlen_k: 512. If you would like to use causal attention with "
                    "non-square masks, please see CausalAttnMask.")


def test_refusal_note_of_other_errors_keeps_the_error():
    error = MemoryError("CUDA out of memory.\nTried to allocate 32.00 GiB")
    assert peers.refusal_note(error, []) == "MemoryError: CUDA out of memory. Tried to allocate 32.00 GiB"
    assert len(peers.refusal_note(RuntimeError("x" * 1000), [])) == peers.NOTE_MAX_CHARS


def test_csv_header_is_written_once_and_fields_are_rfc4180_quoted(tmp_path):
    path = tmp_path / "out" / "ladder.csv"
    note = 'refused: head_dim 72, "not a multiple of 8"'
    peers.append_rows_to_csv(path, [row_for({"note": note})])
    peers.append_rows_to_csv(path, [row_for({"note": "second"})])
    text = path.read_text()
    assert text.count("timestamp,git_commit") == 1
    assert '"refused: head_dim 72, ""not a multiple of 8"""' in text
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["note"] for r in rows] == [note, "second"]


def test_append_follows_an_existing_header_with_extra_columns(tmp_path):
    path = tmp_path / "ladder.csv"
    header = peers.CSV_COLUMNS + ["model_bytes", "bound_ms"]
    path.write_text(",".join(header) + "\n" + ",".join(["x"] * len(header)))  # no final newline
    peers.append_rows_to_csv(path, [row_for({"note": "n"})])
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 2 and list(rows[1]) == header
    assert rows[1]["kernel"] == "torch_fa2" and rows[1]["model_bytes"] == "" and rows[0]["bound_ms"] == "x"


def test_stdout_table_is_aligned():
    rows = [row_for(dict(peers.timing_stats([2.0]), check="PASS")), row_for({"note": "refused"})]
    lines = peers.format_table(rows).splitlines()
    assert len(lines) == 3 and lines[0].split()[:3] == ["kernel", "dtype", "B"]
    assert lines[0].index("TFLOP/s") + len("TFLOP/s") == lines[1].index("549.8") + len("549.8")


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="torch is installed here")
def test_without_torch_says_so_in_one_line_and_exits_2(capsys, tmp_path):
    assert peers.main(["--grid", "fa2", "--csv", str(tmp_path / "x.csv")]) == 2
    assert capsys.readouterr().err == "peers.py: PyTorch is not installed; no peer rows written\n"
    assert not (tmp_path / "x.csv").exists()


def test_sample_csv_is_synthetic_and_consistent_with_the_formulas():
    with SAMPLE.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == peers.CSV_COLUMNS
    for row in rows:
        assert "synthetic test data" in row["note"]
        p = peers.Problem(int(row["batch_size"]), int(row["seqlen_q"]), int(row["seqlen_k"]), int(row["num_head"]),
                          int(row["head_dim"]), row["is_causal"] == "1", row["dtype"])
        assert int(row["flops"]) == peers.attention_flops(p)
        assert int(row["compulsory_bytes"]) == peers.compulsory_bytes(p)
        if row["tflops"]:
            tflops = peers.attention_flops(p) / (float(row["time_ms_median"]) * 1e9)
            assert float(row["tflops"]) == pytest.approx(tflops, rel=1e-6)


def test_git_commit_takes_fa_git_commit_from_the_environment(monkeypatch):
    # sweep.sh passes fa-bench's commit so peer rows match the kernel rows of the same sweep.
    monkeypatch.setenv("FA_GIT_COMMIT", "0123456789ab")
    assert peers.git_commit() == "0123456789ab"
    monkeypatch.delenv("FA_GIT_COMMIT")
    assert peers.git_commit() != "0123456789ab"
