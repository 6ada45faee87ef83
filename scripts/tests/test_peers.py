"""peers.py and peer_backends' torch-free parts: problems, flags, fa-bench's analytic rows, rows, CSV."""
import argparse
import csv
import importlib.util
import statistics
from pathlib import Path

import pytest

import fa_schema
import peers
from peer_backends import BACKENDS, peer_kernels, torch_sdpa
from peer_backends.common import (DECODE_ANCHOR_SHAPES, DECODE_KV_HEADS, DECODE_SERIES_SEQLENS_K, TIME_COLUMNS,
                                  NOTE_MAX_CHARS, Problem, SchemaMismatch, append_rows_to_csv, build_row, decode_grid,
                                  fa2_grid, format_table, git_commit, one_line, skipped, tiles_of)
from peer_backends.timing import timing_stats

REPO_ROOT = Path(__file__).resolve().parents[2]
SAMPLE = REPO_ROOT / "results" / "sample" / "ladder_sample.csv"
PROVENANCE = {"timestamp": "2025-01-01T00:00:00Z", "git_commit": "abc1234", "gpu": "Test GPU", "sm_count": 132,
              "sm_clock_mhz": "1980", "driver_version": "570.00", "cuda_runtime": "12.8"}
DEFAULT = Problem(4, 8192, 8192, 16, 128, causal=False)


def test_modules_import_without_torch_or_the_peers_packages():
    import peer_backends.common as common
    import peer_backends.cudnn_fp8 as cudnn_fp8
    import peer_backends.cute_example as cute_example
    import peer_backends.fa4 as fa4
    for module in (peers, common, torch_sdpa, fa4, cute_example, cudnn_fp8):
        for package in ("torch", "cutlass", "flash_attn", "cudnn"):
            assert package not in vars(module), (module.__name__, package)  # imported inside functions only


def analytic(schema, *problems, softmax_scale=None):
    return fa_schema.analytic_rows(schema.fa_bench, [p.key for p in problems], softmax_scale)


# ----------------------------------------------------------------------------------------------
# FLOPs and bytes come from fa-bench
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("seqlen_q,seqlen_k", [(1, 1), (5, 3), (3, 5), (8, 8), (7, 1), (1, 9)])
def test_fa_benchs_causal_flops_count_the_top_left_mask_row_by_row(schema, seqlen_q, seqlen_k):
    problems = [Problem(2, seqlen_q, seqlen_k, 3, 64, causal) for causal in (False, True)]
    rows = analytic(schema, *problems)
    by_rows = sum(min(i + 1, seqlen_k) for i in range(seqlen_q))  # row i sees keys j <= i
    assert int(rows[problems[1].key]["flops"]) == 4 * 2 * 3 * 64 * by_rows
    assert int(rows[problems[0].key]["flops"]) == 4 * 2 * 3 * 64 * seqlen_q * seqlen_k


def test_analytic_rows_of_the_default_problem(schema):
    fp32 = Problem(4, 8192, 8192, 16, 128, False, "Float32")
    rows = analytic(schema, DEFAULT, fp32)
    row = rows[DEFAULT.key]
    assert row["flops"] == "2199023255552"  # 4·4·16·128·8192²
    assert row["compulsory_bytes"] == "536870912"  # (2·8192 + 2·8192)·4·16·128 × 2 bytes = 512 MiB
    assert rows[fp32.key]["compulsory_bytes"] == "1073741824"  # fp32 doubles it
    assert row["arithmetic_intensity"] == "4096"
    assert float(row["softmax_scale"]) == pytest.approx(128 ** -0.5)
    scaled = analytic(schema, DEFAULT, softmax_scale=0.5)
    assert scaled[DEFAULT.key]["softmax_scale"] == "0.5"


def test_problems_without_num_head_kv_are_mha_and_the_key_carries_the_kv_heads():
    assert Problem(1, 1, 64, 32, 128, False) == Problem(1, 1, 64, 32, 128, False, num_head_kv=32)
    gqa = Problem(1, 1, 64, 32, 128, False, num_head_kv=8)
    assert gqa.gqa and not Problem(1, 1, 64, 32, 128, False).gqa
    assert gqa.key == ("BFloat16", 1, 1, 64, 32, 8, 128, 0)
    assert dict(zip(fa_schema.ANALYTIC_KEY, gqa.key))["num_head_kv"] == 8
    assert gqa.score_entries == 32 * 64  # the scores are per query head, whatever the K/V heads


