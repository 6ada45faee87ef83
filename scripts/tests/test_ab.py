"""ab.py: the rotation of builds by round, the reference check in the first rounds only, the deadline,
the medians and ratios of the summary, and bad input; against a stand-in for fa-bench that appends one
CSV row per run (its TFLOP/s fixed per build, or per round from a list)."""
import csv
import os
import stat
import sys

import pytest

import ab

FAKE = """#!{python}
import csv, os, sys
args = sys.argv[1:]
out = args[args.index("--csv") + 1]
calls = os.environ["AB_CALLS"]
with open(calls, "a") as f:
    f.write("{tag} " + " ".join(args) + "\\n")
n = sum(1 for line in open(calls) if line.startswith("{tag} "))
values = [float(v) for v in "{tflops}".split()]
if "{fail}" == "1":
    sys.exit(3)
row = dict(kernel="mma", dtype="BFloat16", batch_size="2", num_head="32", num_head_kv="32", seqlen_q="8192",
           seqlen_k="8192", head_dim=args[args.index("--head_dim") + 1], is_causal="0", m_block_size="128",
           n_block_size="64", tflops=str(values[(n - 1) % len(values)]), sm_clock_mean_mhz="1712.5",
           check="SKIPPED" if "--skip_ref_check" in args else "PASS")
new = not os.path.exists(out)
with open(out, "a", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(row))
    if new:
        w.writeheader()
    w.writerow(row)
"""


def fake(tmp_path, tag, tflops, fail=False):
    path = tmp_path / f"fake_{tag}"
    path.write_text(FAKE.format(python=sys.executable, tag=tag, tflops=tflops, fail="1" if fail else "0"))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return f"{tag}={path}"


@pytest.fixture
def calls(tmp_path, monkeypatch):
    path = tmp_path / "calls.txt"
    monkeypatch.setenv("AB_CALLS", str(path))
    return path


