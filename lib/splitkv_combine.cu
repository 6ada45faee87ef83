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

// One warp per output row (combine_kernel), four a CTA: one or two a CTA (32 or 16 CTAs at B = 1, 32
// heads) measured 0.988x and 1.003x at 1k-2k keys (session 42 call G, an H200).
constexpr int kRowsPerBlock = 4;
constexpr int kWarpsBlock = 8;     // several warps a row (combine_warps_kernel): 8 / warps_per_row rows a block
static_assert(kWarpsBlock % kCombineMaxWarpsPerRow == 0, "whole rows a block");
constexpr int kMaxChunks = 2;     // float4 chunks per lane: 2 · 4 · 32 = 256 = the largest head_dim
constexpr int kSplitsPerLane = kMaxSplits / 32;  // lse and weight registers per lane
// kCombineLoadsInFlight (fa/splitkv.h): float4 partial loads per lane in flight, 64 registers. The
// host's split rule reads what one warp merges in one round from combine_one_warp_splits.
static_assert(combine_one_warp_splits(4 * 32) == kCombineLoadsInFlight &&
                  combine_one_warp_splits(4 * 32 * kMaxChunks) == kCombineLoadsInFlight / kMaxChunks,
              "combine_one_warp_splits matches the kernels' rounds");
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

// acc += w · v: one split's partial row, a lane's kChunks float4 of it, into the running sum.
template <int kChunks>
__device__ __forceinline__ void add_weighted(float4 (&acc)[kChunks], float w, const float4 (&v)[kChunks]) {
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
        acc[c].x += w * v[c].x;
        acc[c].y += w * v[c].y;
        acc[c].z += w * v[c].z;
        acc[c].w += w * v[c].w;
    }
}

