"""The optional peers (FlashAttention-4, the CuTe DSL example) where their packages are missing:
each says why in one line, its rows carry that reason, and nothing crashes.

None of torch, flash-attn-4 or nvidia-cutlass-dsl is installed for these tests; where torch is
needed to get as far as writing rows, a stand-in module gives the device facts (no GPU is used:
a peer that cannot run allocates nothing).
"""
import csv
import importlib.machinery
import sys
import types

import pytest

import fa_schema
import peers
from peer_backends import cute_example, fa4, torch_sdpa
from peer_backends.common import Problem, Refusal

EXAMPLE = cute_example.EXAMPLE_FILE


@pytest.fixture
def only_torch_installed(monkeypatch):
    """As if torch imported and nothing else optional did."""
    def missing(name):
        return name != "torch"
    for module in (torch_sdpa, fa4, cute_example):
        monkeypatch.setattr(module, "module_missing", missing)


def test_fa4_without_flash_attn_says_how_to_install_it(only_torch_installed):
    assert fa4.BACKEND.unavailable() == "flash_attn.cute is not importable (pip install flash-attn-4)"


def test_fa4_without_torch_says_so(monkeypatch):
    monkeypatch.setattr(fa4, "module_missing", lambda name: True)
    assert fa4.BACKEND.unavailable() == "PyTorch is not installed"


def test_fa4_refuses_what_it_would_compute_differently():
    backend = fa4.FlashAttention4()
    with pytest.raises(Refusal, match="Float16 and BFloat16, not Float32"):
        backend.prepare(None, Problem(1, 128, 128, 2, 64, False, "Float32"), None, None, None, 0.125, None)
    # Bottom-right (FlashAttention) and top-left (fa-bench) causal masks differ when Sq != Sk.
    with pytest.raises(Refusal, match="bottom-right aligned"):
        backend.prepare(None, Problem(1, 128, 256, 2, 64, True), None, None, None, 0.125, None)
    launch = backend.prepare(None, Problem(1, 256, 256, 2, 64, True), None, None, None, 0.125, None)
    assert callable(launch)  # a square causal problem is FA4's and fa-bench's same function


def configured(path):
    backend = cute_example.CuteExample()
    backend.configure(types.SimpleNamespace(cute_example=str(path) if path else None))
    return backend


def test_cute_without_a_path_says_where_the_example_lives(monkeypatch, only_torch_installed):
    monkeypatch.delenv(cute_example.ENV_EXAMPLE, raising=False)
    why = configured(None).unavailable()
    assert why.startswith("no CuTe DSL example given: pass --cute-example PATH")
    assert "examples/python/CuTeDSL/cute/ampere/kernel/attention/flash_attention_v2.py" in why
    assert "FA_CUTE_EXAMPLE" in why


def test_cute_path_from_the_environment(monkeypatch, tmp_path, only_torch_installed):
    (tmp_path / EXAMPLE).write_text("# stand-in\n")
    monkeypatch.setenv(cute_example.ENV_EXAMPLE, str(tmp_path / EXAMPLE))
    backend = configured(None)
    assert "nvidia-cutlass-dsl is not importable" in backend.unavailable()
    assert backend.example == tmp_path / EXAMPLE


@pytest.mark.parametrize("place", cute_example.EXAMPLE_PLACES)
def test_cute_finds_the_example_in_a_cutlass_checkout_of_either_layout(tmp_path, place):
    (tmp_path / place).parent.mkdir(parents=True)
    (tmp_path / place).write_text("# stand-in\n")
    assert cute_example.resolve_example(tmp_path) == (tmp_path / place, "")


def test_cute_with_a_wrong_path_names_it(tmp_path, only_torch_installed):
    assert configured(tmp_path / "nope.py").unavailable() == f"{tmp_path / 'nope.py'}: no such file " \
                                                             "(--cute-example / $FA_CUTE_EXAMPLE)"
    assert configured(tmp_path).unavailable().startswith(f"{tmp_path}: no {EXAMPLE} at examples/python/CuTeDSL")


