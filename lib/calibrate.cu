// fa-bench --calibrate: the two ceilings of the napkin model measured on the GPU in use — a cuBLAS
// GEMM (16-bit and fp32) and a device-to-device copy — as METHOD.md asks, instead of datasheet
// numbers. 8192³ keeps the GEMM compute-bound (intensity ~2700 FLOP/B); 1 GiB is 20x the H100's L2.
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

// Median of kTimed event-timed runs of `work` after kWarmup untimed ones, in ms.
std::string time_median(const std::function<bool()>& work, double* ms) {
    for (int i = 0; i < kWarmup; ++i)
        if (!work()) return "calibration launch failed";
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    std::vector<double> t(kTimed);
    for (int i = 0; i < kTimed; ++i) {
        cudaEventRecord(start);
        if (!work()) return "calibration launch failed";
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
    return e == cudaSuccess ? std::string() : cudaGetErrorString(e);
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
            return cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, io, n, b, io, n, &zero, c, io, n,
                                CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS;
        };
    };
    double ms = 0;
    if (err.empty()) {
        fill(DType::BFloat16);
        err = time_median(gemm(CUDA_R_16BF), &ms);
        out->gemm16_tflops = 2.0 * n * n * double(n) / (ms * 1e9);
    }
    if (err.empty()) {
        fill(DType::Float32);
        err = time_median(gemm(CUDA_R_32F), &ms);
        out->gemm32_tflops = 2.0 * n * n * double(n) / (ms * 1e9);
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
    err = time_median([&] { return cudaMemcpyAsync(dst, src, copy_bytes, cudaMemcpyDeviceToDevice) == cudaSuccess; },
                      &ms);
    out->copy_gbs = 2.0 * copy_bytes / (ms * 1e6);
    cudaFree(src);
    cudaFree(dst);
    return err;
}

}  // namespace fa
