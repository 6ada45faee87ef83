// The one combine kernel of split-KV (fa/splitkv.h): merges the per-split partial outputs of
// every split-capable rung. Memory-bound and small next to the attention itself: at the decode
// shape B=1, H=32, Sq=1, D=128 with 16 splits it reads 16·32·(128 + 1)·4 B = 264 KB against the
// 512 MB of K and V the splits read.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math_constants.h>

#include "fa/splitkv.h"

namespace fa {
namespace {

constexpr int kRowsPerBlock = 4;  // one warp per output row
constexpr int kMaxChunks = 2;     // float4 chunks per lane: 2 · 4 · 32 = 256 = the largest head_dim

template <typename T> __device__ void store4(T* dst, float4 v);
template <> __device__ void store4<float>(float* dst, float4 v) { *reinterpret_cast<float4*>(dst) = v; }
template <> __device__ void store4<__half>(__half* dst, float4 v) {
    const __half2 a = __floats2half2_rn(v.x, v.y), b = __floats2half2_rn(v.z, v.w);
    uint2 u;
    u.x = *reinterpret_cast<const uint32_t*>(&a);
    u.y = *reinterpret_cast<const uint32_t*>(&b);
    *reinterpret_cast<uint2*>(dst) = u;
}
template <> __device__ void store4<__nv_bfloat16>(__nv_bfloat16* dst, float4 v) {
    const __nv_bfloat162 a = __floats2bfloat162_rn(v.x, v.y), b = __floats2bfloat162_rn(v.z, v.w);
    uint2 u;
    u.x = *reinterpret_cast<const uint32_t*>(&a);
    u.y = *reinterpret_cast<const uint32_t*>(&b);
    *reinterpret_cast<uint2*>(dst) = u;
}

// Row r = (b·H + h)·Sq + s, the order of the partial buffers. The split weights are
// exp(lse_i − lse): each partial O was normalized by its own row sum l_i = exp(lse_i − m_i)·…, so
// the weighted sum is the softmax over the union of the splits' keys.
template <typename T>
__global__ void __launch_bounds__(32 * kRowsPerBlock) combine_kernel(const FwdParams p) {
    const long long rows = static_cast<long long>(p.batch) * p.heads * p.seqlen_q;
    const long long row = static_cast<long long>(blockIdx.x) * kRowsPerBlock + threadIdx.x / 32;
    if (row >= rows) return;
    const int lane = threadIdx.x % 32;
    const int splits = p.num_splits;

    float m = -CUDART_INF_F;
    for (int i = lane; i < splits; i += 32) m = fmaxf(m, p.lse_partial[i * rows + row]);
#pragma unroll
    for (int off = 16; off > 0; off /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
    float sum = 0.0f;
    if (m != -CUDART_INF_F)
        for (int i = lane; i < splits; i += 32) sum += expf(p.lse_partial[i * rows + row] - m);
#pragma unroll
    for (int off = 16; off > 0; off /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, off);
    const float lse = sum > 0.0f ? m + logf(sum) : -CUDART_INF_F;

    const int s = static_cast<int>(row % p.seqlen_q);
    const long long bh = row / p.seqlen_q;
    const int h = static_cast<int>(bh % p.heads), b = static_cast<int>(bh / p.heads);
    if (p.lse != nullptr && lane == 0) p.lse[row] = lse;

    float4 acc[kMaxChunks];
#pragma unroll
    for (int c = 0; c < kMaxChunks; ++c) acc[c] = make_float4(0.f, 0.f, 0.f, 0.f);
    const int chunks = p.head_dim / 4;
    if (lse != -CUDART_INF_F) {
        for (int i = 0; i < splits; ++i) {
            const float li = p.lse_partial[i * rows + row];
            if (li == -CUDART_INF_F) continue;  // this split saw no key of the row
            const float w = expf(li - lse);
            const float4* src = reinterpret_cast<const float4*>(p.o_partial + (i * rows + row) * p.head_dim);
#pragma unroll
            for (int c = 0; c < kMaxChunks; ++c) {
                const int chunk = lane + 32 * c;
                if (chunk < chunks) {
                    const float4 v = src[chunk];
                    acc[c].x += w * v.x;
                    acc[c].y += w * v.y;
                    acc[c].z += w * v.z;
                    acc[c].w += w * v.w;
                }
            }
        }
    }
    T* dst = static_cast<T*>(p.o) + b * p.o_batch_stride + h * p.o_head_stride + s * p.o_row_stride;
#pragma unroll
    for (int c = 0; c < kMaxChunks; ++c) {
        const int chunk = lane + 32 * c;
        if (chunk < chunks) store4<T>(dst + 4 * chunk, acc[c]);
    }
}

}  // namespace

cudaError_t splitkv_combine(const FwdParams& p, cudaStream_t stream) {
    if (p.num_splits <= 1 || p.o_partial == nullptr || p.lse_partial == nullptr || p.head_dim % 4 != 0 ||
        p.head_dim > 4 * 32 * kMaxChunks)
        return cudaErrorInvalidValue;
    const long long rows = static_cast<long long>(p.batch) * p.heads * p.seqlen_q;
    const unsigned blocks = static_cast<unsigned>((rows + kRowsPerBlock - 1) / kRowsPerBlock);
    switch (output_dtype(p.dtype)) {  // O's type: FP8 inputs write bf16
        case DType::Float32: combine_kernel<float><<<blocks, 32 * kRowsPerBlock, 0, stream>>>(p); break;
        case DType::Float16: combine_kernel<__half><<<blocks, 32 * kRowsPerBlock, 0, stream>>>(p); break;
        case DType::BFloat16: combine_kernel<__nv_bfloat16><<<blocks, 32 * kRowsPerBlock, 0, stream>>>(p); break;
        case DType::Float8E4M3FN: return cudaErrorInvalidValue;  // never an output type
    }
    return cudaGetLastError();
}

}  // namespace fa
