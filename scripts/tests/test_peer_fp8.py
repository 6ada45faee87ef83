"""FP8 in the peers: fa-bench's per-tensor quantization of the inputs, the dtype refusals, and the
cudnn_fp8 backend (cuDNN's FP8 attention through cudnn-frontend's sdpa_fp8 graph).

Neither torch nor cudnn-frontend is installed for these tests and no GPU is used: the rule of
the scale is plain Python, the quantization runs on a stand-in tensor that rounds to e4m3 as
torch's cast does (round to nearest even, NaN past the range), and a stand-in torch and cudnn
record what the backend asks of them, from the flags to the CSV row.
"""
import contextlib
import csv
import importlib.machinery
import math
import sys
import types

import pytest

import peers
from peer_backends import BACKENDS, common, cudnn_fp8, cute_example, fa4, gpu_clocks, torch_sdpa
from peer_backends.common import FP8_DTYPE, Problem, Refusal, fp8_quantize, fp8_scale_exponent

FP8_PROBLEM = Problem(1, 256, 256, 2, 128, False, FP8_DTYPE)


@pytest.fixture(autouse=True)
def no_nvml(monkeypatch):
    monkeypatch.setattr(gpu_clocks, "open_sensor", lambda torch, device: (None, "no NVML in the tests"))


# ----------------------------------------------------------------------------------------------
# The scale: the largest power of two with amax * 2^k <= 448
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("amax, k", [
    (1.0, 8),            # 256 <= 448 < 512
    (448.0, 0),          # exactly the largest e4m3
    (448.0001, -1),
    (224.0, 1),          # 448 exactly
    (3.5, 7),            # 3.5 * 128 = 448 exactly
    (5.3, 6),            # the amax of ~4M standard normals: 5.3 * 64 = 339
    (1000.0, -2),
    (2.0 ** -20, 28),
])
def test_the_fp8_scale_is_the_largest_power_of_two_that_keeps_amax_within_448(amax, k):
    assert fp8_scale_exponent(amax) == k
    assert math.ldexp(amax, k) <= 448.0 < math.ldexp(amax, k + 1)


@pytest.mark.parametrize("amax", [0.0, -1.0, math.inf, math.nan])
def test_an_amax_that_is_not_positive_and_finite_scales_by_one(amax):
    assert fp8_scale_exponent(amax) == 0


def test_the_rule_holds_across_binades():
    for i in range(-400, 400):
        amax = 1.37 ** (i / 7)
        k = fp8_scale_exponent(amax)
        assert math.ldexp(amax, k) <= 448.0 < math.ldexp(amax, k + 1), amax


def e4m3(x: float) -> float:
    """torch's float32 -> float8_e4m3fn: round to nearest even, NaN past 464 (no infinities)."""
    if math.isnan(x) or abs(x) > 464.0:
        return math.nan
    a = abs(x)
    step = 2.0 ** -9 if a < 2.0 ** -6 else 2.0 ** (math.floor(math.log2(a)) - 3)  # subnormals, else 3 bits
    return math.copysign(round(a / step) * step, x)  # round(): ties to even


class Values:
    """A stand-in tensor of a few floats: what fp8_quantize and Inputs do to one."""

    def __init__(self, values, dtype="float32"):
        self.values, self.dtype = list(values), dtype

    def abs(self):
        return Values([abs(v) for v in self.values], self.dtype)

    def max(self):
        return Values([max(self.values)], self.dtype)

    def item(self):
        return self.values[0]

    def __mul__(self, s):
        return Values([v * s for v in self.values], self.dtype)

    def clamp(self, lo, hi):
        return Values([min(max(v, lo), hi) for v in self.values], self.dtype)

    def to(self, dtype):
        assert dtype == "float8_e4m3fn"
        return Values([e4m3(v) for v in self.values], dtype)

    def float(self):
        return Values(self.values, "float32")


FP8_TORCH = types.SimpleNamespace(float8_e4m3fn="float8_e4m3fn")