def test_fa_benchs_compulsory_bytes_count_the_kv_heads_and_its_flops_the_query_heads(schema):
    # Decode with GQA: one query row per head, K/V of 8 heads. (2·Sq·H + 2·Sk·H_kv)·B·D·2 bytes.
    gqa = Problem(1, 1, 131072, 32, 128, False, num_head_kv=8)
    mha = Problem(1, 1, 131072, 32, 128, False)
    rows = analytic(schema, gqa, mha)
    assert int(rows[gqa.key]["compulsory_bytes"]) == (2 * 1 * 32 + 2 * 131072 * 8) * 1 * 128 * 2 == 536887296
    assert int(rows[mha.key]["compulsory_bytes"]) == (2 * 1 * 32 + 2 * 131072 * 32) * 1 * 128 * 2
    assert rows[gqa.key]["flops"] == rows[mha.key]["flops"] == str(4 * 1 * 32 * 128 * 1 * 131072)


def test_analytic_calls_keep_every_kv_head_count_a_divisor_of_every_head_count(schema):
    # fa-bench sweeps the product of --num_head and --num_head_kv and refuses a pair that does not
    # divide: 12 heads with 8 K/V heads must never share a call.
    problems = [Problem(2, 16, 64, 32, 64, False, num_head_kv=kv) for kv in (32, 8)]
    problems += [Problem(2, 16, 64, 12, 64, False, num_head_kv=kv) for kv in (12, 4)]
    calls = fa_schema._fa_bench_calls([p.key for p in problems])
    assert len(calls) == 2
    for call in calls:
        assert all(h % kv == 0 for h in call["num_head"] for kv in call["num_head_kv"])
    rows = fa_schema.analytic_rows(schema.fa_bench, [p.key for p in problems])
    assert set(rows) == {p.key for p in problems}


def test_analytic_rows_of_a_large_sweep_come_in_groups(schema):
    problems = fa2_grid(["BFloat16", "Float16"], schema.defaults)
    problems += [Problem(b, 64 * b, 32 * b, h, 64, False) for b in range(1, 9) for h in (1, 2, 3)]
    keys = [p.key for p in problems]
    calls = fa_schema._fa_bench_calls(keys)
    assert len(calls) > 1  # the full product would be too large for one call
    rows = fa_schema.analytic_rows(schema.fa_bench, keys)
    assert set(rows) == set(keys)


def test_analytic_rows_of_a_binary_without_num_head_kv_ask_for_a_rebuild(tmp_path):
    fake = tmp_path / "fa-bench"  # writes a row of a pre-GQA fa-bench to the --csv it is given
    fake.write_text('#!/bin/sh\nwhile [ "$1" != --csv ]; do shift; done\n'
                    'printf "dtype,batch_size,seqlen_q,seqlen_k,num_head,head_dim,is_causal\\n" > "$2"\n')
    fake.chmod(0o755)
    with pytest.raises(fa_schema.SchemaError, match="lack num_head_kv.*rebuild"):
        fa_schema.analytic_rows(fake, [DEFAULT.key])


def test_a_binary_that_writes_no_rows_is_an_error(tmp_path):
    fake = tmp_path / "fa-bench"
    fake.write_text("#!/bin/sh\necho 'fa-bench: --head_dim 100: must be a multiple of 8' >&2\nexit 2\n")
    fake.chmod(0o755)
    with pytest.raises(fa_schema.SchemaError, match="no analytic rows .*multiple of 8"):
        fa_schema.analytic_rows(fake, [DEFAULT.key])


# ----------------------------------------------------------------------------------------------
# Problem lists and flags
# ----------------------------------------------------------------------------------------------

