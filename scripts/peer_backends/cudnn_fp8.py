"""cuDNN's FP8 fused attention: a cudnn-frontend graph with one sdpa_fp8 node (PyPI
nvidia-cudnn-frontend, Python module `cudnn`), on fa-bench's FP8 problems (--dtype Float8E4M3FN).

Inputs: fa-bench's (common.Inputs): Q, K, V in e4m3, (B, H, S, D) contiguous, each with its own
power-of-two descale, handed to the graph as FP32 (1, 1, 1, 1) device tensors descale_q/k/v.
K and V keep their num_head_kv heads (GQA/MQA: cuDNN maps query head h to K/V head
h / (H / H_kv), fa-bench's mapping).

S (cuDNN's name for the softmax output, fa-bench's P) is quantized to e4m3 inside the kernel
before S·V, times scale_s; cuDNN then multiplies by descale_s. fa-bench's user gives no scale for
P: it is the kernel's business. The numerators exp(s - running max) are at most 1, so scale_s = 2^8
maps them onto e4m3's normal range down to 2^-14 of the row max (unscaled, values below 2^-6
would be subnormal and lose precision) and never saturates (1·2^8 = 256 < 448); a power of two keeps
descale_s exact. fa-bench's own FP8 rung did the same until session 23 and now scales by 2^5 with a
lazy running max that lets P reach 2^8.75 (README "FP8 (e4m3)"): a power of two either way, so both
round P to the same relative grid (e4m3's spacing scales with the value above its subnormals). FA3
scales by 2^8 too (its FP8 softmax subtracts max - 8 in the exponent).
cudnn-frontend's newer docs suggest 448, the largest e4m3: no more precise (the relative rounding
error is the same in every normal binade; only the subnormal threshold moves), and not exact.

O: fa-bench writes bf16 O. cuDNN's FP8 forward writes bf16 O only on Blackwell (sm_100+) from
cuDNN 9.13; on Hopper O must be FP8 (cudnn-frontend's validation: "sdpa fp8 forward with
HALF/BFLOAT16 output is only supported on Blackwell architecture with cuDNN version 9.13.0 and
newer"). There O is e4m3 with scale_o = 2^(k_v - 1), half of V's scale: O is a convex combination
of V's rows, |O| <= max|V| (times at most 1 + 2^-4 for P's rounding), so |O|·scale_o <= 448 and
nothing saturates, while O's largest values sit in e4m3's top binades. The check reads O times
1/scale_o (exact), and the row's note says "O in e4m3": its error adds O's own rounding (about as
much as P's), and it writes half the O bytes fa-bench's compulsory_bytes count for bf16.

Masks: use_causal_mask is top-left aligned (cuDNN's DiagonalAlignment TOP_LEFT with right bound 0),
fa-bench's mask, for any seqlen_q and seqlen_k; bottom-right FP8 causal is Blackwell-only anyway.

Limits (the frontend's validation, cudnn-frontend 1.26): sm_90 or newer, cuDNN 9.1.0 or newer
(not 9.10.0), head_dim a multiple of 16; on the H100 with cuDNN 9.19.0 head_dim 128 and 256 both
ran and passed the check (session 12, call 3). What cuDNN refuses becomes the row's refusal with
cuDNN's reason. Amax_S and
Amax_O are outputs, as cuDNN's FP8 interface asks (two FP32 scalars; nothing reads them).

One graph per (shape, causal, softmax scale), built once (validate, operation graph, heuristics A
then FALLBACK, check_support, plans) and kept; each launch is graph.execute(variant pack,
workspace, handle) on torch's current stream.

Install: pip install nvidia-cudnn-frontend (the H100 wheel: 1.26.0, whose graph API is compiled
and needs no other package; from 1.29 the wheel requires nvidia-cutlass-dsl and apache-tvm-ffi,
which this graph path does not use: pip --no-deps will do). With pip --target DIR, put DIR on
PYTHONPATH. At import the frontend finds libcudnn itself ($LD_LIBRARY_PATH in newer releases, then
nvidia/cudnn/lib under the interpreter's site-packages, then the loader's libcudnn.so.9); setup()
first loads PyTorch's own libcudnn (the nvidia-cudnn-cu* wheel's), so that last fallback finds
that copy by its soname even where the site-packages search misses it (pip --target, a virtual
environment without the wheel, Debian's dist-packages). The row's note names the cuDNN it ran.
"""
from __future__ import annotations

import ctypes
import importlib.util
import math
import os

from .common import FP8_DTYPE, Backend, Launch, Refusal, module_missing, one_line

INSTALL_HINT = "pip install nvidia-cudnn-frontend"
# The first cuDNN with the FP8 SDPA forward (cudnn-frontend refuses older ones, and 9.10.0).
MIN_BACKEND_VERSION = 90100
# cuDNN's FP8 forward writes bf16 O from this version, on sm_100 and newer only.
BF16_O_BACKEND_VERSION = 91300
BF16_O_MIN_SM_MAJOR = 10
# scale_s = 2^8: see the module docstring.
SCALE_S_EXPONENT = 8
CUDNN_LIBRARY = "libcudnn.so.9"
# Where the nvidia-cudnn-cu* wheels put it, under site-packages/nvidia.
WHEEL_LIBRARY_FOLDERS = ("cudnn/lib", "cu13/lib", "cu12/lib")