def test_quantized_inputs_are_e4m3_values_whose_descale_gives_back_the_draw():
    draw = [0.1, -5.3, 2.0, 1e-3, 3.14159, -0.75, 4.9]
    q, descale = fp8_quantize(FP8_TORCH, Values(draw))
    assert q.dtype == "float8_e4m3fn" and descale == 2.0 ** -6  # amax 5.3: 2^6
    assert max(abs(v) for v in q.values) <= 448.0 and all(e4m3(v) == v for v in q.values)  # on e4m3's grid
    for x, v in zip(draw, q.values):
        if abs(x) / descale >= 2.0 ** -6:  # normal range: at most half a step, 2^-4 relative
            assert abs(v * descale - x) <= 2.0 ** -4 * abs(x)
    assert q.values[1] * descale == -5.5 and q.values[2] * descale == 2.0  # -339.2 -> -352 (step 32); 128 exact


def test_quantization_saturates_instead_of_making_nan():
    # An infinite amax scales by 1 (k = 0); the clamp keeps the cast from turning it into NaN.
    q, descale = fp8_quantize(FP8_TORCH, Values([math.inf, -1000.0, 1.0]))
    assert descale == 1.0 and q.values == [448.0, -448.0, 1.0]


# ----------------------------------------------------------------------------------------------
# Which backend takes FP8, and what the others say
# ----------------------------------------------------------------------------------------------

def test_only_cudnn_fp8_takes_fp8_and_it_takes_nothing_else():
    for name, backend in BACKENDS.items():
        why = backend.dtype_refusal(FP8_DTYPE)
        assert (why == "") == (name == "cudnn_fp8"), name
        assert "\n" not in why
    assert torch_sdpa.BACKENDS[1].dtype_refusal(FP8_DTYPE) == (
        "PyTorch SDPA takes no FP8 inputs (Float8E4M3FN: e4m3 Q/K/V with descales); cuDNN's FP8 attention is "
        "the cudnn_fp8 backend")
    assert fa4.BACKEND.dtype_refusal(FP8_DTYPE) == "FlashAttention-4 takes Float16 and BFloat16, not Float8E4M3FN"
    assert cute_example.BACKEND.dtype_refusal(FP8_DTYPE) == ("the example takes Float16 and BFloat16, not "
                                                             "Float8E4M3FN")
    for dtype in ("Float16", "BFloat16", "Float32"):
        assert cudnn_fp8.BACKEND.dtype_refusal(dtype) == (
            f"cudnn_fp8 runs Float8E4M3FN only (cuDNN's FP8 attention); {dtype} is the cudnn backend's (PyTorch "
            "SDPA, CUDNN_ATTENTION)")
        assert torch_sdpa.BACKENDS[0].dtype_refusal(dtype) == ""
    with pytest.raises(Refusal, match="cudnn_fp8 runs Float8E4M3FN only"):
        cudnn_fp8.CudnnFp8().prepare(None, Problem(1, 128, 128, 2, 64, False), None, None, None, 0.125, None)


def test_cudnn_fp8_without_its_package_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(cudnn_fp8, "module_missing", lambda name: name != "torch")
    assert cudnn_fp8.BACKEND.unavailable() == "cudnn (pip install nvidia-cudnn-frontend) is not importable"
    monkeypatch.setattr(cudnn_fp8, "module_missing", lambda name: True)
    assert cudnn_fp8.BACKEND.unavailable() == "PyTorch is not installed"
    monkeypatch.setattr(cudnn_fp8, "module_missing", lambda name: False)
    assert cudnn_fp8.BACKEND.unavailable() == ""


def test_cudnn_fp8_is_named_in_the_help_and_left_out_of_auto(capsys):
    with pytest.raises(SystemExit):
        peers.main(["--help"])
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps the flags' help
    assert "cudnn_fp8 cudnn_fp8 cuDNN FP8 attention" in out and "Float8E4M3FN (FP8: cudnn_fp8 only)" in out
    from peer_backends import AUTO
    assert "cudnn_fp8" not in AUTO