def test_fa2_grid_is_flashattention2s_benchmark_grid_plus_fa_benchs_default(schema):
    grid = fa2_grid(["BFloat16"], schema.defaults)
    assert len(grid) == 38  # 6 seqlens × 3 head configs × 2 causal + default × 2 causal
    assert len(set(grid)) == 38
    d = schema.defaults
    default = [p for p in grid if (p.batch, p.seqlen_q, p.num_head, p.head_dim) ==
               (d["batch_size"], d["seqlen_q"], d["num_head"], d["head_dim"])]
    assert sorted(p.causal for p in default) == [False, True]
    fa2_points = [p for p in grid if p not in default]
    assert all(p.batch * p.seqlen_q == 16384 and p.seqlen_q == p.seqlen_k for p in fa2_points)
    assert {p.seqlen_q for p in fa2_points} == {512, 1024, 2048, 4096, 8192, 16384}
    assert {(p.head_dim, p.num_head) for p in fa2_points} == {(64, 32), (128, 16), (256, 16)}
    assert all(p.dtype == "BFloat16" for p in grid)
    assert len(fa2_grid(["BFloat16", "Float16"], schema.defaults)) == 76


def test_decode_grid_is_the_anchors_decode_shapes_the_b1_series_and_gqa_prefill():
    grid = decode_grid(["BFloat16"])
    assert len(grid) == len(set(grid)) == 28  # 8 anchors + 18 series - 2 shared + 4 prefill
    assert DECODE_KV_HEADS == (32, 8)
    shapes = {(p.batch, p.num_head, p.num_head_kv, p.seqlen_q, p.seqlen_k, p.head_dim, p.causal) for p in grid}
    anchors = {(b, h, kv, sq, sk, d, False) for b, h, sq, sk, d in DECODE_ANCHOR_SHAPES for kv in (32, 8)}
    assert {(b, h, sq, sk, d) for b, h, sq, sk, d in DECODE_ANCHOR_SHAPES} == {
        (64, 32, 1, 8192, 128), (8, 32, 1, 32768, 128), (1, 32, 1, 131072, 128), (16, 32, 16, 8192, 128)}
    series = {(1, 32, kv, 1, sk, 128, False) for sk in DECODE_SERIES_SEQLENS_K for kv in (32, 8)}
    assert DECODE_SERIES_SEQLENS_K == (1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144)
    prefill = {(4, 32, kv, 8192, 8192, 128, c) for kv in (8, 32) for c in (False, True)}
    assert shapes == anchors | series | prefill
    assert all(p.dtype == "BFloat16" for p in grid)
    assert len(decode_grid(["BFloat16", "Float16"])) == 56


def problems_for(schema, *argv):
    return peers.problems_from_args(peers.build_parser().parse_args(list(argv)), schema)


def test_num_head_kv_sweeps_with_the_other_lists_and_defaults_to_num_head(schema):
    problems = problems_for(schema, "--num_head", "32", "--num_head_kv", "32,8,1", "--seqlen_q", "1",
                            "--seqlen_k", "4096")
    assert [(p.num_head, p.num_head_kv) for p in problems] == [(32, 32), (32, 8), (32, 1)]
    assert all(p.num_head_kv == p.num_head for p in problems_for(schema, "--num_head", "8,16"))


def test_decode_grid_replaces_the_shape_and_kv_flags_with_a_note(schema, capsys):
    assert problems_for(schema, "--grid", "decode", "--num_head_kv", "4") == decode_grid(["BFloat16"])
    assert "--grid decode sets the shapes; ignoring --num_head_kv" in capsys.readouterr().err


