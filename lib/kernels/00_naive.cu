// Rung 0 — naive: standard attention that materializes S = Q·Kᵀ and P = softmax(S) in global memory.
//
// What it is: three launches per batch — a cuBLAS GEMM writing S in fp32, a softmax kernel
// (fp32, two passes over each row) writing P in the input dtype, and a cuBLAS GEMM O = P·V.
// Why it is here: it is the O(N²)-traffic baseline the seeds' "×6" claim is measured against.
// Each of S's Sq·Sk entries is written once (4 B), read once, and P is written and read once
// (2 B each in bf16): at 4×8192×16×128 that is 4·16·8192²·12 B ≈ 51.5 GB of traffic against
// 33.5 MB of compulsory bytes, so at ~3 TB/s it cannot beat ~17 ms (~32 TFLOP/s) however fast
// the GEMMs are. The fused rungs move only O(N·d) bytes.
// Measured (results/nvidia-h100-80gb-hbm3/ladder.csv, H100 SXM, bf16, TFLOP/s): 4x16x8192x128 107.8 non-causal
// (20.4 ms, against the ~17 ms S/P-traffic floor above), 65 causal (cuBLAS computes the masked
// half of S anyway); ncu at 4x16x4096x128: 13.06 GB of DRAM traffic, 0.99x the model's 13.15 GB.
//
// Memory: S and P are kept for one batch at a time (all heads), so the workspace is
// H·Sq·Sk·(4 + sizeof(dtype)) bytes; the runner refuses problems whose workspace does not fit.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdio>
#include <mutex>

#include "device/element.cuh"
#include "kernels/kernels.h"