# ----------------------------------------------------------------------------------------------
# Stand-in torch and cudnn
# ----------------------------------------------------------------------------------------------

class Fake:
    """A tensor of a shape (and a dtype): enough for Inputs, the backends and the check. Every
    draw has amax 4.0, so every FP8 input is scaled by 2^6 (4 * 64 = 256 <= 448 < 512)."""
    AMAX = 4.0

    def __init__(self, shape, dtype="float32", factor=1.0):
        self.shape, self.dtype, self.factor = tuple(shape), dtype, factor
        self.device = "cuda:0"

    def stride(self):
        strides, step = [], 1
        for size in reversed(self.shape):
            strides.insert(0, step)
            step *= size
        return tuple(strides)

    def abs(self):
        return self

    def max(self):
        return self

    def item(self):
        return self.AMAX

    def __mul__(self, s):
        return Fake(self.shape, self.dtype, self.factor * s)

    def clamp(self, lo, hi):
        return self

    def to(self, dtype):
        return Fake(self.shape, dtype, self.factor)

    def float(self):
        return Fake(self.shape, "float32", self.factor)

    def transpose(self, a, b):
        shape = list(self.shape)
        shape[a], shape[b] = shape[b], shape[a]
        return Fake(shape, self.dtype, self.factor)

    def contiguous(self):
        return self


class Scalar:
    def __init__(self, value):
        self.value = value


class Event:
    def __init__(self, enable_timing=False):
        pass

    def record(self):
        pass

    def synchronize(self):
        pass

    def elapsed_time(self, end):
        return 0.25


def stand_in_torch(monkeypatch, capability=(9, 0)):
    """torch as peers.main and the backends use it, with SDPA recording its calls."""
    torch = types.ModuleType("torch")
    torch.__spec__ = importlib.machinery.ModuleSpec("torch", None)
    torch.__version__ = "2.11.0+cu130"
    torch.version = types.SimpleNamespace(cuda="13.0")
    for name in ("float32", "bfloat16", "float16", "float8_e4m3fn", "uint8"):
        setattr(torch, name, name)
    props = types.SimpleNamespace(name="Stand-in H100", multi_processor_count=132, uuid="", clock_rate=1980000)
    torch.cuda = types.SimpleNamespace(
        is_available=lambda: True, set_device=lambda device: None, get_device_properties=lambda device: props,
        get_device_capability=lambda device=None: capability, synchronize=lambda: None, empty_cache=lambda: None,
        OutOfMemoryError=type("OutOfMemoryError", (RuntimeError,), {}), Event=Event,
        device=lambda device: contextlib.nullcontext(),
        current_stream=lambda device=None: types.SimpleNamespace(cuda_stream=7))
    torch.Generator = lambda device: types.SimpleNamespace(manual_seed=lambda seed: None)
    torch.randn = lambda *shape, dtype, device, generator: Fake(shape, dtype)
    torch.empty = lambda *shape, dtype, device: Fake(shape, dtype)
    torch.zeros = lambda *shape, dtype, device: Fake(shape, dtype)
    torch.full = lambda shape, value, dtype, device: Scalar(value)
    sdpa_calls = []

    def sdpa(q, k, v, is_causal=False, scale=None, **kwargs):
        sdpa_calls.append((q.shape, q.dtype))
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
    return torch, sdpa_calls


class GraphTensor:
    def __init__(self, name, **attrs):
        self.name, self.attrs, self.output = name, attrs, False

    def set_output(self, value):
        self.output = value
        return self

    def set_dim(self, dim):
        self.attrs["dim"] = list(dim)
        return self

    def set_stride(self, stride):
        self.attrs["stride"] = list(stride)
        return self

    def set_data_type(self, data_type):
        self.attrs["data_type"] = data_type
        return self


