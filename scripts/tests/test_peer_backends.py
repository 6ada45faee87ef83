"""The optional peers (FlashAttention-4, the CuTe DSL example) where their packages are missing:
each says why in one line, its rows carry that reason, and nothing crashes.

None of torch, flash-attn-4 or nvidia-cutlass-dsl is installed for these tests; where torch is
needed to get as far as writing rows, a stand-in module gives the device facts (no GPU is used:
a peer that cannot run allocates nothing). For GQA and split counts, a fuller stand-in torch (and
flash_attn.cute) records what each backend is called with and times every launch at 0.25 ms, so
the whole path from the flags to the CSV row runs without a GPU.
"""
import contextlib
import csv
import importlib.machinery
import sys
import types

import pytest

import fa_schema
import peers
from peer_backends import cute_example, fa4, gpu_clocks, timing, torch_sdpa
from peer_backends.common import Problem, Refusal

EXAMPLE = cute_example.EXAMPLE_FILE


@pytest.fixture(autouse=True)
def no_nvml(monkeypatch):
    """No NVML in these tests, whatever the machine has: the tests that want readings install a
    stand-in sensor."""
    monkeypatch.setattr(gpu_clocks, "open_sensor", lambda torch, device: (None, "no NVML in the tests"))


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
    fa_bench_rows = fa_schema.analytic_rows(schema.fa_bench, [("BFloat16", 1, 256, 256, 2, 2, 64, c) for c in (0, 1)])
    assert rows[3]["flops"] == fa_bench_rows[("BFloat16", 1, 256, 256, 2, 2, 64, 1)]["flops"]


# ----------------------------------------------------------------------------------------------
# GQA and split counts reach the backends: a stand-in torch that records the calls
# ----------------------------------------------------------------------------------------------

class FakeTensor:
    """Only a shape: what peers.py does to tensors before a backend gets them (transpose,
    contiguous, float) keeps the shape honest, so the tests see what a backend would receive."""

    def __init__(self, shape):
        self.shape = tuple(shape)

    def transpose(self, a, b):
        shape = list(self.shape)
        shape[a], shape[b] = shape[b], shape[a]
        return FakeTensor(shape)

    def contiguous(self):
        return self

    def float(self):
        return self


class FakeEvent:
    def __init__(self, enable_timing=False):
        del enable_timing

    def record(self):
        pass

    def synchronize(self):
        pass

    def elapsed_time(self, end):
        return 0.25  # ms: every timed launch of the fake takes a quarter millisecond


def recording_torch(monkeypatch, version="2.11.0+cu130"):
    """A stand-in torch for peers.main: device facts, inputs, CUDA events, and SDPA that records
    the shapes and keywords it is called with (in `calls`). Installs itself in sys.modules."""
    calls = []
    torch = stand_in_torch()
    torch.__version__ = version
    torch.bfloat16, torch.float16, torch.float32 = "bfloat16", "float16", "float32"
    torch.Generator = lambda device: types.SimpleNamespace(manual_seed=lambda seed: None)
    torch.randn = lambda *shape, dtype, device, generator: FakeTensor(shape)
    cuda = torch.cuda
    cuda.synchronize = lambda: None
    cuda.empty_cache = lambda: None
    cuda.OutOfMemoryError = type("OutOfMemoryError", (RuntimeError,), {})
    cuda.Event = FakeEvent

    def sdpa(q, k, v, is_causal=False, scale=None, **kwargs):
        calls.append(("sdpa", q.shape, k.shape, v.shape, kwargs))
        return q
    functional = types.ModuleType("torch.nn.functional")
    functional.scaled_dot_product_attention = sdpa
    attention = types.ModuleType("torch.nn.attention")
    attention.SDPBackend = types.SimpleNamespace(FLASH_ATTENTION="flash", CUDNN_ATTENTION="cudnn",
                                                 EFFICIENT_ATTENTION="efficient", MATH="math")
    attention.sdpa_kernel = lambda backends: contextlib.nullcontext()
    nn = types.ModuleType("torch.nn")
    nn.functional, nn.attention = functional, attention
    torch.nn = nn
    for name, module in (("torch", torch), ("torch.nn", nn), ("torch.nn.functional", functional),
                         ("torch.nn.attention", attention)):
        monkeypatch.setitem(sys.modules, name, module)
    return torch, calls


