// The one combine kernel of split-KV (fa/splitkv.h): merges the per-split partial outputs of
// every split-capable rung. Small next to the attention itself: at the decode shape B=1, H=32,
// Sq=1, D=128 with 16 splits it reads 16·32·(128 + 1)·4 B = 264 KB against the 512 MB of K and V
// the splits read; what it costs is latency (see combine_kernel) and its launch (launch_combine).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math_constants.h>

#include "device/launch.cuh"  // launch_kernel
#include "device/ptx.cuh"
#include "fa/splitkv.h"

namespace fa {
namespace {

constexpr int kRowsPerBlock = 4;  // one warp per output row
constexpr int kMaxChunks = 2;     // float4 chunks per lane: 2 · 4 · 32 = 256 = the largest head_dim
constexpr int kSplitsPerLane = kMaxSplits / 32;  // lse and weight registers per lane
constexpr int kLoadsInFlight = 16;  // float4 partial loads per lane in flight: 64 registers
static_assert(kMaxSplits % 32 == 0, "whole lanes of splits");

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

// The weight of split `i` of this warp's row, held by lane i % 32 in slot i / 32 (a register
// array, so the slot is picked by selects rather than a dynamic index, which would go to local
// memory).
__device__ __forceinline__ float split_weight(const float (&w)[kSplitsPerLane], int i) {
    const int slot = i / 32;
    float mine = w[0];
#pragma unroll
    for (int j = 1; j < kSplitsPerLane; ++j) mine = slot == j ? w[j] : mine;
    return __shfl_sync(0xffffffffu, mine, i % 32);
}

// Row r = (b·H + h)·Sq + s, the order of the partial buffers. The split weights are
// exp(lse_i − lse): each partial O was normalized by its own row sum l_i = exp(lse_i − m_i)·…, so
// the weighted sum is the softmax over the union of the splits' keys.
//
// The kernel is latency-bound (a decode row has 16 splits of 129 floats, 8 KB), so every load is
// issued before its value is needed: lane i reads split i's lse once and keeps it and its weight in
// registers, and the partial rows (kChunks float4 per lane and split) are read kUnroll splits at a
// time, all loads of a group in flight together, the first group together with the LSEs (it does
// not depend on them): at up to kUnroll splits the whole kernel is one round trip to L2. The
// first version walked the splits one by one, lse load -> exp -> partial load -> FMA, two
// dependent round trips per split: 12 µs at the decode shape B=1, H=32 (8 K/V heads), Sq=1,
// Sk=131072, D=128 with 16 splits, against 183 µs for the splits themselves; 8 splits per group
// after the LSEs, 5.8 µs; this version, 4.3-4.7 µs (ncu gpu__time_duration, caches flushed, H100,
// session 7 calls 1, 2 and 4).
template <typename T, int kChunks>
__global__ void __launch_bounds__(32 * kRowsPerBlock) combine_kernel(const FwdParams p) {
    constexpr int kUnroll = kLoadsInFlight / kChunks;
    // Launched as a programmatic dependent of the main kernel where the device allows it (see
    // launch_combine): the CTAs may start while the splits still run, and wait here for them.
    ptx::wait_prerequisite_grids();
    const long long rows = static_cast<long long>(p.batch) * p.heads * p.seqlen_q;
    const long long row = static_cast<long long>(blockIdx.x) * kRowsPerBlock + threadIdx.x / 32;
    if (row >= rows) return;
    const int lane = threadIdx.x % 32;
    const int splits = p.num_splits;
    const int chunks = p.head_dim / 4;

    float4 v[kUnroll][kChunks];
    auto load_group = [&](int i0) {
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            const int i = i0 + u;
            const float4* src = reinterpret_cast<const float4*>(p.o_partial + (i * rows + row) * p.head_dim);
#pragma unroll
            for (int c = 0; c < kChunks; ++c) {
                const int chunk = lane + 32 * c;
                v[u][c] = (i < splits && chunk < chunks) ? src[chunk] : make_float4(0.f, 0.f, 0.f, 0.f);
            }
        }
    };
    load_group(0);

