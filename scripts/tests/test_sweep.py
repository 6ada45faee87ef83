"""sweep.sh with a stand-in fa-bench and a stand-in python: which calls, and failure handling;
the decode grid also with the real fa-bench, GPU hidden (its analytic rows)."""
import csv
import itertools
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from peer_backends.common import decode_grid, fa2_grid

REPO_ROOT = Path(__file__).resolve().parents[2]
SWEEP = REPO_ROOT / "scripts" / "sweep.sh"

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


# What a stand-in fa-bench prints for --list: fa-bench's format (kernel line, then its rows), an
# untiled kernel and two tiled (fused) ones.
LIST_OUTPUT = """naive              rung 0  sm_80+  materialized S and P in global memory
    BFloat16  head_dim any: untiled [default]
mma                rung 3  sm_80+  tensor cores
    BFloat16  head_dim 128: 128x32x128 (64 KiB smem) [default], 64x64x128 (80 KiB smem)
wgmma_ws           rung 6  sm_90+  Hopper, warp-specialized
    BFloat16  head_dim 128: 128x128x256 (225 KiB smem) [default]
tiles are m_block_size x n_block_size x num_threads; [default] is used when no tile flag is given
"""


def stand_in(path: Path, log: Path, fail_when: str = "") -> Path:
    """An executable that appends its arguments to `log` as one line; exits 3 if they contain
    `fail_when`; answers --list as fa-bench would (LIST_OUTPUT)."""
    fail = f'case "$*" in *"{fail_when}"*) exit 3;; esac\n' if fail_when else ""
    listing = f"if [[ $1 == --list ]]; then cat <<'EOF'\n{LIST_OUTPUT}EOF\nfi\n"
    path.write_text(f'#!/usr/bin/env bash\necho "$*" >> "{log}"\n{listing}{fail}exit 0\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def run_sweep(tmp_path, fail_when="", options=(), kernels="naive,mma", **env_vars):
    """(the run, fa-bench's grid calls, its other calls, the peers.py calls, OUT_DIR)."""
    calls = tmp_path / "fa-bench.log"
    peer_calls = tmp_path / "python.log"
    fa_bench = stand_in(tmp_path / "fa-bench", calls, fail_when)
    python = stand_in(tmp_path / "python", peer_calls)
    out = tmp_path / "out"
    env = dict(os.environ, PYTHON=str(python), **env_vars)
    if kernels is not None:
        env["KERNELS"] = kernels
    else:
        env.pop("KERNELS", None)
    for name in ("PEERS_ARGS", "FA_BENCH_ARGS", "PEERS", "CALIBRATE", "INTERLEAVE", "HEAD_DIMS"):
        if name not in env_vars:
            env.pop(name, None)
    done = subprocess.run(["bash", str(SWEEP), *options, str(fa_bench), str(out)], capture_output=True, text=True,
                          env=env)
    read = lambda p: p.read_text().splitlines() if p.exists() else []  # noqa: E731
    grid = [c for c in read(calls) if "--batch_size" in c]
    other = [c for c in read(calls) if "--batch_size" not in c]
    # The python stand-in runs peers.py and, last, remodel.py (test_every_sweep_ends_with_remodel).
    peers = [c for c in read(peer_calls) if "remodel.py" not in c]
    return done, grid, other, peers, out


def flag(args: str, name: str) -> str:
    words = args.split()
    return words[words.index(name) + 1]


def test_sweep_runs_the_fa2_grid_and_the_peers(tmp_path, schema):
    done, calls, other, peer_calls, out = run_sweep(tmp_path)
    assert done.returncode == 0, done.stderr
    assert other == ["--schema"]  # saved as OUT_DIR/schema.json for plot.py --schema-json
    assert len(calls) == 19  # 18 grid points + the default; causal 0,1 inside each call
    shapes = {(int(flag(c, "--batch_size")), int(flag(c, "--seqlen_q")), int(flag(c, "--num_head")),
               int(flag(c, "--head_dim"))) for c in calls}
    # The same grid as peers.py --grid fa2 (whose default point is fa-bench's default problem).
    assert shapes == {(p.batch, p.seqlen_q, p.num_head, p.head_dim) for p in fa2_grid(["BFloat16"], schema.defaults)}
    for call in calls:
        assert flag(call, "--seqlen_k") == flag(call, "--seqlen_q")
        assert flag(call, "--causal") == "0,1" and flag(call, "--dtype") == "BFloat16"
        assert flag(call, "--kernel") == "naive,mma" and flag(call, "--csv") == str(out / "ladder.csv")
    # Interleaved (INTERLEAVE's default): one peers.py call per point, on the point's shape.
    assert [c.split(" --backends")[0].split("peers.py ")[1] for c in peer_calls] == \
        [c.split(" --dtype")[0] for c in calls]
    assert all(c.endswith(f"--backends auto --fa-bench {tmp_path / 'fa-bench'} --csv {out / 'ladder.csv'} --check")
               for c in peer_calls)


def test_interleaved_fa2_sweep_alternates_who_goes_first_at_each_point(tmp_path):
    # Both stand-ins log into one file, so the order across fa-bench and peers.py shows.
    log = tmp_path / "calls.log"
    fa_bench, python = stand_in(tmp_path / "fa-bench", log), stand_in(tmp_path / "python", log)
    env = dict(os.environ, PYTHON=str(python), KERNELS="mma")
    for name in ("PEERS_ARGS", "FA_BENCH_ARGS", "PEERS", "CALIBRATE", "INTERLEAVE"):
        env.pop(name, None)
    done = subprocess.run(["bash", str(SWEEP), str(fa_bench), str(tmp_path / "out")], capture_output=True, text=True,
                          env=env)
    assert done.returncode == 0, done.stderr
    who = ["peers" if "peers.py" in c else "fa-bench" for c in log.read_text().splitlines() if "--batch_size" in c]
    pairs = [tuple(who[i:i + 2]) for i in range(0, len(who), 2)]
    assert len(pairs) == 19
    assert pairs == [("fa-bench", "peers") if i % 2 == 0 else ("peers", "fa-bench") for i in range(19)]


def test_fa2_sweep_without_interleave_runs_the_peers_grid_once_after_fa_bench(tmp_path, schema):
    done, calls, other, peer_calls, out = run_sweep(tmp_path, INTERLEAVE="0")
    assert done.returncode == 0, done.stderr
    assert len(calls) == 19
    assert peer_calls == [f"{REPO_ROOT}/scripts/peers.py --grid fa2 --backends auto --fa-bench {tmp_path / 'fa-bench'} "
                          f"--csv {out / 'ladder.csv'} --check"]
    (tmp_path / "bad").mkdir()
    done, calls, other, *_ = run_sweep(tmp_path / "bad", INTERLEAVE="yes")
    assert done.returncode == 2 and done.stderr == "sweep.sh: INTERLEAVE=yes: 0 or 1\n" and calls == other == []


def test_peers_come_from_the_peers_variable(tmp_path):
    done, _, _, peer_calls, _ = run_sweep(tmp_path, PEERS="fa2,cudnn,fa4,cute", PEERS_ARGS="")
    assert done.returncode == 0, done.stderr
    assert flag(peer_calls[0], "--backends") == "fa2,cudnn,fa4,cute" and "--check" not in peer_calls[0]


def test_head_dims_splits_the_fa2_grid_across_calls(tmp_path):
    # Two calls (64,128 then 256) cover the whole grid once: the default problem with head_dim 128.
    seen = []
    for part, head_dims in enumerate(("64,128", "256")):
        (tmp_path / str(part)).mkdir()
        done, calls, _, peer_calls, _ = run_sweep(tmp_path / str(part), HEAD_DIMS=head_dims)
        assert done.returncode == 0, done.stderr
        assert {flag(c, "--head_dim") for c in calls} == set(head_dims.split(","))
        assert [c.split(" --backends")[0].split("peers.py ")[1] for c in peer_calls] == \
            [c.split(" --dtype")[0] for c in calls]
        seen += calls
    assert len(seen) == 19 and len(set(seen)) == 19
    (tmp_path / "d256").mkdir()
    done, calls, *_ = run_sweep(tmp_path / "d256", HEAD_DIMS="256")
    assert len(calls) == 6  # the default point is head_dim 128


@pytest.mark.parametrize("env,message", [
    ({"HEAD_DIMS": "64,96"}, "HEAD_DIMS=64,96: each value one of 64, 128, 256"),
    ({"HEAD_DIMS": "64,,256"}, "HEAD_DIMS=64,,256: each value one of 64, 128, 256"),
    ({"HEAD_DIMS": "128", "INTERLEAVE": "0"}, "HEAD_DIMS=128 needs INTERLEAVE=1 (peers.py --grid fa2 runs every head_dim)"),
])
def test_bad_head_dims_exit_2_with_one_line(tmp_path, env, message):
    done, calls, other, peer_calls, _ = run_sweep(tmp_path, **env)
    assert done.returncode == 2 and done.stderr == f"sweep.sh: {message}\n"
    assert calls == other == peer_calls == []


def test_the_whole_grid_in_any_order_runs_without_interleave(tmp_path):
    done, calls, *_ = run_sweep(tmp_path, HEAD_DIMS="256,64,128", INTERLEAVE="0")
    assert done.returncode == 0, done.stderr
    assert len(calls) == 19


def test_head_dims_runs_the_decode_grid_at_each_head_dim(tmp_path):
    # 128 is the decode grid's default: the same calls as without HEAD_DIMS.
    done, calls, *_ = run_sweep(tmp_path, options=["--grid", "decode"], HEAD_DIMS="128", CALIBRATE="0")
    assert done.returncode == 0, done.stderr
    assert len(calls) == 5 and {flag(c, "--head_dim") for c in calls} == {"128"}
    # 64 and 256 (rung 10's, session 40): every decode point at both, in one call each, peers on the
    # same flags; no GQA prefill point (head_dim 128 only).
    (tmp_path / "d").mkdir()
    done, calls, _, peer_calls, _ = run_sweep(tmp_path / "d", options=["--grid", "decode"], HEAD_DIMS="64,256",
                                              CALIBRATE="0")
    assert done.returncode == 0, done.stderr
    assert len(calls) == 4 and all(flag(c, "--head_dim") == "64,256" and flag(c, "--seqlen_q") != "8192" for c in calls)
    assert [c.split(" --num_splits")[0].split("peers.py ")[1] for c in peer_calls] == \
        [c.split(" --dtype")[0] for c in calls]
    expected = {p for p in decode_problems() if p[3] != p[4]}  # the decode points, prefill left out
    assert set().union(*(problems_of_call(c) for c in calls)) == \
        {(b, h, k, sq, sk, d, c) for b, h, k, sq, sk, _, c in expected for d in (64, 256)}


@pytest.mark.parametrize("env,message", [
    ({"HEAD_DIMS": "96"}, "HEAD_DIMS=96: each value one of 64, 128, 256"),
    ({"HEAD_DIMS": "64,512"}, "HEAD_DIMS=64,512: each value one of 64, 128, 256"),
    ({"HEAD_DIMS": "64", "INTERLEAVE": "0"}, "HEAD_DIMS=64 needs INTERLEAVE=1 (peers.py --grid decode runs head_dim 128)"),
])
def test_bad_decode_head_dims_exit_2_with_one_line(tmp_path, env, message):
    done, calls, other, peer_calls, _ = run_sweep(tmp_path, options=["--grid", "decode"], **env)
    assert done.returncode == 2 and done.stderr == f"sweep.sh: {message}\n"
    assert calls == other == peer_calls == []


def test_sweep_goes_on_past_a_failing_point_and_exits_1(tmp_path):
    done, calls, _, peer_calls, _ = run_sweep(tmp_path, fail_when="--seqlen_q 2048 --seqlen_k 2048 --num_head 32")
    assert done.returncode == 1
    assert len(calls) == 19 and len(peer_calls) == 19  # everything after the failure still ran
    assert "40 steps, 1 failed" in done.stdout
    assert "failed: " in done.stderr and "--seqlen_q 2048" in done.stderr and "(exit 3)" in done.stderr


def test_sweep_moves_an_earlier_csv_aside(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "ladder.csv").write_text("old rows\n")
    done, *_ = run_sweep(tmp_path)
    assert done.returncode == 0
    moved = [p for p in out.iterdir() if p.name.startswith("ladder.") and p.name != "ladder.csv"]
    assert len(moved) == 1 and moved[0].read_text() == "old rows\n"


def test_sweep_without_the_binary_exits_2(tmp_path):
    done = subprocess.run(["bash", str(SWEEP), str(tmp_path / "missing"), str(tmp_path / "out")],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "fa-bench binary not found" in done.stderr
    assert not (tmp_path / "out").exists()


def test_peers_get_the_commit_fa_bench_stamped(tmp_path):
    # The stand-in fa-bench writes one CSV row with a known commit; the stand-in python records
    # the FA_GIT_COMMIT it was given.
    out = tmp_path / "out"
    fa_bench = tmp_path / "fa-bench"
    fa_bench.write_text('#!/usr/bin/env bash\n[[ "$*" == *--csv* ]] || exit 0\ncsv="${@: -1}"\n'
                        '[[ -s "$csv" ]] || printf "timestamp,git_commit,gpu\\nT,feedc0ffee12,G\\n" > "$csv"\n')
    fa_bench.chmod(fa_bench.stat().st_mode | stat.S_IXUSR)
    seen = tmp_path / "commit.log"
    python = tmp_path / "python"
    python.write_text(f'#!/usr/bin/env bash\necho "$FA_GIT_COMMIT" >> "{seen}"\n')
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    env = dict(os.environ, PYTHON=str(python), KERNELS="naive")
    env.pop("FA_GIT_COMMIT", None)
    env.pop("FA_BENCH_ARGS", None)
    done = subprocess.run(["bash", str(SWEEP), str(fa_bench), str(out)], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert seen.read_text().split() == ["feedc0ffee12"] * 19  # one peers.py call per point, interleaved


# ----------------------------------------------------------------------------------------------
# The decode grid
# ----------------------------------------------------------------------------------------------

def problems_of_call(call: str) -> set[tuple]:
    """The problems one fa-bench call sweeps: the cartesian product of its comma lists, as
    (B, H, H_kv, Sq, Sk, D, causal) (H_kv = H when the call gives none)."""
    lists = {name: [int(v) for v in flag(call, f"--{name}").split(",")]
             for name in ("batch_size", "num_head", "seqlen_q", "seqlen_k", "head_dim", "causal")}
    kv = [int(v) for v in flag(call, "--num_head_kv").split(",")] if "--num_head_kv" in call.split() else [0]
    return {(b, h, k or h, sq, sk, d, bool(c)) for b, h, k, sq, sk, d, c in itertools.product(
        lists["batch_size"], lists["num_head"], kv, lists["seqlen_q"], lists["seqlen_k"], lists["head_dim"],
        lists["causal"])}


def decode_problems() -> set[tuple]:
    return {(p.batch, p.num_head, p.num_head_kv, p.seqlen_q, p.seqlen_k, p.head_dim, p.causal)
            for p in decode_grid(["BFloat16"])}


def test_decode_sweep_runs_peers_decode_grid_with_the_fused_kernels_and_a_calibrated_ceiling(tmp_path):
    done, calls, other, peer_calls, out = run_sweep(tmp_path, options=["--grid", "decode"], kernels=None)
    assert done.returncode == 0, done.stderr
    peaks = str(out / "peaks.csv")
    # --list read for the kernels, --schema saved, then the copy ceiling calibrated before any row.
    assert other == ["--list", "--schema", f"--calibrate --peaks_file {peaks}"]
    assert len(calls) == 5
    covered = [problems_of_call(c) for c in calls]
    assert sum(len(c) for c in covered) == len(decode_problems())  # no problem twice
    assert set().union(*covered) == decode_problems()
    for call in calls:
        # naive (untiled) is left out by default; the list comes from fa-bench --list.
        assert flag(call, "--kernel") == "mma,wgmma_ws" and flag(call, "--dtype") == "BFloat16"
        assert flag(call, "--csv") == str(out / "decode.csv") and flag(call, "--peaks_file") == peaks
    # Interleaved (INTERLEAVE's default): after or before each fa-bench call, peers.py on its
    # problem flags with --num_splits 0,1 (FA4's heuristic and unsplit).
    assert [c.split(" --num_splits")[0].split("peers.py ")[1] for c in peer_calls] == \
        [c.split(" --dtype")[0] for c in calls]
    assert all(c.endswith(f"--num_splits 0,1 --backends auto --fa-bench {tmp_path / 'fa-bench'} "
                          f"--csv {out / 'decode.csv'} --check") for c in peer_calls)
    assert "--plots decode" in done.stdout


def test_decode_sweep_interleaves_and_without_it_runs_the_peers_grid_once(tmp_path):
    log = tmp_path / "calls.log"
    fa_bench, python = stand_in(tmp_path / "fa-bench", log), stand_in(tmp_path / "python", log)
    env = dict(os.environ, PYTHON=str(python), KERNELS="mma", CALIBRATE="0")
    for name in ("PEERS_ARGS", "FA_BENCH_ARGS", "PEERS", "INTERLEAVE"):
        env.pop(name, None)
    done = subprocess.run(["bash", str(SWEEP), "--grid", "decode", str(fa_bench), str(tmp_path / "out")],
                          capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    who = ["peers" if "peers.py" in c else "fa-bench" for c in log.read_text().splitlines() if "--batch_size" in c]
    pairs = [tuple(who[i:i + 2]) for i in range(0, len(who), 2)]
    assert pairs == [("fa-bench", "peers") if i % 2 == 0 else ("peers", "fa-bench") for i in range(5)]
    (tmp_path / "old").mkdir()
    done, calls, _, peer_calls, out = run_sweep(tmp_path / "old", options=["--grid", "decode"], kernels="mma",
                                                CALIBRATE="0", INTERLEAVE="0")
    assert done.returncode == 0, done.stderr
    assert len(calls) == 5
    assert peer_calls == [f"{REPO_ROOT}/scripts/peers.py --grid decode --num_splits 0,1 --backends auto "
                          f"--fa-bench {tmp_path / 'old' / 'fa-bench'} --csv {out / 'decode.csv'} --check"]


def test_decode_sweep_takes_kernels_and_calibrate_from_the_environment(tmp_path):
    done, calls, other, peer_calls, _ = run_sweep(tmp_path, options=["--grid=decode"], kernels="mma",
                                                  CALIBRATE="0", PEERS="fa2,cudnn,fa4", PEERS_ARGS="")
    assert done.returncode == 0, done.stderr
    assert other == ["--schema"]  # neither --list (KERNELS given) nor --calibrate
    assert all(flag(c, "--kernel") == "mma" and "--peaks_file" not in c for c in calls)
    assert flag(peer_calls[0], "--backends") == "fa2,cudnn,fa4" and "--check" not in peer_calls[0]


def test_decode_dry_run_prints_the_steps_and_runs_nothing(tmp_path):
    done, calls, other, peer_calls, out = run_sweep(tmp_path, options=["--dry-run", "--grid", "decode"],
                                                    kernels=None)
    assert done.returncode == 0, done.stderr
    assert calls == [] and peer_calls == [] and other == ["--list"]  # only asked which kernels are fused
    assert not out.exists()
    steps = [line[2:] for line in done.stdout.splitlines() if line.startswith("+ ")]
    assert len(steps) == 13  # schema, calibrate, 5 fa-bench calls, each with its peers.py call, remodel.py
    assert steps[0] == f"{tmp_path / 'fa-bench'} --schema > {out / 'schema.json'}"
    assert sum("--kernel mma,wgmma_ws" in s for s in steps) == 5
    assert sum("peers.py" in s for s in steps) == 5
    assert "sweep.sh: dry run, 13 steps; nothing was run" in done.stdout


def test_fa2_sweep_is_the_default_grid_and_calibrates_only_when_asked(tmp_path):
    done, calls, other, _, out = run_sweep(tmp_path, CALIBRATE="1")
    assert done.returncode == 0, done.stderr
    assert len(calls) == 19 and other == ["--schema", f"--calibrate --peaks_file {out / 'peaks.csv'}"]
    assert all(flag(c, "--peaks_file") == str(out / "peaks.csv") for c in calls)


@pytest.mark.parametrize("args,message", [
    (["--grid", "prefill"], "--grid prefill: choose fa2 or decode"),
    (["--grid"], "--grid needs a value: fa2 or decode (--help)"),
    (["--decode"], "unknown option --decode (--help)"),
    (["a", "b", "c"], "at most two arguments, FA_BENCH and OUT_DIR; got 3 (--help)"),
])
def test_bad_arguments_exit_2_with_one_line(tmp_path, args, message):
    done = subprocess.run(["bash", str(SWEEP), *args], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.strip() == f"sweep.sh: {message}"
    assert list(tmp_path.iterdir()) == []


def test_a_bad_calibrate_value_exits_2(tmp_path):
    done, calls, *_ = run_sweep(tmp_path, options=["--grid", "decode"], CALIBRATE="yes")
    assert done.returncode == 2 and "CALIBRATE=yes: 0 or 1" in done.stderr and calls == []


def test_help_describes_both_grids():
    done = subprocess.run(["bash", str(SWEEP), "--help"], capture_output=True, text=True)
    assert done.returncode == 0
    for text in ("--grid fa2|decode", "--dry-run", "decode.csv", "CALIBRATE", "--num_splits 0,1"):
        assert text in done.stdout, text


def test_decode_sweep_with_the_real_fa_bench_writes_a_static_row_per_kernel_and_decode_problem(tmp_path, schema):
    # The GPU hidden, fa-bench writes each (kernel, problem)'s static row: the calls' problems as
    # fa-bench itself reads the flags, each once per kernel of its default list (from its own --list).
    log = tmp_path / "python.log"
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", CALIBRATE="0", PYTHON=str(stand_in(tmp_path / "python", log)))
    env.pop("KERNELS", None)
    env.pop("FA_BENCH_ARGS", None)
    out = tmp_path / "out"
    done = subprocess.run(["bash", str(SWEEP), "--grid", "decode", str(schema.fa_bench), str(out)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    with (out / "decode.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    got = [(r["kernel"], int(r["batch_size"]), int(r["num_head"]), int(r["num_head_kv"]), int(r["seqlen_q"]),
            int(r["seqlen_k"]), int(r["head_dim"]), r["is_causal"] == "1") for r in rows]
    steps = [line for line in done.stdout.splitlines() if line.startswith("+ ") and "--kernel" in line]
    assert len({flag(step, "--kernel") for step in steps}) == 1
    fused = [k["slug"] for k in schema.kernels if all(i["m_block_size"] > 0 for i in k["instances"])]
    assert flag(steps[0], "--kernel").split(",") == fused and len(fused) < len(schema.kernels)
    assert len(got) == len(set(got)) == len(fused) * len(decode_problems())
    assert {g[1:] for g in got} == decode_problems() and {g[0] for g in got} == set(fused)


def test_decode_sweep_defaults_to_a_folder_of_its_own(tmp_path):
    # Without OUT_DIR: results/<gpu>/decode, so the fa2 sweep's schema.json beside ladder.csv stays.
    fa_bench = stand_in(tmp_path / "fa-bench", tmp_path / "fa-bench.log")
    for options, folder in ((["--grid", "decode"], "/decode"), ([], "")):
        done = subprocess.run(["bash", str(SWEEP), "--dry-run", *options, str(fa_bench)], capture_output=True,
                              text=True)
        assert done.returncode == 0, done.stderr
        schema_step = done.stdout.splitlines()[0]
        assert schema_step.startswith(f"+ {fa_bench} --schema > {REPO_ROOT}/results/")
        assert schema_step.endswith(f"{folder}/schema.json") and ("/decode/" in schema_step) == bool(folder)


def test_every_sweep_ends_with_remodel(tmp_path):
    """peers.py leaves a peer row's model columns empty; the sweep's last step fills them."""
    for options in ([], ["--grid", "decode"]):
        run_dir = tmp_path / ("decode" if options else "fa2")
        run_dir.mkdir()
        done, _, _, _, out = run_sweep(run_dir, options=options)
        assert done.returncode == 0, done.stderr
        python_calls = (run_dir / "python.log").read_text().splitlines()
        csv_name = "decode.csv" if options else "ladder.csv"
        assert python_calls[-1] == (f"{REPO_ROOT / 'scripts' / 'remodel.py'} --fa-bench {run_dir / 'fa-bench'} "
                                    f"{out / csv_name}")
        assert sum("remodel.py" in c for c in python_calls) == 1