def recording_flash_attn(monkeypatch, calls, with_num_splits=True):
    """A stand-in flash_attn.cute whose flash_attn_func records what it is given."""
    if with_num_splits:
        def flash_attn_func(q, k, v, softmax_scale=None, causal=False, num_splits=1, pack_gqa=None):
            calls.append(("fa4", q.shape, k.shape, v.shape, {"num_splits": num_splits}))
            return q, None
    else:
        def flash_attn_func(q, k, v, softmax_scale=None, causal=False):
            calls.append(("fa4", q.shape, k.shape, v.shape, {}))
            return q
    package = types.ModuleType("flash_attn")
    cute = types.ModuleType("flash_attn.cute")
    cute.flash_attn_func = flash_attn_func
    package.cute = cute
    monkeypatch.setitem(sys.modules, "flash_attn", package)
    monkeypatch.setitem(sys.modules, "flash_attn.cute", cute)
    monkeypatch.setattr(fa4, "module_missing", lambda name: False)


def read_rows(path):
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def test_gqa_reaches_the_sdpa_backends_with_kv_heads_and_enable_gqa(monkeypatch, tmp_path):
    torch, calls = recording_torch(monkeypatch)
    out = tmp_path / "peers.csv"
    code = peers.main(["--backends", "fa2,cudnn", "--batch_size", "2", "--seqlen_q", "1", "--seqlen_k", "4096",
                       "--num_head", "32", "--num_head_kv", "32,8", "--head_dim", "128", "--iterations", "3",
                       "--warmup_iterations", "1", "--warmup_time", "0", "--gpu_warmup_time", "0", "--csv", str(out)])
    assert code == 0
    # Repeats collapsed: both backends get the same arguments, so one entry per problem remains.
    first_calls = [c for i, c in enumerate(calls) if i == 0 or c != calls[i - 1]]
    # SDPA takes (B, H, S, D): K and V keep their 8 heads (never repeated to 32), and only GQA
    # calls carry enable_gqa, so MHA calls are exactly the pre-GQA ones.
    assert first_calls == [
        ("sdpa", (2, 32, 1, 128), (2, 32, 4096, 128), (2, 32, 4096, 128), {}),
        ("sdpa", (2, 32, 1, 128), (2, 8, 4096, 128), (2, 8, 4096, 128), {"enable_gqa": True}),
    ]
    assert len(calls) == 2 * 2 * (1 + 1 + 3)  # 2 backends × 2 problems × (check + warm-up + timed)
    rows = read_rows(out)
    assert [(r["kernel"], r["num_head_kv"]) for r in rows] == [
        ("torch_fa2", "32"), ("torch_cudnn", "32"), ("torch_fa2", "8"), ("torch_cudnn", "8")]
    for row in rows:
        assert row["time_ms_median"] == "0.25" and row["note"] == ""
        kv = int(row["num_head_kv"])
        assert int(row["compulsory_bytes"]) == (2 * 1 * 32 + 2 * 4096 * kv) * 2 * 128 * 2  # fa-bench's, with H_kv
        assert float(row["bandwidth_gbs"]) == pytest.approx(int(row["compulsory_bytes"]) / 0.25e6, rel=1e-5)


def test_gqa_on_a_pytorch_without_enable_gqa_is_refused_with_the_reason(monkeypatch):
    torch, calls = recording_torch(monkeypatch, version="2.4.1")
    backend = torch_sdpa.BACKENDS[0]
    p = Problem(1, 1, 256, 8, 64, False, num_head_kv=2)
    with pytest.raises(Refusal, match=r"needs SDPA's enable_gqa, PyTorch 2.5 or newer; this is 2.4.1"):
        backend.prepare(torch, p, None, None, None, 0.125, None)
    assert callable(backend.prepare(torch, Problem(1, 1, 256, 8, 64, False), None, None, None, 0.125, None))
    assert torch_sdpa.torch_version(types.SimpleNamespace(__version__="2.11.0+cu130")) == (2, 11)