def stand_in_cudnn(monkeypatch, version=91900, refuse=None):
    """cudnn-frontend's graph API as cudnn_fp8 uses it; `graphs` and `executions` record it.
    With `refuse`, check_support raises that message as cuDNN's decline."""
    cudnn = types.ModuleType("cudnn")
    cudnn.__spec__ = importlib.machinery.ModuleSpec("cudnn", None)
    cudnn.__version__ = "1.26.0"
    cudnn.data_type = types.SimpleNamespace(FP8_E4M3="FP8_E4M3", FLOAT="FLOAT", BFLOAT16="BFLOAT16")
    cudnn.heur_mode = types.SimpleNamespace(A="A", FALLBACK="FALLBACK")
    cudnn.cudnnGraphNotSupportedError = type("cudnnGraphNotSupportedError", (RuntimeError,), {})
    cudnn.backend_version = lambda: version
    cudnn.create_handle = lambda: "handle"
    streams, graphs, executions = [], [], []
    cudnn.set_stream = lambda handle, stream: streams.append((handle, stream))

    class Graph:
        def __init__(self, **kwargs):
            self.kwargs, self.tensors, self.steps = kwargs, {}, []
            graphs.append(self)

        def tensor(self, name, dim, stride, data_type):
            self.tensors[name] = GraphTensor(name, dim=dim, stride=stride, data_type=data_type)
            return self.tensors[name]

        def sdpa_fp8(self, **kwargs):
            self.sdpa = kwargs
            outputs = [GraphTensor(n) for n in ("o", "amax_s", "amax_o")]
            self.tensors.update((t.name, t) for t in outputs)
            return outputs[0], None, outputs[1], outputs[2]

        def validate(self):
            self.steps.append("validate")

        def build_operation_graph(self):
            self.steps.append("build_operation_graph")

        def create_execution_plans(self, modes):
            self.steps.append(("create_execution_plans", modes))

        def check_support(self):
            self.steps.append("check_support")
            if refuse:
                raise cudnn.cudnnGraphNotSupportedError(refuse)

        def build_plans(self):
            self.steps.append("build_plans")

        def get_workspace_size(self):
            return 4096

        def execute(self, pack, workspace, handle=None):
            executions.append(({t.name: x for t, x in pack.items()}, workspace, handle))

    cudnn.pygraph = Graph
    monkeypatch.setitem(sys.modules, "cudnn", cudnn)
    monkeypatch.setattr(cudnn_fp8, "preload_torch_cudnn", lambda: None)  # no real libcudnn in the tests
    return cudnn, graphs, executions, streams


# ----------------------------------------------------------------------------------------------
# cudnn_fp8's setup and graph
# ----------------------------------------------------------------------------------------------

def test_cudnn_fp8_refuses_a_gpu_before_hopper(monkeypatch):
    torch, _ = stand_in_torch(monkeypatch, capability=(8, 6))
    with pytest.raises(Refusal, match="needs sm_90 or newer; device 0 is sm_86"):
        cudnn_fp8.CudnnFp8().setup(torch)


def test_cudnn_fp8_refuses_a_cudnn_without_fp8_attention(monkeypatch):
    torch, _ = stand_in_torch(monkeypatch)
    stand_in_cudnn(monkeypatch, version=90005)
    with pytest.raises(Refusal, match=r"cuDNN 9\.0\.5 has no FP8 attention \(it came with 9\.1\.0\)"):
        cudnn_fp8.CudnnFp8().setup(torch)


def test_cudnn_fp8_says_why_cudnn_does_not_import(monkeypatch):
    torch, _ = stand_in_torch(monkeypatch)
    monkeypatch.setitem(sys.modules, "cudnn", None)  # import cudnn raises ImportError
    monkeypatch.setattr(cudnn_fp8, "preload_torch_cudnn", lambda: None)
    with pytest.raises(Refusal, match="cudnn does not import: (ModuleNotFoundError|ImportError)"):
        cudnn_fp8.CudnnFp8().setup(torch)