def version_text(version: int) -> str:
    """cuDNN's version number as text: 91900 -> '9.19.0'."""
    return f"{version // 10000}.{version // 100 % 100}.{version % 100}"


def torch_cudnn_library() -> str | None:
    """The libcudnn.so.9 PyTorch uses, or None: the nvidia-cudnn-cu* wheel's (site-packages/nvidia/
    cudnn/lib; nvidia/cu13/lib is where CUDA 13 wheels may put theirs), else a copy this process
    has already loaded (libtorch_cuda links it, so `import torch` loads it)."""
    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        spec = None
    for place in (spec.submodule_search_locations or []) if spec else []:
        for folder in WHEEL_LIBRARY_FOLDERS:
            path = os.path.join(place, folder, CUDNN_LIBRARY)
            if os.path.isfile(path):
                return path
    try:
        with open("/proc/self/maps", encoding="utf-8") as maps:
            for line in maps:
                if line.rstrip().endswith("/" + CUDNN_LIBRARY):
                    return line.split(maxsplit=5)[-1].strip()
    except OSError:
        pass
    return None


def preload_torch_cudnn() -> str | None:
    """Load PyTorch's libcudnn into the process (RTLD_GLOBAL) before cudnn-frontend looks for one;
    return its path, or None where there is none or it does not load (the frontend then searches
    on its own). PyTorch normally has it loaded already (libtorch_cuda links it): then this
    only returns the path."""
    path = torch_cudnn_library()
    if path is None:
        return None
    try:
        ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    except OSError:
        return None
    return path