def test_fa4_gets_kv_heads_natively_and_one_row_per_split_count(monkeypatch, tmp_path):
    torch, calls = recording_torch(monkeypatch)
    recording_flash_attn(monkeypatch, calls)
    out = tmp_path / "peers.csv"
    code = peers.main(["--backends", "fa4", "--batch_size", "1", "--seqlen_q", "1", "--seqlen_k", "8192",
                       "--num_head", "32", "--num_head_kv", "8", "--head_dim", "128", "--num_splits", "0,1,4",
                       "--iterations", "2", "--warmup_iterations", "0", "--warmup_time", "0", "--gpu_warmup_time", "0",
                       "--csv", str(out)])
    assert code == 0
    # FA4 takes (B, S, H, D): K/V with their 8 heads; num_splits exactly as given.
    assert {c[:4] for c in calls} == {("fa4", (1, 1, 32, 128), (1, 8192, 8, 128), (1, 8192, 8, 128))}
    assert [c[4]["num_splits"] for c in calls] == [0, 0, 0, 1, 1, 1, 4, 4, 4]
    rows = read_rows(out)
    assert [(r["kernel"], r["num_head_kv"], r["num_splits"]) for r in rows] == [
        ("fa4", "8", ""), ("fa4", "8", "1"), ("fa4", "8", "4")]  # 0: FA4's heuristic, its count unknown
    assert rows[0]["note"].startswith("num_splits=0: FA4's own heuristic")
    assert rows[1]["note"].startswith("num_splits=1: no split-KV")
    assert rows[2]["note"].startswith("num_splits=4")
    assert all("GQA native, K/V 8 heads, pack_gqa left to FA4" in r["note"] for r in rows)
    assert all(r["time_ms_median"] == "0.25" and r["layout"] == "bshd" for r in rows)


def test_fa4_without_num_splits_runs_unsplit_and_refuses_a_count(monkeypatch):
    torch, calls = recording_torch(monkeypatch)
    recording_flash_attn(monkeypatch, calls, with_num_splits=False)
    backend = fa4.FlashAttention4()
    backend.setup(torch)
    assert not backend.takes_num_splits
    p = Problem(1, 1, 8192, 32, 128, False, num_head_kv=8)
    with pytest.raises(Refusal, match="takes no num_splits"):
        backend.prepare(torch, p, None, None, None, 0.125, 4)
    launch = backend.prepare(torch, p, FakeTensor((1, 1, 32, 128)), FakeTensor((1, 8192, 8, 128)),
                             FakeTensor((1, 8192, 8, 128)), 0.125, 1)
    launch()
    assert calls[-1][4] == {} and launch.note.startswith("num_splits: not a flash_attn_func argument")


def test_fa4_without_split_kv_on_the_gpu_says_so():
    # flash-attn-4 4.0.0b36's sm90 path, when its heuristic (or the caller) asks for splits.
    note = fa4.BACKEND.failure_note(AssertionError("SplitKV not supported on SM 9.0"), [])
    assert note == ("refused: FA4 has no split-KV on this GPU's path (AssertionError: SplitKV not supported on "
                    "SM 9.0); its num_splits=1 row is the unsplit decode")
    assert fa4.BACKEND.failure_note(RuntimeError("boom"), []) == "RuntimeError: boom"


def test_only_split_backends_get_a_row_per_split_count_and_tiled_ones_per_tile():
    tiles, splits = [(128, 64, 128), (64, 64, 128)], [0, 1]
    assert fa4.BACKEND.variants(tiles, splits) == [0, 1]
    assert cute_example.BACKEND.variants(tiles, splits) == tiles
    assert torch_sdpa.BACKENDS[0].variants(tiles, splits) == [None]
    assert fa4.BACKEND.variant_columns(0) == {} and fa4.BACKEND.variant_columns(2) == {"num_splits": 2}
    assert cute_example.BACKEND.variant_columns((64, 64, 128)) == {
        "m_block_size": 64, "n_block_size": 64, "num_threads": 128}