def summary_rows(out):
    with open(out / "ab_summary.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_rounds_rotate_the_builds_and_check_only_the_first(tmp_path, calls, capsys):
    out = tmp_path / "out"
    rc = ab.main(["--build", fake(tmp_path, "base", "100 110 90"), "--build", fake(tmp_path, "try", "105 99 120"),
                  "--build", fake(tmp_path, "third", "50"), "--problem", "--head_dim 64", "--problem",
                  "--head_dim 128", "--flags", "--kernel mma", "--rounds", "3", "--out", str(out)])
    assert rc == 0
    lines = calls.read_text().splitlines()
    assert len(lines) == 3 * 2 * 3
    order = [line.split()[0] for line in lines]
    # Round 1 starts at the base, round 2 at the second build, round 3 at the third, per problem.
    assert order[:3] == ["base", "try", "third"] and order[3:6] == ["base", "try", "third"]
    assert order[6:9] == ["try", "third", "base"] and order[12:15] == ["third", "base", "try"]
    assert all("--skip_ref_check" not in line for line in lines[:6])
    assert all("--skip_ref_check" in line for line in lines[6:])
    assert all("--kernel mma" in line for line in lines)
    rows = {(r["head_dim"], r["build"]): r for r in summary_rows(out)}
    # base's runs at head_dim 64 are its 1st, 3rd and 5th calls: 100, 90, 110 -> median 100.
    assert rows[("64", "base")]["tflops_median"] == "100.0"
    assert rows[("64", "base")]["tflops"] == "100.0 90.00 110.0"
    assert rows[("64", "try")]["tflops_median"] == "105.0"
    assert rows[("64", "try")]["ratio_to_base"] == "1.0500"
    assert rows[("64", "third")]["ratio_to_base"] == "0.5000"
    assert rows[("64", "base")]["check"] == "PASS SKIPPED"
    assert rows[("64", "base")]["rounds"] == "3"
    out_text = capsys.readouterr().out
    assert "1.0500x" in out_text
    # try's ratios: 1.05 at head_dim 64 and 105/100 = 1.05 at 128 (its 2nd, 4th, 6th calls: 99, 105, 120
    # -> median 105; base's 110, 100, 90 -> 100); third's 0.5 both times.
    assert "try / base over 2 rows: geometric mean 1.0500, from 1.0500 to 1.0500" in out_text
    assert "third / base over 2 rows: geometric mean 0.5000" in out_text
    # The summary again from the folder alone.
    assert ab.main(["--summarize", str(out), "--base", "base"]) == 0
    assert "1.0500x" in capsys.readouterr().out


def test_deadline_stops_starting_runs(tmp_path, calls, capsys):
    out = tmp_path / "out"
    rc = ab.main(["--build", fake(tmp_path, "a", "1"), "--build", fake(tmp_path, "b", "2"), "--problem",
                  "--head_dim 64", "--rounds", "5", "--deadline", "0", "--out", str(out)])
    assert rc == 0
    # The first run starts at 0 s; every later one is past the deadline.
    assert len(calls.read_text().splitlines()) == 1
    assert "deadline" in capsys.readouterr().out


def test_a_failed_run_is_reported_and_sets_the_exit_status(tmp_path, calls, capsys):
    out = tmp_path / "out"
    rc = ab.main(["--build", fake(tmp_path, "a", "1"), "--build", fake(tmp_path, "b", "2", fail=True), "--problem",
                  "--head_dim 64", "--rounds", "1", "--out", str(out)])
    assert rc == 1
    assert "build b: exit 3" in capsys.readouterr().out
    assert [r["build"] for r in summary_rows(out)] == ["a"]


@pytest.mark.parametrize("argv, message", [
    (["--build", "nopath", "--build", "b=x", "--problem", "p", "--out", "o"], "expected TAG=PATH"),
    (["--build", "a=/nonexistent/fa-bench", "--build", "b=/nonexistent/x", "--problem", "p", "--out", "o"],
     "no such file"),
    (["--build", "a/b=x", "--build", "b=x", "--problem", "p", "--out", "o"], "TAG must be"),
    (["--build", "a=x", "--problem", "p", "--out", "o"], "at least two builds"),
    (["--build", "a=x", "--build", "a=y", "--problem", "p", "--out", "o"], "its own TAG"),
])
def test_bad_input_is_one_line_and_exit_2(argv, message, capsys):
    assert ab.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_an_earlier_runs_folder_is_refused(tmp_path, calls, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "ab_a.csv").write_text("tflops\n1\n")
    argv = ["--build", fake(tmp_path, "a", "1"), "--build", fake(tmp_path, "b", "2"), "--problem", "--head_dim 64",
            "--out", str(out)]
    assert ab.main(argv) == 2
    assert "earlier run" in capsys.readouterr().err
    assert not calls.exists()


def summary_row(build, kernel, dtype, tflops, causal="0", tile=("128", "64")):
    return {"build": build, "kernel": kernel, "dtype": dtype, "batch_size": "4", "num_head": "16",
            "num_head_kv": "16", "seqlen_q": "8192", "seqlen_k": "8192", "head_dim": "128", "is_causal": causal,
            "m_block_size": tile[0], "n_block_size": tile[1], "tflops_median": str(tflops)}


def test_versus_divides_the_best_numerator_by_the_best_denominator_per_build_and_shape():
    summary = [summary_row("a", "wgmma_fp8", "Float8E4M3FN", 1000.0), summary_row("a", "wgmma_overlap", "BFloat16", 660.0),
               summary_row("a", "wgmma_persistent", "BFloat16", 680.0),
               summary_row("a", "wgmma_persistent", "BFloat16", 670.0, tile=("128", "128")),
               summary_row("a", "wgmma_overlap", "Float16", 700.0),  # another dtype, filtered out below
               summary_row("a", "mma", "BFloat16", 900.0),  # not named on either side
               summary_row("b", "wgmma_fp8", "Float8E4M3FN", 990.0), summary_row("b", "wgmma_persistent", "BFloat16", 660.0),
               summary_row("a", "wgmma_fp8", "Float8E4M3FN", 930.0, causal="1"),  # no denominator: no line
               ]
    num, den = ab.parse_versus("wgmma_fp8:wgmma_overlap@BFloat16,wgmma_persistent@BFloat16")
    lines = ab.versus(summary, num, den)
    assert [(v["build"], v["is_causal"], v["ratio"]) for v in lines] == [("a", "0", "1.471"), ("b", "0", "1.500")]
    assert lines[0]["denominator"] == "wgmma_persistent@BFloat16 128x64"
    assert lines[0]["numerator_tflops"] == "1000.0" and lines[0]["denominator_tflops"] == "680.0"
    # Without the dtype the fp16 row is the best denominator.
    num, den = ab.parse_versus("wgmma_fp8:wgmma_overlap,wgmma_persistent")
    assert ab.versus(summary, num, den)[0]["ratio"] == "1.429"


@pytest.mark.parametrize("text", ["wgmma_fp8", "wgmma_fp8:", ":mma", "a@:b", "a:b,"])
def test_versus_bad_input_is_one_line_and_exit_2(text, capsys):
    assert ab.main(["--summarize", "nowhere", "--versus", text]) == 2
    err = capsys.readouterr().err
    assert "--versus" in err and err.count("\n") == 1


def test_a_run_writes_the_versus_lines(tmp_path, calls, capsys):
    out = tmp_path / "out"
    rc = ab.main(["--build", fake(tmp_path, "a", "100"), "--build", fake(tmp_path, "b", "120"), "--problem",
                  "--head_dim 64", "--rounds", "1", "--out", str(out), "--versus", "mma:mma"])
    assert rc == 0
    with open(out / "ab_versus.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [(r["build"], r["ratio"]) for r in rows] == [("a", "1.000"), ("b", "1.000")]
    assert "versus mma / best of mma, a: 2x32x8192x8192x64 causal=0" in capsys.readouterr().out


def test_one_build_runs_with_versus_only(tmp_path, calls, capsys):
    out = tmp_path / "out"
    rc = ab.main(["--build", fake(tmp_path, "a", "100 120"), "--problem", "--head_dim 64", "--rounds", "2",
                  "--out", str(out), "--versus", "mma:mma"])
    assert rc == 0 and len(calls.read_text().splitlines()) == 2
    assert [r["rounds"] for r in summary_rows(out)] == ["2"]
    assert (out / "ab_versus.csv").exists()


@pytest.mark.parametrize("value, text", [(672.71, "672.7"), (100.0, "100.0"), (1000.0, "1000.0"),
                                         (99.996, "100.0"), (90.0, "90.00"), (65.04, "65.04"), (4.2413, "4.241")])
def test_tflops_text_keeps_four_significant_digits_below_100(value, text):
    # Decode rows run at single-digit TFLOP/s: one decimal would hide a 1 % difference between builds.
    assert ab.tflops_text(value) == text


def _row(head_dim, tile, tflops):
    row = {c: "1" for c in ab.ROW_KEY}
    row.update(kernel="wgmma_overlap", dtype="BFloat16", head_dim=head_dim, m_block_size=tile[0],
               n_block_size=tile[1], tflops=str(tflops))
    return row


def test_a_build_that_changes_the_tile_pairs_with_the_base_only_one_to_one():
    rows = {"base": [_row("128", ("64", "128"), 4.2), _row("64", ("64", "128"), 10.0), _row("64", ("128", "128"), 12.0)],
            "try": [_row("128", ("64", "64"), 4.158), _row("64", ("64", "64"), 11.0)]}
    summary = {(s["head_dim"], s["build"]): s for s in ab.summarize(rows, "base")}
    # One tile on each side at head_dim 128: they pair (4.158 / 4.2).
    assert summary[("128", "try")]["ratio_to_base"] == "0.9900"
    # The base swept two tiles at head_dim 64: no tile of its is the try build's, so no ratio.
    assert summary[("64", "try")]["ratio_to_base"] == ""
