"""fa4_sass.py: the rules on its flags (one line naming the flag, exit 2), and a missing package or
tool said in one line (exit 1) before anything is compiled. The compile itself needs FA4 and its
CuTe DSL (several GB with torch), which CI does not install; session 36 ran it (its README)."""
import importlib.util
import subprocess
import sys

import pytest

import fa4_sass

SCRIPT = fa4_sass.__file__


def run(*flags):
    return subprocess.run([sys.executable, SCRIPT, *flags], capture_output=True, text=True, check=False)


@pytest.mark.parametrize("flags, rule", [
    (["--head_dim", "100"], "--head_dim 100: must be one of 64, 96, 128, 192, 256"),
    (["--dtype", "Float8E4M3FN"], "--dtype Float8E4M3FN: must be one of BFloat16, Float16 (FA4's forward has no FP8 on sm90)"),
    (["--seqlen_k", "0"], "--seqlen_k 0: must be at least 1"),
    (["--num_head", "16", "--num_head_kv", "3"], "--num_head_kv 3: must divide --num_head 16"),
    (["--is_causal", "2"], "--is_causal 2: must be 0 or 1"),
    (["--arch", "sm_80"], "--arch sm_80: must be one of sm_90a, sm_100a"),
])
def test_bad_flags_get_one_line_and_exit_2(tmp_path, flags, rule):
    result = run("--out", str(tmp_path / "o"), *flags)
    assert result.returncode == 2
    assert result.stderr.strip() == f"fa4_sass.py: {rule}"
    assert not (tmp_path / "o").exists()  # nothing ran


def test_out_is_required():
    result = run("--head_dim", "128")
    assert result.returncode == 2 and "--out" in result.stderr


def test_a_missing_package_is_one_line_and_exit_1(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "flash_attn.cute" else object())
    monkeypatch.setattr(fa4_sass.shutil, "which", lambda tool: "/bin/" + tool)
    assert fa4_sass.main(["--out", str(tmp_path / "o")]) == 1
    assert capsys.readouterr().err.strip() == ("fa4_sass.py: flash_attn.cute is not importable "
                                               "(pip install flash-attn-4)")
    assert not (tmp_path / "o").exists()


def test_a_missing_cuobjdump_is_one_line_and_exit_1(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: object())
    monkeypatch.setattr(fa4_sass.shutil, "which", lambda tool: None)
    assert fa4_sass.main(["--out", str(tmp_path / "o"), "--cuobjdump", "/nowhere/cuobjdump"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("fa4_sass.py: /nowhere/cuobjdump not found: pass --cuobjdump")
    assert "\n" not in err
