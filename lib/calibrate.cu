// fa-bench --calibrate: the two ceilings of the napkin model measured on the GPU in use — a cuBLAS
// GEMM (16-bit and fp32; FP8 through cuBLASLt where the GPU has FP8 tensor cores) and a
// device-to-device copy — as METHOD.md asks, instead of datasheet numbers. 8192³ keeps the GEMM
// compute-bound (intensity ~2700 FLOP/B, ~5500 in FP8); 1 GiB is 20x the H100's L2.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <algorithm>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "fa/model.h"
#include "fa/reference.h"

namespace fa {
namespace {

constexpr int kWarmup = 5;
constexpr int kTimed = 20;

// Median of kTimed event-timed runs of `work` after kWarmup untimed ones, in ms. `work` returns ""
// or why its launch failed; the error names `what` was being timed.
std::string time_median(const char* what, const std::function<std::string()>& work, double* ms) {
    for (int i = 0; i < kWarmup; ++i)
        if (std::string e = work(); !e.empty()) return std::string(what) + ": " + e;
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    std::vector<double> t(kTimed);
    for (int i = 0; i < kTimed; ++i) {
        cudaEventRecord(start);
        if (std::string e = work(); !e.empty()) return std::string(what) + ": " + e;
        cudaEventRecord(stop);
        cudaEventSynchronize(stop);
        float f = 0;
        cudaEventElapsedTime(&f, start, stop);
        t[i] = f;
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    std::sort(t.begin(), t.end());
    *ms = 0.5 * (t[kTimed / 2 - 1] + t[kTimed / 2]);
    const cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? std::string() : std::string(what) + ": " + cudaGetErrorString(e);
}

std::string status_text(cublasStatus_t s) {
    return s == CUBLAS_STATUS_SUCCESS ? std::string() : std::string(cublasGetStatusString(s));
}

// FP8 GEMM, D (bf16) = A·B with A and B e4m3, fp32 accumulate, through cuBLASLt: cuBLAS's GemmEx
// takes no FP8, and cuBLASLt takes FP8 only in the "TN" layout (A transposed, both operands
// K-major: the same constraint as wgmma's). No per-tensor scale pointers: with A and B scale
// pointers set, cuBLASLt 13.1 on an H100 offers 8 candidate algorithms and refuses every one at
// launch as "not supported" (bf16, fp16, fp32 or e4m3 D, C apart from D or not, fast accumulation
// or not); without them the same GEMM runs (results/nvidia-h100-80gb-hbm3/session7/, call 8). The
// scales would be 1.0, and a per-tensor scale is one multiply per output in the epilogue, so the
// timing is that of the scaled GEMM. `a` and `b` hold n·n e4m3 each, `d` n·n bf16. *tflops = 0
// with no error when cuBLASLt has no FP8 algorithm for the GPU (before sm_89).
std::string fp8_gemm_tflops(int n, void* a, void* b, void* d, double* tflops) {
    *tflops = 0;
    cublasLtHandle_t lt = nullptr;
    if (cublasLtCreate(&lt) != CUBLAS_STATUS_SUCCESS) return "cublasLtCreate failed";
    constexpr std::size_t kWorkspaceBytes = std::size_t(32) << 20;  // what cuBLASLt's Hopper kernels ask at most
    void* workspace = nullptr;
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t la = nullptr, lb = nullptr, ld = nullptr;
    cublasLtMatmulPreference_t pref = nullptr;
    std::string err;
    if (cudaMalloc(&workspace, kWorkspaceBytes) != cudaSuccess)
        err = "not enough device memory for the FP8 GEMM's workspace";
    const cublasOperation_t transa = CUBLAS_OP_T, transb = CUBLAS_OP_N;
    const bool described =
        err.empty() && cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa) ==
            CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof transb) ==
            CUBLAS_STATUS_SUCCESS &&
        // Column-major, as cuBLAS counts: A is stored k x m (transposed), B k x n, D m x n.
        cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, n, n, n) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, n, n, n) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatrixLayoutCreate(&ld, CUDA_R_16BF, n, n, n) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulPreferenceCreate(&pref) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &kWorkspaceBytes,
                                             sizeof kWorkspaceBytes) == CUBLAS_STATUS_SUCCESS;
    if (err.empty() && !described) err = "cuBLASLt rejected the FP8 GEMM's description";
    // Up to 8 candidate algorithms, best first by cuBLASLt's heuristic: the first that launches is
    // timed (a candidate can still refuse at launch, e.g. for the workspace it wants).
    cublasLtMatmulHeuristicResult_t algos[8]{};
    int found = 0;
    if (err.empty()) {
        const cublasStatus_t h = cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, ld, ld, pref, 8, algos, &found);
        if (h != CUBLAS_STATUS_SUCCESS) found = 0;  // no FP8 algorithm for this GPU: not measured, no error
    }
    const float one = 1.0f, zero = 0.0f;
    auto launch = [&](const cublasLtMatmulAlgo_t& algo) {
        return status_text(cublasLtMatmul(lt, op, &one, a, la, b, lb, &zero, d, ld, d, ld, &algo, workspace,
                                          kWorkspaceBytes, nullptr));
    };
    std::string refused;
    for (int i = 0; i < found && err.empty(); ++i) {
        if (algos[i].workspaceSize > kWorkspaceBytes) continue;
        if (std::string e = launch(algos[i].algo); !e.empty()) {
            refused += (refused.empty() ? "" : ", ") + e;
            continue;
        }
        double ms = 0;
        err = time_median("cuBLASLt FP8 GEMM", [&] { return launch(algos[i].algo); }, &ms);
        if (err.empty()) *tflops = 2.0 * n * n * double(n) / (ms * 1e9);
        break;
    }
    if (err.empty() && *tflops == 0 && found > 0)
        err = refused.empty() ? "cuBLASLt FP8 GEMM: no candidate algorithm fits the 32 MiB workspace"
                              : "cuBLASLt FP8 GEMM: every candidate algorithm refused (" + refused + ")";
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    for (cublasLtMatrixLayout_t l : {la, lb, ld})
        if (l) cublasLtMatrixLayoutDestroy(l);
    if (op) cublasLtMatmulDescDestroy(op);
    cudaFree(workspace);
    cublasLtDestroy(lt);
    return err;
}

}  // namespace