def test_the_cute_example_refuses_gqa_with_the_reason():
    backend = cute_example.CuteExample()  # not set up: the refusal needs no cutlass
    with pytest.raises(Refusal, match=r"the CuTe DSL example has no GQA: its K/V have num_head heads \(32\), "
                                      r"this problem's have num_head_kv 8"):
        backend.prepare(None, Problem(1, 1, 8192, 32, 128, False, num_head_kv=8), None, None, None, 0.125,
                        (128, 64, 128))


# ----------------------------------------------------------------------------------------------
# Timing as fa-bench times: a time-based warm-up and minimum time (the fake's launches take 0.25 ms)
# ----------------------------------------------------------------------------------------------

def run_cudnn_once(monkeypatch, tmp_path, *timing_flags):
    torch, calls = recording_torch(monkeypatch)
    out = tmp_path / "peers.csv"
    out.unlink(missing_ok=True)  # peers.py appends: one row per call here
    code = peers.main(["--backends", "cudnn", "--batch_size", "1", "--seqlen_q", "128", "--seqlen_k", "128",
                       "--num_head", "2", "--head_dim", "64", "--csv", str(out), *timing_flags])
    assert code == 0
    rows = read_rows(out)
    assert len(rows) == 1
    return calls, rows[0]


def test_peers_warm_up_and_time_for_as_long_as_fa_bench_by_default(monkeypatch, tmp_path):
    # 5 warm-up launches, then batches of 20 between one event pair (the fake's pair reads 0.25 ms)
    # until 1 ms of GPU time: 4 batches, 80 launches; timed launches (0.25 ms each) in batches of
    # 20 until they sum to 12 ms: 3 batches, 60 launches, and a fourth queued behind the third
    # (the pipeline's, as fa-bench's), waited for and not counted.
    calls, row = run_cudnn_once(monkeypatch, tmp_path, "--warmup_time", "0.001", "--gpu_warmup_time", "0",
                                "--min_time", "0.012")
    assert len(calls) == 1 + 5 + 80 + 80  # the first (checking) launch, warm-up, timed
    assert (row["warmup_iterations"], row["iterations"]) == ("85", "60")
    assert float(row["warmup_ms"]) == pytest.approx(1.0)
    assert row["time_ms_median"] == "0.25"
    # The defaults are fa-bench's: 0.2 s timed, and a process's first row warms up for 1 s
    # (--gpu_warmup_time; 4,000 batches here) where later ones take 0.2 s (next test).
    calls, row = run_cudnn_once(monkeypatch, tmp_path)
    assert (row["warmup_iterations"], row["iterations"]) == (str(5 + 4000 * 20), "800")
    assert float(row["warmup_ms"]) == pytest.approx(1000.0)


def test_a_row_after_the_gpu_idled_warms_up_for_gpu_warmup_time(monkeypatch, tmp_path):
    # Three rows timed through one tracker, on a wall clock that advances 0.1 s per reading: the
    # first row (nothing ran before) takes --gpu_warmup_time; the second starts within IDLE_GAP_S
    # of the first's timed launches and takes --warmup_time; then 2 s pass without launches (a
    # backend's JIT compile) and the third takes --gpu_warmup_time again.
    now = [0.0]

    def perf_counter():
        now[0] += 0.1
        return now[0]
    monkeypatch.setattr(timing.time, "perf_counter", perf_counter)
    torch, calls = recording_torch(monkeypatch)
    idle = timing.GpuIdle()
    settings = timing.Settings(warmup_iterations=0, iterations=20, use_cold_l2=False, check=False, seed=0, device=0,
                               warmup_time=0.001, gpu_warmup_time=0.004, min_time=0.0)
    launch = lambda: None  # noqa: E731 -- the fake events time every batch at 0.25 ms
    first = timing.time_launches(torch, launch, settings, None, 1980.0, 20.0, None, idle)
    second = timing.time_launches(torch, launch, settings, None, 1980.0, 20.0, None, idle)
    now[0] += 2.0  # the next backend's compile
    third = timing.time_launches(torch, launch, settings, None, 1980.0, 20.0, None, idle)
    assert [r["warmup_ms"] for r in (first, second, third)] == pytest.approx([4.0, 1.0, 4.0])
    assert timing.IDLE_GAP_S == 0.5
    # Without a tracker (or with --gpu_warmup_time 0) every row takes --warmup_time.
    assert timing.time_launches(torch, launch, settings, None, 1980.0, 20.0)["warmup_ms"] == pytest.approx(1.0)