def test_cudnn_fp8_says_when_the_frontend_finds_no_libcudnn(monkeypatch):
    torch, _ = stand_in_torch(monkeypatch)
    cudnn, *_ = stand_in_cudnn(monkeypatch)

    def no_library():
        raise RuntimeError("Unable to load libcudnn")
    cudnn.backend_version = no_library
    monkeypatch.setattr(cudnn_fp8, "torch_cudnn_library", lambda: None)
    with pytest.raises(Refusal, match=r"found no usable libcudnn \(RuntimeError: Unable to load libcudnn\); "
                                      r"PyTorch's is neither in site-packages/nvidia nor loaded"):
        cudnn_fp8.CudnnFp8().setup(torch)


def test_pytorchs_libcudnn_is_found_in_the_cudnn_wheels_folders(monkeypatch, tmp_path):
    library = tmp_path / "nvidia" / "cu13" / "lib" / "libcudnn.so.9"  # a namespace package, as the wheels make
    library.parent.mkdir(parents=True)
    library.write_bytes(b"")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "nvidia", raising=False)
    assert cudnn_fp8.torch_cudnn_library() == str(library)


def ready_backend(monkeypatch, capability=(9, 0), **cudnn_options):
    torch, _ = stand_in_torch(monkeypatch, capability)
    cudnn, graphs, executions, streams = stand_in_cudnn(monkeypatch, **cudnn_options)
    backend = cudnn_fp8.CudnnFp8()
    backend.setup(torch)
    return torch, backend, graphs, executions, streams


def fp8_inputs(p):
    return (Fake((p.batch, p.num_head, p.seqlen_q, p.head_dim), "float8_e4m3fn"),
            Fake((p.batch, p.num_head_kv, p.seqlen_k, p.head_dim), "float8_e4m3fn"),
            Fake((p.batch, p.num_head_kv, p.seqlen_k, p.head_dim), "float8_e4m3fn"))


def test_cudnn_fp8_builds_one_sdpa_fp8_graph_per_problem_and_launches_it(monkeypatch):
    torch, backend, graphs, executions, streams = ready_backend(monkeypatch)
    p = Problem(2, 384, 512, 8, 128, True, FP8_DTYPE, num_head_kv=2)
    q, k, v = fp8_inputs(p)
    launch = backend.prepare(torch, p, q, k, v, 0.0884, None, descales=(2.0 ** -6, 2.0 ** -7, 2.0 ** -5))
    (graph,) = graphs
    assert graph.kwargs == {"io_data_type": "FP8_E4M3", "intermediate_data_type": "FLOAT",
                            "compute_data_type": "FLOAT", "handle": "handle"}
    assert graph.steps == ["validate", "build_operation_graph", ("create_execution_plans", ["A", "FALLBACK"]),
                           "check_support", "build_plans"]
    # Q, K, V as they are: (B, H, S, D) with their strides, K/V with their 2 heads (GQA native).
    assert graph.tensors["k"].attrs == {"dim": [2, 2, 512, 128], "stride": [2 * 512 * 128, 512 * 128, 128, 1],
                                        "data_type": "FP8_E4M3"}
    assert graph.sdpa["use_causal_mask"] is True and graph.sdpa["attn_scale"] == 0.0884
    assert graph.sdpa["generate_stats"] is False
    o = graph.tensors["o"]
    assert o.output and o.attrs == {"dim": [2, 8, 384, 128], "stride": [8 * 384 * 128, 384 * 128, 128, 1],
                                    "data_type": "FP8_E4M3"}  # sm_90: FP8 O
    assert graph.tensors["amax_o"].output and graph.tensors["amax_s"].attrs["data_type"] == "FLOAT"
    assert streams == [("handle", 7)]  # torch's current stream

    out = launch()
    (pack, workspace, handle), = executions
    assert out is pack["o"] and out.dtype == "float8_e4m3fn" and handle == "handle"
    assert workspace.shape == (4096,)
    values = {name: x.value for name, x in pack.items() if isinstance(x, Scalar)}
    assert values == {"descale_q": 2.0 ** -6, "descale_k": 2.0 ** -7, "descale_v": 2.0 ** -5,
                      "scale_s": 256.0, "descale_s": 1 / 256, "scale_o": 2.0 ** 4}  # half V's scale 2^5
    assert launch.dequantize(out).factor == 2.0 ** -4  # the check reads O / scale_o
    assert launch.note.startswith("O in e4m3 (scale_o 2^4; cuDNN's FP8 attention writes bf16 O only on sm_100+), "
                                  "checked as O*2^-4; P*2^8 to e4m3; cuDNN 9.19.0, cudnn-frontend 1.26.0")

    backend.prepare(torch, p, q, k, v, 0.0884, None, descales=(1.0, 1.0, 1.0))
    assert len(graphs) == 1  # the same problem reuses its graph
    backend.prepare(torch, Problem(2, 384, 512, 8, 128, False, FP8_DTYPE, num_head_kv=2), q, k, v, 0.0884, None,
                    descales=(1.0, 1.0, 1.0))
    assert len(graphs) == 2 and graphs[1].sdpa["use_causal_mask"] is False