@pytest.mark.parametrize("argv,message", [
    (["--num_head", "32", "--num_head_kv", "6"],
     "--num_head_kv 6 with --num_head 32: num_head_kv must divide num_head"),
    (["--num_head_kv", "0"], "--num_head_kv: every value must be a positive integer"),
    (["--num_splits", "-1"], "--num_splits -1: 0 (heuristic), 1 (off) or a count"),
])
def test_bad_kv_heads_and_split_counts_exit_2(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        peers.main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_num_splits_default_is_each_peers_own_heuristic():
    args = peers.build_parser().parse_args([])
    assert args.num_splits == [0]
    assert peers.build_parser().parse_args(["--num_splits", "0,1,4"]).num_splits == [0, 1, 4]


def test_shape_flags_take_comma_lists_and_sweep_the_cartesian_product(schema):
    problems = problems_for(schema, "--batch_size", "1,2", "--seqlen_q", "128", "--seqlen_k", "256,512",
                            "--causal", "0,1", "--dtype", "Float16")
    assert len(problems) == 2 * 2 * 2
    assert {(p.batch, p.seqlen_k, p.causal) for p in problems} == {
        (b, sk, c) for b in (1, 2) for sk in (256, 512) for c in (False, True)}
    d = schema.defaults
    assert all(p.seqlen_q == 128 and p.num_head == d["num_head"] and p.head_dim == d["head_dim"]
               and p.dtype == "Float16" for p in problems)


def test_defaults_are_fa_benchs_default_problem_and_is_causal_sets_causal(schema):
    d = schema.defaults
    default = Problem(d["batch_size"], d["seqlen_q"], d["seqlen_k"], d["num_head"], d["head_dim"], False, d["dtype"])
    assert problems_for(schema) == [default]
    assert problems_for(schema, "--is_causal") == [Problem(*[getattr(default, f) for f in
                                                             ("batch", "seqlen_q", "seqlen_k", "num_head",
                                                              "head_dim")], True, d["dtype"])]


def test_grid_replaces_shape_flags_with_a_note(schema, capsys):
    assert problems_for(schema, "--grid", "fa2", "--seqlen_q", "64") == fa2_grid(["BFloat16"], schema.defaults)
    assert "ignoring --seqlen_q" in capsys.readouterr().err


def test_tiles_sweep_like_fa_bench_and_default_to_the_examples(schema):
    assert tiles_of(None, None, None, schema.example_tile) == [schema.example_tile] == [(128, 64, 128)]
    assert tiles_of([64, 128], None, [128], schema.example_tile) == [(64, 64, 128), (128, 64, 128)]


def test_backends_are_validated_and_deduplicated():
    assert peers.parse_backends("fa2,cudnn,fa2") == ["fa2", "cudnn"]
    assert peers.parse_backends("auto,fa4") == ["auto", "fa4"]
    with pytest.raises(argparse.ArgumentTypeError, match="fa3: unknown backend"):
        peers.parse_backends("fa2,fa3")
    assert [BACKENDS[b].kernel for b in BACKENDS] == [
        "torch_fa2", "torch_cudnn", "torch_efficient", "torch_math", "fa4", "cute_fa2", "cudnn_fp8"]
    assert peer_kernels() == [BACKENDS[b].kernel for b in BACKENDS]


def test_bad_flag_values_exit_2():
    for argv in (["--causal", "0,2"], ["--dtype", "Float8"], ["--batch_size", "0"], ["--iterations", "0"],
                 ["--m_block_size", "-64"]):
        with pytest.raises(SystemExit) as exit_info:
            peers.main(argv)
        assert exit_info.value.code == 2, argv


def test_no_fa_bench_is_one_line_and_exit_2(monkeypatch, capsys):
    monkeypatch.setenv("FA_BENCH", "/nonexistent/fa-bench")
    assert peers.main([]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "peers.py: fa-bench not found: /nonexistent/fa-bench ($FA_BENCH) is not an executable file"]


# ----------------------------------------------------------------------------------------------
# Rows, CSV, table
# ----------------------------------------------------------------------------------------------

def test_timing_stats():
    stats = timing_stats([1.0, 2.0, 3.0, 4.0])
    assert stats["time_ms_median"] == 2.5 and stats["time_ms_min"] == 1.0 and stats["time_ms_max"] == 4.0
    assert stats["noise_pct"] == pytest.approx(100 * statistics.pstdev([1, 2, 3, 4]) / 2.5)


def row_for(schema, run, problem=Problem(4, 8192, 8192, 16, 128, True), backend="fa2", tile=None):
    return build_row(schema.columns, analytic(schema, problem)[problem.key], problem, BACKENDS[backend], PROVENANCE,
                     run, warmup=5, iterations=20, cold_l2=False, seed=0, tile=tile)


def test_row_of_a_timed_backend_has_exactly_fa_benchs_columns(schema):
    p = Problem(4, 8192, 8192, 16, 128, True)
    fa_bench_row = analytic(schema, p)[p.key]
    row = row_for(schema, dict(timing_stats([2.0, 2.0, 2.2]), check="PASS", max_abs_err=0.001, rel_l2_err=0.002), p)
    assert list(row) == schema.columns
    assert row["kernel"] == "torch_fa2" and row["layout"] == "bhsd" and row["is_causal"] == "1"
    assert row["m_block_size"] == row["n_block_size"] == row["num_threads"] == ""
    for column in fa_schema.ANALYTIC_COLUMNS:  # fa-bench's text, as on its own rows
        assert row[column] == fa_bench_row[column]
    assert float(row["tflops"]) == pytest.approx(int(row["flops"]) / (2.0 * 1e9), rel=1e-5)
    assert float(row["bandwidth_gbs"]) == pytest.approx(int(row["compulsory_bytes"]) / (2.0 * 1e6), rel=1e-5)
    assert row["softmax_scale"] == "0.088388346" and row["check"] == "PASS"
    assert row["model_bytes"] == row["peak_source"] == ""  # fa-bench's model is not the peers'


def test_row_of_a_gqa_problem_carries_the_kv_heads_and_fa_benchs_bytes(schema):
    p = Problem(1, 1, 131072, 32, 128, False, num_head_kv=8)
    row = row_for(schema, dict(timing_stats([0.2])), p)
    assert (row["num_head"], row["num_head_kv"]) == ("32", "8")
    assert row["compulsory_bytes"] == "536887296"
    assert float(row["bandwidth_gbs"]) == pytest.approx(536887296 / 0.2e6, rel=1e-5)
    assert row["num_splits"] == row["pack_gqa"] == ""  # SDPA chooses its own; nothing to say


def test_row_of_a_split_backend_says_the_count_it_ran(schema):
    row = row_for(schema, dict(timing_stats([0.2]), num_splits=4, note="num_splits=4"), backend="fa4")
    assert (row["num_splits"], row["note"]) == ("4", "num_splits=4")


def test_row_of_a_tiled_backend_carries_its_tile_and_layout(schema):
    row = row_for(schema, dict(timing_stats([5.0])), backend="cute", tile=(128, 64, 128))
    assert (row["kernel"], row["layout"]) == ("cute_fa2", "bshd")
    assert (row["m_block_size"], row["n_block_size"], row["num_threads"]) == ("128", "64", "128")


def test_row_of_a_refused_shape_has_empty_time_fields_and_the_reason(schema):
    row = row_for(schema, {"note": "RuntimeError: No available kernel. Aborting execution."})
    assert all(row[c] == "" for c in TIME_COLUMNS)
    assert row["check"] == "SKIPPED" and row["note"].startswith("RuntimeError: No available kernel")
    assert row["flops"] != "" and row["arithmetic_intensity"] != ""


def test_row_of_a_skipped_backend_says_why(schema):
    row = row_for(schema, skipped("flash_attn.cute is not importable (pip install flash-attn-4)"), backend="fa4")
    assert row["note"] == "skipped: flash_attn.cute is not importable (pip install flash-attn-4)"
    assert all(row[c] == "" for c in TIME_COLUMNS) and row["kernel"] == "fa4"


def test_a_row_with_a_column_fa_bench_lacks_is_an_error(schema):
    columns = [c for c in schema.columns if c != "flops"]
    p = DEFAULT
    with pytest.raises(SchemaMismatch, match="no column flops"):
        build_row(columns, analytic(schema, p)[p.key], p, BACKENDS["fa2"], PROVENANCE, {}, warmup=1, iterations=1,
                  cold_l2=False, seed=0)


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
    "cuDNN attention has been runtime disabled. (Triggered internally at /pytorch/aten/src/ATen/"
    "native/transformers/cuda/sdp_utils.cpp:706.)",
]


