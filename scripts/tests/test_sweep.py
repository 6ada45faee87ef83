"""sweep.sh with a stand-in fa-bench and a stand-in python: which calls, and failure handling."""
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from peer_backends.common import fa2_grid

REPO_ROOT = Path(__file__).resolve().parents[2]
SWEEP = REPO_ROOT / "scripts" / "sweep.sh"

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def stand_in(path: Path, log: Path, fail_when: str = "") -> Path:
    """An executable that appends its arguments to `log` as one line; exits 3 if they contain
    `fail_when`."""
    fail = f'case "$*" in *"{fail_when}"*) exit 3;; esac\n' if fail_when else ""
    path.write_text(f'#!/usr/bin/env bash\necho "$*" >> "{log}"\n{fail}exit 0\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def run_sweep(tmp_path, fail_when="", **env_vars):
    """(the run, fa-bench's grid calls, its other calls, the peers.py calls, OUT_DIR)."""
    calls = tmp_path / "fa-bench.log"
    peer_calls = tmp_path / "python.log"
    fa_bench = stand_in(tmp_path / "fa-bench", calls, fail_when)
    python = stand_in(tmp_path / "python", peer_calls)
    out = tmp_path / "out"
    env = dict(os.environ, PYTHON=str(python), KERNELS="naive,mma", **env_vars)
    for name in ("PEERS_ARGS", "FA_BENCH_ARGS", "PEERS"):
        if name not in env_vars:
            env.pop(name, None)
    done = subprocess.run(["bash", str(SWEEP), str(fa_bench), str(out)], capture_output=True, text=True, env=env)
    read = lambda p: p.read_text().splitlines() if p.exists() else []  # noqa: E731
    grid = [c for c in read(calls) if "--batch_size" in c]
    other = [c for c in read(calls) if "--batch_size" not in c]
    return done, grid, other, read(peer_calls), out


def flag(args: str, name: str) -> str:
    words = args.split()
    return words[words.index(name) + 1]


def test_sweep_runs_the_fa2_grid_and_the_peers(tmp_path, schema):
    done, calls, other, peer_calls, out = run_sweep(tmp_path)
    assert done.returncode == 0, done.stderr
    assert other == ["--schema"]  # saved as OUT_DIR/schema.json for plot.py --schema-json
    assert len(calls) == 13  # 12 grid points + the default; causal 0,1 inside each call
    shapes = {(int(flag(c, "--batch_size")), int(flag(c, "--seqlen_q")), int(flag(c, "--num_head")),
               int(flag(c, "--head_dim"))) for c in calls}
    # The same grid as peers.py --grid fa2 (whose default point is fa-bench's default problem).
    assert shapes == {(p.batch, p.seqlen_q, p.num_head, p.head_dim) for p in fa2_grid(["BFloat16"], schema.defaults)}
    for call in calls:
        assert flag(call, "--seqlen_k") == flag(call, "--seqlen_q")
        assert flag(call, "--causal") == "0,1" and flag(call, "--dtype") == "BFloat16"
        assert flag(call, "--kernel") == "naive,mma" and flag(call, "--csv") == str(out / "ladder.csv")
    assert peer_calls == [f"{REPO_ROOT}/scripts/peers.py --grid fa2 --backends auto --fa-bench {tmp_path / 'fa-bench'} "
                          f"--csv {out / 'ladder.csv'} --check"]


def test_peers_come_from_the_peers_variable(tmp_path):
    done, _, _, peer_calls, _ = run_sweep(tmp_path, PEERS="fa2,cudnn,fa4,cute", PEERS_ARGS="")
    assert done.returncode == 0, done.stderr
    assert flag(peer_calls[0], "--backends") == "fa2,cudnn,fa4,cute" and "--check" not in peer_calls[0]


def test_sweep_goes_on_past_a_failing_point_and_exits_1(tmp_path):
    done, calls, _, peer_calls, _ = run_sweep(tmp_path, fail_when="--seqlen_q 2048 --seqlen_k 2048 --num_head 32")
    assert done.returncode == 1
    assert len(calls) == 13 and len(peer_calls) == 1  # everything after the failure still ran
    assert "15 steps, 1 failed" in done.stdout
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
    assert seen.read_text().split() == ["feedc0ffee12"]