def test_cudnn_fp8_writes_bf16_o_where_cudnn_can(monkeypatch):
    torch, backend, graphs, executions, _ = ready_backend(monkeypatch, capability=(10, 0), version=91300)
    q, k, v = fp8_inputs(FP8_PROBLEM)
    launch = backend.prepare(torch, FP8_PROBLEM, q, k, v, 0.0884, None, descales=(1.0, 1.0, 2.0 ** -6))
    assert graphs[0].tensors["o"].attrs["data_type"] == "BFLOAT16"
    assert launch.dequantize is None and launch.note.startswith("O in bf16; P*2^8 to e4m3; cuDNN 9.13.0")
    launch()
    assert executions[0][0]["scale_o"].value == 1.0 and executions[0][0]["o"].dtype == "bfloat16"


def test_what_cudnn_refuses_is_a_refusal_with_its_reason(monkeypatch):
    torch, backend, *_ = ready_backend(monkeypatch, refuse="[cudnn_frontend] Error: hidden_dim d_qk should be\n"
                                                          "less than or equal to 128")
    p = Problem(1, 256, 256, 2, 256, False, FP8_DTYPE)
    with pytest.raises(Refusal, match=r"^cuDNN: \[cudnn_frontend\] Error: hidden_dim d_qk should be less than or "
                                      r"equal to 128$"):
        backend.prepare(torch, p, *fp8_inputs(p), 0.0625, None, descales=(1.0, 1.0, 1.0))


# ----------------------------------------------------------------------------------------------
# From the flags to the rows
# ----------------------------------------------------------------------------------------------