class CudnnFp8(Backend):
    name = "cudnn_fp8"
    kernel = "cudnn_fp8"
    layout = "bhsd"
    title = "cuDNN FP8 attention (cudnn-frontend graph sdpa_fp8, e4m3 Q/K/V; Float8E4M3FN only)"
    # graph.execute from Python: the variant pack's dict of tensors to pointers, then the binding.
    host_us_per_call = 60.0

    def __init__(self):
        self.device = 0
        self.cudnn = None
        self.handle = None
        self.version = 0
        self.bf16_output = False
        self.graphs = {}  # (shapes, strides, causal, scale) -> (graph, its tensors, workspace bytes)

    def configure(self, args) -> None:
        self.device = int(getattr(args, "device", 0) or 0)

    def unavailable(self) -> str:
        if module_missing("torch"):
            return "PyTorch is not installed"
        if module_missing("cudnn"):
            return f"cudnn ({INSTALL_HINT}) is not importable"
        return ""

    def dtype_refusal(self, dtype):
        if dtype != FP8_DTYPE:
            return (f"cudnn_fp8 runs {FP8_DTYPE} only (cuDNN's FP8 attention); {dtype} is the cudnn backend's "
                    "(PyTorch SDPA, CUDNN_ATTENTION)")
        return ""

    def setup(self, torch) -> None:
        major, minor = torch.cuda.get_device_capability(self.device)
        if major < 9:
            raise Refusal(f"cuDNN's FP8 attention needs sm_90 or newer; device {self.device} is sm_{major}{minor}")
        preload_torch_cudnn()
        try:
            import cudnn
        except Exception as error:  # noqa: BLE001 -- a broken install is a reason, not a crash
            raise Refusal(f"cudnn does not import: {type(error).__name__}: {error}") from None
        try:
            version = int(cudnn.backend_version())
        except Exception as error:  # noqa: BLE001 -- no libcudnn found or loaded
            raise Refusal(f"cudnn-frontend found no usable libcudnn ({type(error).__name__}: {error}); "
                          f"PyTorch's is {torch_cudnn_library() or 'neither in site-packages/nvidia nor loaded'}") from None
        if version < MIN_BACKEND_VERSION:
            raise Refusal(f"cuDNN {version_text(version)} has no FP8 attention (it came with "
                          f"{version_text(MIN_BACKEND_VERSION)})")
        try:
            with torch.cuda.device(self.device):
                handle = cudnn.create_handle()
        except Exception as error:  # noqa: BLE001
            raise Refusal(f"cudnn.create_handle failed: {type(error).__name__}: {error}") from None
        self.cudnn, self.handle, self.version = cudnn, handle, version
        self.bf16_output = major >= BF16_O_MIN_SM_MAJOR and version >= BF16_O_BACKEND_VERSION

    def build_graph(self, p, q, k, v, scale: float):
        """The sdpa_fp8 graph of this problem, built and planned: (graph, {name: graph tensor},
        workspace bytes). Raises Refusal with cuDNN's reason when cuDNN does not take it."""
        cudnn = self.cudnn
        e4m3, fp32 = cudnn.data_type.FP8_E4M3, cudnn.data_type.FLOAT
        graph = cudnn.pygraph(io_data_type=e4m3, intermediate_data_type=fp32, compute_data_type=fp32,
                              handle=self.handle)
        t = {}
        for name, x in (("q", q), ("k", k), ("v", v)):
            t[name] = graph.tensor(name=name, dim=list(x.shape), stride=list(x.stride()), data_type=e4m3)
        for name in ("descale_q", "descale_k", "descale_v", "descale_s", "scale_s", "scale_o"):
            t[name] = graph.tensor(name=name, dim=[1, 1, 1, 1], stride=[1, 1, 1, 1], data_type=fp32)
        o, _, amax_s, amax_o = graph.sdpa_fp8(
            q=t["q"], k=t["k"], v=t["v"],
            descale_q=t["descale_q"], descale_k=t["descale_k"], descale_v=t["descale_v"],
            descale_s=t["descale_s"], scale_s=t["scale_s"], scale_o=t["scale_o"],
            generate_stats=False, attn_scale=scale,
            use_causal_mask=bool(p.causal),  # top-left aligned: fa-bench's mask, any Sq and Sk
            name="sdpa_fp8")
        o_shape = [p.batch, p.num_head, p.seqlen_q, p.head_dim]
        o_stride = [p.num_head * p.seqlen_q * p.head_dim, p.seqlen_q * p.head_dim, p.head_dim, 1]
        o.set_output(True).set_dim(o_shape).set_stride(o_stride).set_data_type(
            cudnn.data_type.BFLOAT16 if self.bf16_output else e4m3)
        for amax in (amax_s, amax_o):
            amax.set_output(True).set_dim([1, 1, 1, 1]).set_stride([1, 1, 1, 1]).set_data_type(fp32)
        t.update(o=o, amax_s=amax_s, amax_o=amax_o)
        try:
            graph.validate()
            graph.build_operation_graph()
            graph.create_execution_plans([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
            graph.check_support()
            graph.build_plans()
            workspace = int(graph.get_workspace_size())
        except Exception as error:  # noqa: BLE001 -- cudnnGraphNotSupportedError or RuntimeError: cuDNN's reason
            raise Refusal(one_line(f"cuDNN: {error}")) from None
        return graph, t, workspace

    def prepare(self, torch, p, q, k, v, scale, variant, descales=None):
        why = self.dtype_refusal(p.dtype)
        if why:
            raise Refusal(why)
        if descales is None:
            raise Refusal("e4m3 inputs came without their descales")
        key = (tuple(q.shape), tuple(k.shape), tuple(q.stride()), tuple(k.stride()), bool(p.causal), float(scale))
        if key not in self.graphs:
            self.graphs[key] = self.build_graph(p, q, k, v, scale)
        graph, t, workspace_bytes = self.graphs[key]

        descale_q, descale_k, descale_v = (float(d) for d in descales)
        scale_s = math.ldexp(1.0, SCALE_S_EXPONENT)
        if self.bf16_output:
            scale_o = 1.0
        else:
            # Half of V's scale: |O| <= max|V| (1 + 2^-4 with P's rounding) stays within 448.
            k_v = round(-math.log2(descale_v))
            scale_o = math.ldexp(1.0, k_v - 1)
        device = q.device

        def scalar(value):
            return torch.full((1, 1, 1, 1), value, dtype=torch.float32, device=device)
        o = torch.empty(p.batch, p.num_head, p.seqlen_q, p.head_dim, device=device,
                        dtype=torch.bfloat16 if self.bf16_output else torch.float8_e4m3fn)
        pack = {
            t["q"]: q, t["k"]: k, t["v"]: v,
            t["descale_q"]: scalar(descale_q), t["descale_k"]: scalar(descale_k), t["descale_v"]: scalar(descale_v),
            t["descale_s"]: scalar(1.0 / scale_s), t["scale_s"]: scalar(scale_s), t["scale_o"]: scalar(scale_o),
            t["o"]: o,
            t["amax_s"]: torch.zeros(1, 1, 1, 1, dtype=torch.float32, device=device),
            t["amax_o"]: torch.zeros(1, 1, 1, 1, dtype=torch.float32, device=device),
        }
        workspace = torch.empty(max(workspace_bytes, 1), dtype=torch.uint8, device=device)
        handle, cudnn = self.handle, self.cudnn
        cudnn.set_stream(handle=handle, stream=torch.cuda.current_stream(device).cuda_stream)

        def launch():
            graph.execute(pack, workspace, handle=handle)
            return o
        versions = f"cuDNN {version_text(self.version)}, cudnn-frontend {getattr(cudnn, '__version__', '?')}"
        if self.bf16_output:
            return Launch(launch, note=f"O in bf16; P*2^{SCALE_S_EXPONENT} to e4m3; {versions}")
        descale_o = 1.0 / scale_o  # a power of two: exact
        note = (f"O in e4m3 (scale_o 2^{round(math.log2(scale_o))}; cuDNN's FP8 attention writes bf16 O only on "
                f"sm_100+), checked as O*2^{round(math.log2(descale_o))}; P*2^{SCALE_S_EXPONENT} to e4m3; {versions}")
        return Launch(launch, note=note, dequantize=lambda out: out.float() * descale_o)


BACKEND = CudnnFp8()