def test_cute_without_cutlass_says_how_to_install_it(tmp_path, only_torch_installed):
    (tmp_path / EXAMPLE).write_text("# stand-in\n")
    why = configured(tmp_path / EXAMPLE).unavailable()
    assert why.startswith("nvidia-cutlass-dsl is not importable (pip install nvidia-cutlass-dsl;")
    assert "DIR/nvidia_cutlass_dsl/dsl_packages on PYTHONPATH" in why


def test_a_broken_example_is_a_reason_not_a_crash(tmp_path):
    (tmp_path / EXAMPLE).write_text("raise ImportError('no cutlass here')\n")
    backend = configured(tmp_path / EXAMPLE)
    backend.example = tmp_path / EXAMPLE
    with pytest.raises(Refusal, match="does not import: (ModuleNotFoundError|ImportError)"):
        backend.setup(None)


def test_auto_leaves_out_what_is_missing_and_named_backends_keep_their_rows(monkeypatch, capsys,
                                                                              only_torch_installed):
    monkeypatch.delenv(cute_example.ENV_EXAMPLE, raising=False)
    args = peers.build_parser().parse_args(["--backends", "auto"])
    chosen, skip = peers.select_backends(args.backends, args)
    assert [b.name for b in chosen] == ["fa2", "cudnn"]
    err = capsys.readouterr().err
    assert "auto: leaving out fa4: flash_attn.cute is not importable" in err
    assert "auto: leaving out cute: no CuTe DSL example given" in err
    args = peers.build_parser().parse_args(["--backends", "fa2,fa4,cute"])
    chosen, skip = peers.select_backends(args.backends, args)
    assert [b.name for b in chosen] == ["fa2", "fa4", "cute"]
    assert set(skip) == {"fa4", "cute"} and skip["fa4"].startswith("flash_attn.cute is not importable")


def stand_in_torch():
    """Just what peers.py asks of torch before it measures anything: a device and its facts."""
    torch = types.ModuleType("torch")
    torch.__spec__ = importlib.machinery.ModuleSpec("torch", None)  # so find_spec("torch") finds it
    props = types.SimpleNamespace(name="Stand-in GPU", multi_processor_count=132, uuid="", clock_rate=1980000)
    torch.cuda = types.SimpleNamespace(is_available=lambda: True, set_device=lambda device: None,
                                       get_device_properties=lambda device: props)
    torch.version = types.SimpleNamespace(cuda="13.0")
    return torch


def test_missing_peers_get_rows_that_say_why(monkeypatch, tmp_path, schema):
    monkeypatch.setitem(sys.modules, "torch", stand_in_torch())
    monkeypatch.delenv(cute_example.ENV_EXAMPLE, raising=False)
    out = tmp_path / "peers.csv"
    code = peers.main(["--backends", "fa4,cute", "--batch_size", "1", "--seqlen_q", "256", "--seqlen_k", "256",
                       "--num_head", "2", "--head_dim", "64", "--causal", "0,1", "--m_block_size", "64,128",
                       "--csv", str(out)])
    assert code == 0
    with out.open(newline="") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
    assert reader.fieldnames == schema.columns
    # fa4 once per problem; cute once per problem and tile (64x64x128, 128x64x128).
    assert [(r["kernel"], r["is_causal"], r["m_block_size"]) for r in rows] == [
        ("fa4", "0", ""), ("cute_fa2", "0", "64"), ("cute_fa2", "0", "128"),
        ("fa4", "1", ""), ("cute_fa2", "1", "64"), ("cute_fa2", "1", "128")]
    for row in rows:
        assert row["note"].startswith("skipped: ") and row["time_ms_median"] == row["tflops"] == ""
        assert row["gpu"] == "Stand-in GPU" and row["layout"] == "bshd"
    assert rows[0]["note"] == "skipped: flash_attn.cute is not importable (pip install flash-attn-4)"
    assert rows[1]["note"].startswith("skipped: no CuTe DSL example given")
    fa_bench_rows = fa_schema.analytic_rows(schema.fa_bench, [("BFloat16", 1, 256, 256, 2, 64, c) for c in (0, 1)])
    assert rows[3]["flops"] == fa_bench_rows[("BFloat16", 1, 256, 256, 2, 64, 1)]["flops"]