// The row's log-sum-exp over its splits and each split's weight exp(lse_i − lse), lane i holding
// split i + 32·j's in w[j]: every lane loads one LSE a slot, the max and the sum go round the warp.
__device__ __forceinline__ float row_lse_weights(const FwdParams& p, long long rows, long long row, int splits,
                                                 int lane, float (&w)[kSplitsPerLane]) {
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
    // A split that saw no key of the row (lse_i = -inf) weighs 0 and the kernels skip its partial
    // (zeros) rather than multiply it, so nothing it holds can reach O.
#pragma unroll
    for (int j = 0; j < kSplitsPerLane; ++j)
        w[j] = (lse != -CUDART_INF_F && lse_i[j] != -CUDART_INF_F) ? expf(lse_i[j] - lse) : 0.0f;
    return lse;
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
    constexpr int kUnroll = kCombineLoadsInFlight / kChunks;
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

    float w[kSplitsPerLane];
    const float lse = row_lse_weights(p, rows, row, splits, lane, w);

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
            if (i0 + u < splits && wi != 0.0f) add_weighted(acc, wi, v[u]);
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

// Several warps a row (session 41). combine_kernel above reads a row with one warp, half its lanes
// idle at head_dim 64 (a row is 16 float4): the 64 splits of the B = 1 GQA shapes were four dependent
// round trips of 16 loads and a chain of 64 weight shuffles. ncu on an H200 (session 41 call B,
// 1x32x1xSk, 8 K/V heads, warm L2) timed it at 6.0-6.1 µs with 64 splits and 3.2-3.4 µs with 16,
// cuDNN's reduction kernel (a 256-thread CTA a row) at 2.6-3.9 µs. Past the splits one warp loads in
// one round (kCombineLoadsInFlight / kChunks: 16 up to head_dim 128, 8 at 256), a row is read here by
// `warps_per_row` warps (4 or 8: fa/splitkv.h, combine_warps_per_row) of kGroups lane groups each
// (kGroups = 32 / the lanes a row needs: two at head_dim 64, so every lane loads). Slot k = warp ·
// kGroups + group takes splits k, k + slots, ...; each warp computes the row's lse itself
// (row_lse_weights), the groups' sums meet by xor-shuffles, the warps' in shared memory. The unrolled
// loops stop at the first step past the last split (uniform in the warp), so a slot's few splits run
// no idle weight shuffles: 3.7-4.1 µs from 17 to 64 splits (call D; 4.2-4.5 without the stop, call C).
// Up to one round the host keeps combine_kernel: this one measured a higher floor there (3.7-4.4 µs
// at 16 splits against 3.2-3.4), and the stop cost the one-warp kernel 0.5 µs (call D).
template <typename T, int kChunks, int kGroups>
__global__ void __launch_bounds__(32 * kWarpsBlock) combine_warps_kernel(const FwdParams p, const int warps_per_row) {
    static_assert(kGroups == 1 || kChunks == 1, "lane groups only where a row fits one group's float4s");
    constexpr int kUnroll = kCombineLoadsInFlight / kChunks;
    constexpr int kGroupLanes = 32 / kGroups;
    constexpr int kRowChunks = 32 * kChunks / kGroups;  // float4 a row holds at most: its lanes' chunks
    ptx::wait_prerequisite_grids();  // as in combine_kernel
    const int warp = threadIdx.x / 32;
    const int row_warp = warp % warps_per_row;  // this warp's place among its row's
    const long long rows = static_cast<long long>(p.batch) * p.heads * p.seqlen_q;
    const long long row = static_cast<long long>(blockIdx.x) * (kWarpsBlock / warps_per_row) + warp / warps_per_row;
    const bool live = row < rows;  // no early return: every thread reaches the __syncthreads
    const int lane = threadIdx.x % 32;
    const int group = lane / kGroupLanes;
    const int group_lane = lane % kGroupLanes;
    const int slots = warps_per_row * kGroups;
    const int slot = row_warp * kGroups + group;
    const int splits = live ? p.num_splits : 0;
    const int chunks = p.head_dim / 4;

    float4 v[kUnroll][kChunks];
    auto load_group = [&](int i0) {
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            if (i0 + u * slots >= splits) break;  // every slot's split past the end (uniform)
            const int i = i0 + u * slots + slot;
            const float4* src = reinterpret_cast<const float4*>(p.o_partial + (i * rows + row) * p.head_dim);
#pragma unroll
            for (int c = 0; c < kChunks; ++c) {
                const int chunk = group_lane + kGroupLanes * c;
                v[u][c] = (i < splits && chunk < chunks) ? src[chunk] : make_float4(0.f, 0.f, 0.f, 0.f);
            }
        }
    };
    load_group(0);
    float w[kSplitsPerLane];
    const float lse = row_lse_weights(p, rows, row, splits, lane, w);
    if (live && p.lse != nullptr && row_warp == 0 && lane == 0) p.lse[row] = lse;

    float4 acc[kChunks];
#pragma unroll
    for (int c = 0; c < kChunks; ++c) acc[c] = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int i0 = 0; i0 < splits;) {
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            if (i0 + u * slots >= splits) break;  // as in load_group: v[u] was loaded
            const int mine = i0 + u * slots + slot;
            // Every lane shuffles (split_weight), whichever split it holds; past the end any lane
            // will do, the weight is unused.
            const int i = mine < splits ? mine : 0;
            const float wi = split_weight(w, i);
            if (mine < splits && wi != 0.0f) add_weighted(acc, wi, v[u]);
        }
        i0 += kUnroll * slots;
        if (i0 >= splits) break;
        load_group(i0);
    }
    // The groups' partial sums of the same chunk (lanes kGroupLanes apart) into every group, then
    // group 0's into shared memory, one float4 a chunk and warp.
#pragma unroll
    for (int off = kGroupLanes; off < 32; off *= 2) {
#pragma unroll
        for (int c = 0; c < kChunks; ++c) {
            acc[c].x += __shfl_xor_sync(0xffffffffu, acc[c].x, off);
            acc[c].y += __shfl_xor_sync(0xffffffffu, acc[c].y, off);
            acc[c].z += __shfl_xor_sync(0xffffffffu, acc[c].z, off);
            acc[c].w += __shfl_xor_sync(0xffffffffu, acc[c].w, off);
        }
    }
    T* dst = static_cast<T*>(p.o) + (row / p.seqlen_q / p.heads) * p.o_batch_stride +
             (row / p.seqlen_q % p.heads) * p.o_head_stride + (row % p.seqlen_q) * p.o_row_stride;
    __shared__ float4 warp_sums[kWarpsBlock][kRowChunks];
    if (group == 0) {
#pragma unroll
        for (int c = 0; c < kChunks; ++c) warp_sums[warp][group_lane + kGroupLanes * c] = acc[c];
    }
    __syncthreads();
    if (!live) return;
    // The row's warps share its chunks: chunk k is summed over the row's warp_sums[] by thread k of
    // the row's 32 · warps_per_row.
    const int first_warp = warp - row_warp;
    for (int chunk = row_warp * 32 + lane; chunk < chunks; chunk += 32 * warps_per_row) {
        float4 o = warp_sums[first_warp][chunk];
        for (int k = 1; k < warps_per_row; ++k) {
            const float4 x = warp_sums[first_warp + k][chunk];
            o.x += x.x;
            o.y += x.y;
            o.z += x.z;
            o.w += x.w;
        }
        store4<T>(dst + 4 * chunk, o);
    }
}