class LoggedEvent:
    """An event that logs its waits into a shared list, beside the launches (below); a pair reads
    `ms` for each launch queued between its two records."""

    def __init__(self, log, ms):
        self.log, self.ms, self.index = log, ms, None

    def record(self):
        self.index = sum(1 for entry in self.log if entry == "launch")  # launches queued before it

    def synchronize(self):
        self.log.append(("wait", self.index))

    def elapsed_time(self, end):
        return self.ms * (end.index - self.index)


def test_timed_batches_are_pipelined_so_the_gpu_never_drains(monkeypatch):
    # A 3 ms kernel (longer than any backend's host cost): batches of 20, each waited for on its
    # own last event only once the next batch is queued, never with torch.cuda.synchronize(),
    # and no spin kernel but the one before the first batch.
    log = []
    torch = stand_in_torch()
    torch.cuda.Event = lambda enable_timing=False: LoggedEvent(log, 3.0)
    torch.cuda.synchronize = lambda: log.append("synchronize")
    torch.cuda._sleep = lambda cycles: log.append("sleep")
    settings = timing.Settings(warmup_iterations=0, iterations=20, use_cold_l2=False, check=False, seed=0, device=0,
                               warmup_time=0.1, min_time=0.2)
    result = timing.time_launches(torch, lambda: log.append("launch"), settings, None, 1980.0, 150.0)
    assert "synchronize" not in log and log.count("sleep") == 1 and log[0] == "sleep"
    waits = [(k, entry[1]) for k, entry in enumerate(log) if isinstance(entry, tuple)]
    for k, launches_before_event in waits[:-1]:
        queued = sum(1 for entry in log[:k] if entry == "launch")
        assert queued >= launches_before_event + 20  # the next batch went out before this wait
    # Warm-up: a batch is 60 ms, and the second was queued before the first was timed, so 0.1 s
    # takes 2; timed: 4 batches reach 0.2 s, and the fifth, queued behind the fourth, is not counted.
    assert (result["warmup_iterations"], result["warmup_ms"], len(result["times"])) == (40, 120.0, 80)
    assert log.count("launch") == (2 + 5) * 20


def test_a_launch_shorter_than_the_host_cost_keeps_a_spin_kernel_before_each_batch(monkeypatch):
    # A 20 us kernel against SDPA's ~100 us of host work a call: the CPU cannot stay ahead, so each
    # batch is queued behind a spin kernel (the events would otherwise time Python).
    log = []
    torch = stand_in_torch()
    torch.cuda.Event = lambda enable_timing=False: LoggedEvent(log, 0.02)
    torch.cuda._sleep = lambda cycles: log.append("sleep")
    settings = timing.Settings(warmup_iterations=0, iterations=20, use_cold_l2=False, check=False, seed=0, device=0,
                               warmup_time=0.0, min_time=0.0016)
    result = timing.time_launches(torch, lambda: log.append("launch"), settings, None, 1980.0, 50.0)
    assert len(result["times"]) == 80  # 1.6 ms at 20 us a launch
    # The first spin covers two batches; each batch queued once a launch was seen to be short (the
    # third to the fifth, which goes past the stop) waits behind one more.
    assert log.count("sleep") == 1 + 3


def test_peers_iterations_means_exactly_that_many_timed_launches(monkeypatch, tmp_path):
    calls, row = run_cudnn_once(monkeypatch, tmp_path, "--iterations", "30", "--warmup_iterations", "5",
                                "--warmup_time", "0", "--gpu_warmup_time", "0", "--min_time", "5")
    assert len(calls) == 1 + 5 + 30  # --min_time does not apply once --iterations is given
    assert (row["warmup_iterations"], row["iterations"], row["warmup_ms"]) == ("5", "30", "0")