namespace fa {
namespace {

constexpr int kSoftmaxThreads = 256;

template <typename T> struct CublasType;
template <> struct CublasType<float> { static constexpr cudaDataType_t value = CUDA_R_32F; };
template <> struct CublasType<__half> { static constexpr cudaDataType_t value = CUDA_R_16F; };
template <> struct CublasType<__nv_bfloat16> { static constexpr cudaDataType_t value = CUDA_R_16BF; };

cublasHandle_t cublas_handle() {
    // One handle for the process: creating it costs ~ms and must stay out of timed iterations,
    // which the warm-up launch guarantees.
    static cublasHandle_t handle = nullptr;
    static std::once_flag once;
    std::call_once(once, [] {
        if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) handle = nullptr;
    });
    return handle;
}

__device__ float block_reduce(float x, bool is_max) {
    __shared__ float partial[kSoftmaxThreads / 32];
    for (int off = 16; off > 0; off /= 2) {
        const float y = __shfl_xor_sync(0xffffffffu, x, off);
        x = is_max ? fmaxf(x, y) : x + y;
    }
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    __syncthreads();  // `partial` may still be read by the previous reduction
    if (lane == 0) partial[warp] = x;
    __syncthreads();
    x = partial[0];
    for (int w = 1; w < kSoftmaxThreads / 32; ++w) x = is_max ? fmaxf(x, partial[w]) : x + partial[w];
    return x;
}

// One CTA per (head, query row) of one batch: P[row, :] = softmax(scale · S[row, :]) with the
// causal keys (j > row) set to 0. Rows with no visible key are all zeros.
template <typename T>
__global__ void __launch_bounds__(kSoftmaxThreads) softmax_rows(const float* s, T* p, int seqlen_q, int seqlen_k,
                                                                float scale, bool causal) {
    const int64_t row_id = blockIdx.x;  // head * seqlen_q + row
    const int row = static_cast<int>(row_id % seqlen_q);
    const float* s_row = s + row_id * seqlen_k;
    T* p_row = p + row_id * seqlen_k;
    const int visible = causal ? min(row + 1, seqlen_k) : seqlen_k;

    float row_max = -INFINITY;
    for (int j = threadIdx.x; j < visible; j += kSoftmaxThreads) row_max = fmaxf(row_max, s_row[j]);
    row_max = block_reduce(row_max, true);

    float row_sum = 0.0f;
    for (int j = threadIdx.x; j < visible; j += kSoftmaxThreads) row_sum += expf(scale * (s_row[j] - row_max));
    row_sum = block_reduce(row_sum, false);
    const float inv_sum = row_sum > 0.0f ? 1.0f / row_sum : 0.0f;

    for (int j = threadIdx.x; j < seqlen_k; j += kSoftmaxThreads) {
        const float pj = j < visible ? expf(scale * (s_row[j] - row_max)) * inv_sum : 0.0f;
        p_row[j] = from_float<T>(pj);
    }
}

template <typename T>
cudaError_t naive_launch(const FwdParams& prm, cudaStream_t stream) {
    cublasHandle_t handle = cublas_handle();
    if (handle == nullptr) return cudaErrorInitializationError;
    const int64_t scores = static_cast<int64_t>(prm.heads) * prm.seqlen_q * prm.seqlen_k;
    if (prm.workspace_bytes < static_cast<std::size_t>(scores) * (sizeof(float) + sizeof(T)))
        return cudaErrorInvalidValue;
    float* s = static_cast<float*>(prm.workspace);
    T* p = reinterpret_cast<T*>(s + scores);

    cublasSetStream(handle, stream);
    // fp32 inputs keep fp32 arithmetic (no TF32): this is the precise baseline.
    const cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
    const cudaDataType_t io = CublasType<T>::value;
    const float one = 1.0f, zero = 0.0f;
    const int64_t score_stride = static_cast<int64_t>(prm.seqlen_q) * prm.seqlen_k;

    // Grouped K/V heads: query head h = h_kv · g + i reads K/V head h_kv (g = heads_per_kv). One
    // strided batch over the K/V heads per i: Q, S, P and O of every g-th head are evenly spaced,
    // K and V are the batch itself. g = 1 is one batch over all heads.
    const int g = prm.heads_per_kv;
    for (int b = 0; b < prm.batch; ++b) {
        for (int i = 0; i < g; ++i) {
            const T* q = static_cast<const T*>(prm.q) + b * prm.q_batch_stride + i * prm.q_head_stride;
            const T* k = static_cast<const T*>(prm.k) + b * prm.k_batch_stride;
            float* s_i = s + i * score_stride;
            // Row-major S (Sq×Sk) is column-major Sᵀ = K·Qᵀ: m = Sk, n = Sq, k = D.
            const cublasStatus_t st = cublasGemmStridedBatchedEx(
                handle, CUBLAS_OP_T, CUBLAS_OP_N, prm.seqlen_k, prm.seqlen_q, prm.head_dim, &one, k, io,
                static_cast<int>(prm.k_row_stride), prm.k_head_stride, q, io, static_cast<int>(prm.q_row_stride),
                g * prm.q_head_stride, &zero, s_i, CUDA_R_32F, prm.seqlen_k, g * score_stride, prm.heads_kv, compute,
                CUBLAS_GEMM_DEFAULT);
            if (st != CUBLAS_STATUS_SUCCESS) {
                std::fprintf(stderr, "naive: cuBLAS S=QK^T failed: %s\n", cublasGetStatusString(st));
                return cudaErrorUnknown;
            }
        }
        softmax_rows<T><<<static_cast<unsigned>(prm.heads) * prm.seqlen_q, kSoftmaxThreads, 0, stream>>>(
            s, p, prm.seqlen_q, prm.seqlen_k, prm.scale, prm.causal);
        if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
        for (int i = 0; i < g; ++i) {
            const T* v = static_cast<const T*>(prm.v) + b * prm.v_batch_stride;
            const T* p_i = p + i * score_stride;
            T* o = static_cast<T*>(prm.o) + b * prm.o_batch_stride + i * prm.o_head_stride;
            // Row-major O (Sq×D) is column-major Oᵀ = Vᵀ·Pᵀ: m = D, n = Sq, k = Sk.
            const cublasStatus_t st = cublasGemmStridedBatchedEx(
                handle, CUBLAS_OP_N, CUBLAS_OP_N, prm.head_dim, prm.seqlen_q, prm.seqlen_k, &one, v, io,
                static_cast<int>(prm.v_row_stride), prm.v_head_stride, p_i, io, prm.seqlen_k, g * score_stride, &zero,
                o, io, static_cast<int>(prm.o_row_stride), g * prm.o_head_stride, prm.heads_kv, compute,
                CUBLAS_GEMM_DEFAULT);
            if (st != CUBLAS_STATUS_SUCCESS) {
                std::fprintf(stderr, "naive: cuBLAS O=PV failed: %s\n", cublasGetStatusString(st));
                return cudaErrorUnknown;
            }
        }
    }
    return cudaGetLastError();
}

}  // namespace

const std::vector<KernelInstance>& naive_instances() {
    static const std::vector<KernelInstance> kInstances = {
        {DType::BFloat16, 0, {}, 0, reinterpret_cast<const void*>(&softmax_rows<__nv_bfloat16>),
         &naive_launch<__nv_bfloat16>},
        {DType::Float16, 0, {}, 0, reinterpret_cast<const void*>(&softmax_rows<__half>), &naive_launch<__half>},
        {DType::Float32, 0, {}, 0, reinterpret_cast<const void*>(&softmax_rows<float>), &naive_launch<float>},
    };
    return kInstances;
}

std::size_t naive_workspace_bytes(const ProblemShape& p) {
    const std::size_t scores = static_cast<std::size_t>(p.heads) * p.seqlen_q * p.seqlen_k;
    return scores * (sizeof(float) + dtype_bytes(p.dtype));
}

}  // namespace fa