// Whether the image of a combine kernel this device runs was compiled from sm_90+ PTX,
// so that it holds the griddepcontrol.wait a programmatic launch relies on (a build for sm_80
// alone runs on an H100 from compute_80 PTX, without it). Cached per device.
template <auto kKernel>
bool waits_for_prerequisite_grids() {
    constexpr int kMaxDevices = 64;
    static int cached[kMaxDevices] = {};  // 0 unknown, 1 yes, 2 no
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= kMaxDevices) return false;
    if (cached[dev] == 0) {
        cudaFuncAttributes attr{};
        const bool ok = cudaFuncGetAttributes(&attr, kKernel) == cudaSuccess && attr.ptxVersion >= 90;
        cached[dev] = ok ? 1 : 2;
    }
    return cached[dev] == 1;
}

// The combine launch. On sm_90 it is a programmatic dependent launch: the split kernels call
// launch_dependent_grids() as they start, so the combine's few CTAs are scheduled while the last
// wave of splits runs (on SMs the splits leave free) and begin the moment it completes, instead of
// after a full launch gap. At decode shapes the whole split kernel takes 0.2 ms, where that gap
// and the combine are a measurable share.
//
// combine_kernel up to the splits one warp loads in one round, else combine_warps_kernel with
// fa/splitkv.h's combine_warps_per_row; kGroups: the lane groups of the latter.
template <typename T, int kChunks, int kGroups = 1>
cudaError_t launch_combine_chunks(const FwdParams& p, cudaStream_t stream) {
    const long long rows = static_cast<long long>(p.batch) * p.heads * p.seqlen_q;
    const int warps = combine_warps_per_row(p.num_splits, kGroups, kCombineLoadsInFlight / kChunks);
    if (warps == 1) {
        const unsigned blocks = static_cast<unsigned>((rows + kRowsPerBlock - 1) / kRowsPerBlock);
        return launch_kernel(combine_kernel<T, kChunks>, dim3(blocks), dim3(32 * kRowsPerBlock), 0, stream,
                             waits_for_prerequisite_grids<combine_kernel<T, kChunks>>(), p);
    }
    const int rows_per_block = kWarpsBlock / warps;
    const unsigned blocks = static_cast<unsigned>((rows + rows_per_block - 1) / rows_per_block);
    constexpr auto kernel = combine_warps_kernel<T, kChunks, kGroups>;
    return launch_kernel(kernel, dim3(blocks), dim3(32 * kWarpsBlock), 0, stream, waits_for_prerequisite_grids<kernel>(),
                         p, warps);
}

// One float4 chunk per lane up to head_dim 128, two above: a 128-wide row then keeps twice as
// many splits in flight. Up to head_dim 64 a row needs 16 lanes: two lane groups in
// combine_warps_kernel (the split-KV rungs have no smaller head_dim, so no layout of four is built).
template <typename T>
cudaError_t launch_combine(const FwdParams& p, cudaStream_t stream) {
    if (p.head_dim <= 4 * 16) return launch_combine_chunks<T, 1, 2>(p, stream);
    return p.head_dim <= 4 * 32 ? launch_combine_chunks<T, 1>(p, stream) : launch_combine_chunks<T, kMaxChunks>(p, stream);
}

}  // namespace

cudaError_t splitkv_combine(const FwdParams& p, cudaStream_t stream) {
    if (p.num_splits <= 1 || p.o_partial == nullptr || p.lse_partial == nullptr || p.head_dim % 4 != 0 ||
        p.head_dim > 4 * 32 * kMaxChunks)
        return cudaErrorInvalidValue;
    switch (output_dtype(p.dtype)) {  // O's type: FP8 inputs write bf16
        case DType::Float32: return launch_combine<float>(p, stream);
        case DType::Float16: return launch_combine<__half>(p, stream);
        case DType::BFloat16: return launch_combine<__nv_bfloat16>(p, stream);
        case DType::Float8E4M3FN: return cudaErrorInvalidValue;  // never an output type
    }
    return cudaErrorInvalidValue;
}

}  // namespace fa