def test_peers_max_time_ends_timing(monkeypatch, tmp_path):
    # --max_time is wall time, as fa-bench's: a clock that advances 4 ms per reading stops the
    # timed batches after the third (12 ms >= 10 ms), far short of --min_time.
    readings = iter(0.004 * i for i in range(1000))
    monkeypatch.setattr(timing.time, "perf_counter", lambda: next(readings))
    calls, row = run_cudnn_once(monkeypatch, tmp_path, "--warmup_time", "0", "--min_time", "10",
                                "--max_time", "0.01")
    assert row["iterations"] == "60"


@pytest.mark.parametrize("flags, message", [
    (["--warmup_time", "-1"], "--warmup_time must be a finite number of seconds >= 0"),
    (["--gpu_warmup_time", "inf"], "--gpu_warmup_time must be a finite number of seconds >= 0"),
    (["--min_time", "nan"], "--min_time must be a finite number of seconds >= 0"),
    (["--max_time", "0"], "--max_time must be a finite number of seconds > 0"),
    (["--iterations", "0"], "--iterations must be >= 1"),
])
def test_peers_bad_timing_flags_name_the_flag_and_exit_2(monkeypatch, capsys, flags, message):
    recording_torch(monkeypatch)
    with pytest.raises(SystemExit) as exit_info:
        peers.main(["--backends", "cudnn", *flags])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


# ----------------------------------------------------------------------------------------------
# The GPU's clocks in a peer's row, in fa-bench's columns (peer_backends/gpu_clocks.py)
# ----------------------------------------------------------------------------------------------

class CappedSensor:
    """A GPU at its power cap: every reading 1,500 MHz, 700 W, sw_power_cap."""
    limits = gpu_clocks.Limits(max_sm_clock_mhz=1980.0, power_limit_w=700.0)

    def read(self):
        return gpu_clocks.Sample(1500.0, 700.0, 62.0, 0x4)


def test_peer_rows_carry_the_clocks_their_timed_launches_ran_at(monkeypatch, tmp_path):
    monkeypatch.setattr(gpu_clocks, "open_sensor", lambda torch, device: (CappedSensor(), None))
    calls, row = run_cudnn_once(monkeypatch, tmp_path, "--iterations", "30", "--warmup_time", "0")
    assert (row["sm_clock_mean_mhz"], row["sm_clock_min_mhz"], row["sm_clock_max_mhz"]) == ("1500", "1500", "1980")
    assert (row["power_w_mean"], row["power_limit_w"], row["temperature_c"]) == ("700", "700", "62")
    assert (row["throttle_reasons"], row["capped_pct"], row["flags"]) == ("sw_power_cap", "100", "!clk,!pwr")
    assert int(row["clock_samples"]) >= 2


def test_without_nvml_peer_rows_say_so_once_and_leave_the_clock_columns_empty(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(gpu_clocks, "open_sensor", lambda torch, device: (None, "libnvidia-ml.so.1 not loadable"))
    calls, row = run_cudnn_once(monkeypatch, tmp_path, "--iterations", "30", "--warmup_time", "0")
    assert all(row[c] == "" for c in gpu_clocks.COLUMNS)
    assert capsys.readouterr().err.count("no clock, power or throttle readings (libnvidia-ml.so.1 not loadable)") == 1


def test_the_clock_sampler_stops_when_a_timed_launch_raises(monkeypatch):
    torch, calls = recording_torch(monkeypatch)
    sampler = gpu_clocks.ClockSampler(CappedSensor(), period=0.001)
    count = [0]

    def launch():
        count[0] += 1
        if count[0] > 3:
            raise RuntimeError("device-side assert")
    settings = timing.Settings(warmup_iterations=2, iterations=5, use_cold_l2=False, check=False, seed=0, device=0)
    with pytest.raises(RuntimeError, match="device-side assert"):
        timing.time_launches(torch, launch, settings, None, 1980.0, 20.0, sampler)
    assert sampler._thread is None  # joined: no reader thread left behind