def test_refusal_note_keeps_only_pytorchs_reason():
    note = torch_sdpa.refusal_note(RuntimeError("No available kernel. Aborting execution."), FLASH_REFUSAL_WARNINGS)
    assert note == ("refused: Flash attention does not support the is_causal flag when seqlen_q != seqlen_k. "
                    "Got seqlen_q: 1000 seqlen_k: 512. If you would like to use causal attention with "
                    "non-square masks, please see CausalAttnMask.")


def test_refusal_note_of_other_errors_keeps_the_error():
    error = MemoryError("CUDA out of memory.\nTried to allocate 32.00 GiB")
    assert torch_sdpa.refusal_note(error, []) == "MemoryError: CUDA out of memory. Tried to allocate 32.00 GiB"
    assert len(torch_sdpa.refusal_note(RuntimeError("x" * 1000), [])) == NOTE_MAX_CHARS
    assert one_line("a\n  b") == "a b"


def test_csv_header_is_fa_benchs_written_once_and_fields_are_rfc4180_quoted(schema, tmp_path):
    path = tmp_path / "out" / "ladder.csv"
    note = 'refused: head_dim 72, "not a multiple of 8"'
    append_rows_to_csv(path, [row_for(schema, {"note": note})], schema.columns)
    append_rows_to_csv(path, [row_for(schema, {"note": "second"})], schema.columns)
    text = path.read_text()
    assert text.splitlines()[0] == ",".join(schema.columns)
    assert text.count("timestamp,git_commit") == 1
    assert '"refused: head_dim 72, ""not a multiple of 8"""' in text
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["note"] for r in rows] == [note, "second"]