def test_fp8_and_bf16_rows_of_cudnn_fp8_and_cudnn(monkeypatch, tmp_path, schema):
    torch, sdpa_calls = stand_in_torch(monkeypatch)
    cudnn, graphs, executions, _ = stand_in_cudnn(monkeypatch)
    monkeypatch.setattr(cudnn_fp8, "BACKEND", cudnn_fp8.CudnnFp8())  # a fresh graph cache
    monkeypatch.setitem(BACKENDS, "cudnn_fp8", cudnn_fp8.BACKEND)
    checked = []
    monkeypatch.setattr(common, "reference_output", lambda torch, q, k, v, causal, scale: ("reference", q.dtype,
                                                                                           q.factor))
    monkeypatch.setattr(common, "compare_with_reference",
                        lambda torch, out, ref, tol: checked.append((out.dtype, out.factor, ref, tol))
                        or {"check": "PASS", "max_abs_err": 0.01, "rel_l2_err": 0.03})
    out = tmp_path / "peers.csv"
    code = peers.main(["--backends", "cudnn_fp8,cudnn", "--dtype", "Float8E4M3FN,BFloat16", "--batch_size", "1",
                       "--seqlen_q", "256", "--seqlen_k", "256", "--num_head", "2", "--head_dim", "128",
                       "--causal", "0,1", "--iterations", "2", "--warmup_iterations", "0", "--warmup_time", "0",
                       "--check", "--csv", str(out)])
    assert code == 0
    with out.open(newline="") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
    assert reader.fieldnames == schema.columns
    assert [(r["kernel"], r["dtype"], r["is_causal"]) for r in rows] == [
        ("cudnn_fp8", FP8_DTYPE, "0"), ("torch_cudnn", FP8_DTYPE, "0"),
        ("cudnn_fp8", FP8_DTYPE, "1"), ("torch_cudnn", FP8_DTYPE, "1"),
        ("cudnn_fp8", "BFloat16", "0"), ("torch_cudnn", "BFloat16", "0"),
        ("cudnn_fp8", "BFloat16", "1"), ("torch_cudnn", "BFloat16", "1")]
    fp8, sdpa_fp8, bf16_refused, bf16 = rows[0], rows[1], rows[4], rows[5]
    assert fp8["time_ms_median"] == "0.25" and fp8["check"] == "PASS" and fp8["layout"] == "bhsd"
    assert fp8["note"].startswith("O in e4m3 (scale_o 2^5;")  # amax 4 -> V scaled by 2^6, O by 2^5
    assert sdpa_fp8["note"].startswith("refused: PyTorch SDPA takes no FP8 inputs") and sdpa_fp8["tflops"] == ""
    assert bf16_refused["note"] == ("refused: cudnn_fp8 runs Float8E4M3FN only (cuDNN's FP8 attention); BFloat16 is "
                                    "the cudnn backend's (PyTorch SDPA, CUDNN_ATTENTION)")
    assert bf16["time_ms_median"] == "0.25" and bf16["check"] == "PASS"
    # fa-bench's analytic columns for the FP8 problem: 1-byte Q/K/V, bf16 O.
    assert int(fp8["compulsory_bytes"]) == (256 * 2 * 128) * (2 + 1 + 1 + 1)
    # SDPA only ever saw the BFloat16 problems; cudnn_fp8 had the e4m3 inputs and their descales.
    assert {dtype for _, dtype in sdpa_calls} == {"bfloat16"}
    assert len(graphs) == 2 and all(e[0]["q"].dtype == "float8_e4m3fn" for e in executions)
    assert {e[0]["descale_q"].value for e in executions} == {2.0 ** -6}
    # The FP8 reference read the dequantized inputs (float32, the draw scaled by 2^6 into e4m3 and
    # back by the descale 2^-6); the check read O times 2^-5, 1/scale_o.
    fp8_checks = [c for c in checked if c[2][1] == "float32"]
    assert [ref for _, _, ref, _ in fp8_checks] == [("reference", "float32", 1.0)] * 2
    assert [(dtype, factor) for dtype, factor, _, _ in fp8_checks] == [("float32", 2.0 ** -5)] * 2
    assert all(tol == (0.0625, 0.125) for _, _, ref, tol in fp8_checks)  # the schema's FP8 tolerance


def test_a_problem_no_chosen_backend_takes_makes_no_inputs(monkeypatch, tmp_path):
    torch, sdpa_calls = stand_in_torch(monkeypatch)
    del torch.randn, torch.Generator  # making inputs would fail
    out = tmp_path / "peers.csv"
    code = peers.main(["--backends", "fa2,cudnn", "--dtype", FP8_DTYPE, "--batch_size", "1", "--seqlen_q", "128",
                       "--seqlen_k", "128", "--num_head", "2", "--head_dim", "64", "--check", "--csv", str(out)])
    assert code == 0 and not sdpa_calls
    with out.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["kernel"] for r in rows] == ["torch_fa2", "torch_cudnn"]
    assert all(r["note"].startswith("refused: PyTorch SDPA takes no FP8 inputs") and r["check"] == "SKIPPED"
               for r in rows)