std::string calibrate_peaks(Calibration* out) {
    constexpr int n = 8192;
    constexpr std::size_t copy_bytes = std::size_t(1) << 30;
    int dev = 0;
    cudaGetDevice(&dev);
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, dev);
    out->gpu = prop.name;
    std::time_t now = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    out->timestamp = buf;

    cublasHandle_t handle = nullptr;
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return "cublasCreate failed";
    void *a = nullptr, *b = nullptr, *c = nullptr;
    std::string err;
    const std::size_t elems = std::size_t(n) * n;
    if (cudaMalloc(&a, elems * 4) != cudaSuccess || cudaMalloc(&b, elems * 4) != cudaSuccess ||
        cudaMalloc(&c, elems * 4) != cudaSuccess) {
        err = "not enough device memory for calibration (~0.8 GB)";
    }
    // Random operands: zeros run measurably faster than real data on these GPUs (METHOD.md).
    auto fill = [&](DType t) {
        fill_random_normal(a, t, elems, 1, 0, nullptr);
        fill_random_normal(b, t, elems, 1, 1, nullptr);
    };
    const float one = 1.0f, zero = 0.0f;
    auto gemm = [&](cudaDataType_t io) {
        return [&, io] {
            return status_text(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, io, n, b, io, n, &zero,
                                            c, io, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        };
    };
    double ms = 0;
    if (err.empty()) {
        fill(DType::BFloat16);
        err = time_median("cuBLAS bf16 GEMM", gemm(CUDA_R_16BF), &ms);
        out->gemm16_tflops = 2.0 * n * n * double(n) / (ms * 1e9);
    }
    if (err.empty()) {
        fill(DType::Float32);
        err = time_median("cuBLAS fp32 GEMM", gemm(CUDA_R_32F), &ms);
        out->gemm32_tflops = 2.0 * n * n * double(n) / (ms * 1e9);
    }
    // FP8 tensor cores exist from sm_89 on; the operands are the quantized normals FP8 rows run on.
    if (err.empty() && prop.major * 10 + prop.minor >= 89) {
        float descale = 1.0f;
        fill_random_normal(a, DType::Float8E4M3FN, elems, 1, 0, nullptr, &descale);
        fill_random_normal(b, DType::Float8E4M3FN, elems, 1, 1, nullptr, &descale);
        // A failed FP8 GEMM costs only its own figure (gemm8_tflops 0: FP8 rows then have no
        // practical GEMM figure); the 16-bit, fp32 and copy figures are still measured and saved.
        if (std::string e = fp8_gemm_tflops(n, a, b, c, &out->gemm8_tflops); !e.empty()) {
            out->gemm8_error = e;
            out->gemm8_tflops = 0;
            cudaGetLastError();
        }
    }
    for (void* p : {a, b, c}) cudaFree(p);
    cublasDestroy(handle);
    if (!err.empty()) return err;

    void *src = nullptr, *dst = nullptr;
    if (cudaMalloc(&src, copy_bytes) != cudaSuccess || cudaMalloc(&dst, copy_bytes) != cudaSuccess) {
        cudaFree(src);
        return "not enough device memory for calibration (2 GiB copy)";
    }
    cudaMemset(src, 1, copy_bytes);
    err = time_median(
        "device copy",
        [&] {
            const cudaError_t e = cudaMemcpyAsync(dst, src, copy_bytes, cudaMemcpyDeviceToDevice);
            return e == cudaSuccess ? std::string() : std::string(cudaGetErrorString(e));
        },
        &ms);
    out->copy_gbs = 2.0 * copy_bytes / (ms * 1e6);
    cudaFree(src);
    cudaFree(dst);
    return err;
}

}  // namespace fa