def test_append_follows_an_existing_header_of_an_older_fa_bench(schema, tmp_path, capsys):
    path = tmp_path / "ladder.csv"
    header = [c for c in schema.columns if c not in ("model_bytes", "bound_ms")] + ["extra"]
    path.write_text(",".join(header) + "\n" + ",".join(["x"] * len(header)))  # no final newline
    append_rows_to_csv(path, [row_for(schema, {"note": "n"})], schema.columns)
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 2 and list(rows[1]) == header
    assert rows[1]["kernel"] == "torch_fa2" and rows[1]["extra"] == "" and rows[0]["extra"] == "x"
    assert "header lacks model_bytes, bound_ms" in capsys.readouterr().err


def test_a_row_with_the_energy_counters_power_carries_energy_per_launch_and_flop_per_joule(schema):
    p = Problem(4, 8192, 8192, 16, 128, True)
    flops = float(analytic(schema, p)[p.key]["flops"])
    row = row_for(schema, dict(timing_stats([2.0]), energy_power_w=650.0), p)
    assert float(row["energy_mj"]) == pytest.approx(1300.0)  # 650 W x 2 ms
    assert float(row["gflop_per_j"]) == pytest.approx(flops / 1.3 / 1e9, rel=1e-5)
    # Without the counter (or under 50 ms of it) both stay empty, as on fa-bench's rows.
    row = row_for(schema, dict(timing_stats([2.0]), energy_power_w=float("nan")), p)
    assert row["energy_mj"] == row["gflop_per_j"] == ""
    assert row_for(schema, dict(timing_stats([2.0])), p)["energy_mj"] == ""


def test_stdout_table_is_aligned(schema):
    rows = [row_for(schema, dict(timing_stats([2.0]), check="PASS")), row_for(schema, {"note": "refused"})]
    lines = format_table(rows).splitlines()
    assert len(lines) == 3 and lines[0].split()[:4] == ["kernel", "dtype", "B", "H"]
    assert "Hkv" in lines[0] and "GB/s" in lines[0] and "splits" in lines[0]
    assert lines[0].index("TFLOP/s") + len("TFLOP/s") == lines[1].index("549.8") + len("549.8")


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="torch is installed here")
def test_without_torch_says_so_in_one_line_and_exits_2(capsys, tmp_path):
    assert peers.main(["--grid", "fa2", "--csv", str(tmp_path / "x.csv")]) == 2
    assert capsys.readouterr().err == "peers.py: PyTorch is not installed; no peer rows written\n"
    assert not (tmp_path / "x.csv").exists()


def test_sample_csv_is_synthetic_and_agrees_with_fa_bench(schema):
    with SAMPLE.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == schema.columns
    problems = [Problem(int(r["batch_size"]), int(r["seqlen_q"]), int(r["seqlen_k"]), int(r["num_head"]),
                        int(r["head_dim"]), r["is_causal"] == "1", r["dtype"], int(r["num_head_kv"])) for r in rows]
    fa_bench_rows = analytic(schema, *problems)
    for row, p in zip(rows, problems):
        assert "synthetic test data" in row["note"]
        assert row["flops"] == fa_bench_rows[p.key]["flops"]
        assert row["compulsory_bytes"] == fa_bench_rows[p.key]["compulsory_bytes"]
        if row["tflops"]:
            tflops = int(row["flops"]) / (float(row["time_ms_median"]) * 1e9)
            assert float(row["tflops"]) == pytest.approx(tflops, rel=1e-6)


def test_git_commit_takes_fa_git_commit_from_the_environment(monkeypatch):
    # sweep.sh passes fa-bench's commit so peer rows match the kernel rows of the same sweep.
    monkeypatch.setenv("FA_GIT_COMMIT", "0123456789ab")
    assert git_commit() == "0123456789ab"
    monkeypatch.delenv("FA_GIT_COMMIT")
    assert git_commit() != "0123456789ab"