    float lse_i[kSplitsPerLane];
    float m = -CUDART_INF_F;
#pragma unroll
    for (int j = 0; j < kSplitsPerLane; ++j) {
        const int i = lane + 32 * j;
        lse_i[j] = i < splits ? p.lse_partial[i * rows + row] : -CUDART_INF_F;
        m = fmaxf(m, lse_i[j]);
    }
#pragma unroll
    for (int off = 16; off > 0; off /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
    float sum = 0.0f;
    if (m != -CUDART_INF_F) {
#pragma unroll
        for (int j = 0; j < kSplitsPerLane; ++j) sum += expf(lse_i[j] - m);  // exp(-inf) = 0
    }
#pragma unroll
    for (int off = 16; off > 0; off /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, off);
    const float lse = sum > 0.0f ? m + logf(sum) : -CUDART_INF_F;
    // A split that saw no key of the row (lse_i = -inf) weighs 0 and its partial (zeros) is
    // skipped below, not multiplied, so nothing it holds can reach O.
    float w[kSplitsPerLane];
#pragma unroll
    for (int j = 0; j < kSplitsPerLane; ++j)
        w[j] = (lse != -CUDART_INF_F && lse_i[j] != -CUDART_INF_F) ? expf(lse_i[j] - lse) : 0.0f;

    const int s = static_cast<int>(row % p.seqlen_q);
    const long long bh = row / p.seqlen_q;
    const int h = static_cast<int>(bh % p.heads), b = static_cast<int>(bh / p.heads);
    if (p.lse != nullptr && lane == 0) p.lse[row] = lse;

    float4 acc[kChunks];
#pragma unroll
    for (int c = 0; c < kChunks; ++c) acc[c] = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int i0 = 0;;) {
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            const int i = i0 + u < splits ? i0 + u : 0;  // past the end: any lane, the weight is unused
            const float wi = split_weight(w, i);
            if (i0 + u < splits && wi != 0.0f) {
#pragma unroll
                for (int c = 0; c < kChunks; ++c) {
                    acc[c].x += wi * v[u][c].x;
                    acc[c].y += wi * v[u][c].y;
                    acc[c].z += wi * v[u][c].z;
                    acc[c].w += wi * v[u][c].w;
                }
            }
        }
        i0 += kUnroll;
        if (i0 >= splits) break;
        load_group(i0);
    }
    T* dst = static_cast<T*>(p.o) + b * p.o_batch_stride + h * p.o_head_stride + s * p.o_row_stride;
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
        const int chunk = lane + 32 * c;
        if (chunk < chunks) store4<T>(dst + 4 * chunk, acc[c]);
    }
}

// Whether the image of combine_kernel<T, kChunks> this device runs was compiled from sm_90+ PTX,
// so that it holds the griddepcontrol.wait a programmatic launch relies on (a build for sm_80
// alone runs on an H100 from compute_80 PTX, without it). Cached per device.
template <typename T, int kChunks>
bool waits_for_prerequisite_grids() {
    constexpr int kMaxDevices = 64;
    static int cached[kMaxDevices] = {};  // 0 unknown, 1 yes, 2 no
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= kMaxDevices) return false;
    if (cached[dev] == 0) {
        cudaFuncAttributes attr{};
        const bool ok = cudaFuncGetAttributes(&attr, combine_kernel<T, kChunks>) == cudaSuccess && attr.ptxVersion >= 90;
        cached[dev] = ok ? 1 : 2;
    }
    return cached[dev] == 1;
}

// The combine launch. On sm_90 it is a programmatic dependent launch: the split kernels call
// launch_dependent_grids() as they start, so the combine's few CTAs are scheduled while the last
// wave of splits runs (on SMs the splits leave free) and begin the moment it completes, instead of
// after a full launch gap. At decode shapes the whole split kernel takes 0.2 ms, where that gap
// and the combine are a measurable share.
template <typename T, int kChunks>
cudaError_t launch_combine_chunks(const FwdParams& p, unsigned blocks, cudaStream_t stream) {
    return launch_kernel(combine_kernel<T, kChunks>, dim3(blocks), dim3(32 * kRowsPerBlock), 0, stream,
                         waits_for_prerequisite_grids<T, kChunks>(), p);
}

// One float4 chunk per lane up to head_dim 128, two above: a 128-wide row then keeps twice as
// many splits in flight.
template <typename T>
cudaError_t launch_combine(const FwdParams& p, unsigned blocks, cudaStream_t stream) {
    return p.head_dim <= 4 * 32 ? launch_combine_chunks<T, 1>(p, blocks, stream)
                                : launch_combine_chunks<T, kMaxChunks>(p, blocks, stream);
}

}  // namespace

cudaError_t splitkv_combine(const FwdParams& p, cudaStream_t stream) {
    if (p.num_splits <= 1 || p.o_partial == nullptr || p.lse_partial == nullptr || p.head_dim % 4 != 0 ||
        p.head_dim > 4 * 32 * kMaxChunks)
        return cudaErrorInvalidValue;
    const long long rows = static_cast<long long>(p.batch) * p.heads * p.seqlen_q;
    const unsigned blocks = static_cast<unsigned>((rows + kRowsPerBlock - 1) / kRowsPerBlock);
    switch (output_dtype(p.dtype)) {  // O's type: FP8 inputs write bf16
        case DType::Float32: return launch_combine<float>(p, blocks, stream);
        case DType::Float16: return launch_combine<__half>(p, blocks, stream);
        case DType::BFloat16: return launch_combine<__nv_bfloat16>(p, blocks, stream);
        case DType::Float8E4M3FN: return cudaErrorInvalidValue;  // never an output type
    }
    return cudaErrorInvalidValue;
}

}  // namespace fa
