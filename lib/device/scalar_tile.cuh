// The FP32 scalar compute shared by rungs 1 (`tiled`) and 2 (`cp_async`): one key tile's
// S = Q·Kᵀ, mask, online-softmax update and O += P·V, with Q, K, V already in shared memory.
// The two rungs differ only in how tiles reach shared memory and how O leaves; keeping the math
// here makes the ladder's step from rung 1 to rung 2 exactly "data movement".
//
// Thread -> work mapping (ScalarTile below derives every number from the tile shape):
//   * Each warp owns kRowsPerWarp consecutive query rows of the CTA tile. Its 32 lanes are
//     4 row groups x 8 column groups: lane = row_group * 8 + col_group.
//   * A lane owns query rows  warp*kRowsPerWarp + row_group + 4*i   (i < kRowsPerThread)
//     and S columns (keys)    col_group + 8*j                       (j < kColsPerThread)
//     so one lane keeps a kRowsPerThread x kColsPerThread register tile of S (4 x 8 at 64x64).
//   * In O += P·V the same lane owns the same rows and head dims
//     col_group*kOVecElems + 8*kOVecElems*k + x, so the softmax rescale of a row stays in the
//     registers of the lanes that own that row: no shared-memory round trip for it.
//   * A row's 8 column-group lanes hold its scores; row max uses 3 xor-shuffles inside those 8
//     lanes. The row sum l is kept per lane (over its own columns) and reduced only at the end
//     (FlashAttention-2's trick): l is rescaled by the same row-uniform factor in every lane.
//   * P goes to shared memory as fp32. Its rows are written and read only by the warp that owns
//     them, so __syncwarp (not __syncthreads) separates the write from the P·V reads.
//
// Shared-memory banks (4-byte banks, 32 of them; "conflict-free" below counted per warp request):
//   * Q, K, V rows are padded by one 16-byte chunk: row stride = kHeadDim*sizeof(T) + 16 bytes.
//     With kHeadDim*sizeof(T) a multiple of 32 bytes (every instance) the stride is an odd
//     multiple of 4 banks modulo 32, so 8 consecutive rows start at 8 distinct multiples of 4
//     banks and 8 lanes reading 16 bytes from 8 consecutive rows hit all 32 banks once.
//     S step: K rows read by a warp are col_group + 8j (8 consecutive rows; row groups broadcast);
//     Q rows are row_group + 4i (4 consecutive rows; column groups broadcast). Both conflict-free.
//   * V rows in P·V: all lanes read the same key row, lanes in a row group cover 8 consecutive
//     chunks of it (128 contiguous bytes), row groups broadcast: conflict-free.
//   * P row stride = kBlockN + 8 floats (kBlockN a multiple of 32 gives 8 mod 32): the scalar P
//     writes (4 consecutive rows x 8 consecutive columns per warp) land in banks 8r + c, all 32
//     distinct; the float4 P reads (4 rows, same columns) land in banks 8r..8r+3, distinct.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math_constants.h>

#include <cstdint>
#include <vector>

#include "device/block_info.cuh"
#include "device/element.cuh"
#include "device/mask.cuh"
#include "device/online_softmax.cuh"
#include "device/ptx.cuh"
#include "fa/kernel_api.h"

namespace fa::scalar {

template <typename T>
struct TypeTag {
    using type = T;
};

// Shape of the scalar tile and every value derived from it. T is the I/O element type as it
// sits in shared memory (fp32, fp16 or bf16); all arithmetic is fp32.
template <typename T_, int kHeadDim_, int kBlockM_, int kBlockN_, int kNThreads_>
struct ScalarTile {
    using T = T_;
    static constexpr int kHeadDim = kHeadDim_;
    static constexpr int kBlockM = kBlockM_;    // query rows per CTA
    static constexpr int kBlockN = kBlockN_;    // key rows per main-loop iteration
    static constexpr int kNThreads = kNThreads_;
    static constexpr int kNWarps = kNThreads / 32;

    // Lanes of a warp: 4 row groups x 8 column groups.
    static constexpr int kRowGroups = 4;
    static constexpr int kColGroups = 8;

    static constexpr int kRowsPerWarp = kBlockM / kNWarps;          // 16 at 64 rows / 4 warps
    static constexpr int kRowsPerThread = kRowsPerWarp / kRowGroups;  // 4: rows of S and O per lane
    static constexpr int kColsPerThread = kBlockN / kColGroups;     // 8 at kBlockN 64: S columns per lane

    // 16-byte chunks: the unit of every global<->shared copy and of the Q/K shared-memory reads.
    static constexpr int kChunkElems = 16 / int(sizeof(T));  // 4 fp32, 8 fp16/bf16
    static constexpr int kChunksPerRow = kHeadDim / kChunkElems;
    // One chunk of padding per row (bank argument in the header comment).
    static constexpr int kSmemRowElems = kHeadDim + kChunkElems;
    static constexpr int kPRowFloats = kBlockN + 8;

    // O columns per lane: kHeadDim / 8, read from V and kept in registers kOVecElems at a time
    // (a 16-byte chunk, or 8 bytes when the head is too narrow for 8 lanes x 16 bytes: fp16 D=32).
    static constexpr int kODimsPerThread = kHeadDim / kColGroups;
    static constexpr int kOVecElems = kODimsPerThread < kChunkElems ? kODimsPerThread : kChunkElems;
    static constexpr int kOVecsPerThread = kODimsPerThread / kOVecElems;

    // Stated in __launch_bounds__ although 1 is the floor: without an explicit minimum ptxas
    // applies its own occupancy heuristic and, for some instances (fp32 D=32 on sm_80: 96 regs),
    // trades a few bytes of spills for a higher occupancy tier. With it, no instance spills.
    static constexpr int kMinBlocksPerSm = 1;

    // Shared-memory footprint of one tile of each operand, in bytes.
    static constexpr int kSmemQBytes = kBlockM * kSmemRowElems * int(sizeof(T));
    static constexpr int kSmemKVTileBytes = kBlockN * kSmemRowElems * int(sizeof(T));  // K or V
    static constexpr int kSmemPBytes = kBlockM * kPRowFloats * int(sizeof(float));

    static_assert(kNThreads % 32 == 0, "whole warps only: the lane layout is 4 x 8 per warp");
    static_assert((kBlockM * 2) % kNThreads == 0, "the CuTe example's rule: m_block_size*2 % num_threads == 0");
    static_assert(kBlockM % (kNWarps * kRowGroups) == 0, "each lane needs a whole number of query rows");
    static_assert(kBlockN % (kColGroups * 4) == 0,
                  "kBlockN a multiple of 32: whole float4 P reads per lane and bank-free P writes");
    static_assert((kHeadDim * int(sizeof(T))) % 32 == 0,
                  "row bytes a multiple of 32: 8 consecutive padded rows start in 8 distinct 4-bank groups");
    static_assert(kODimsPerThread % kOVecElems == 0, "O columns per lane split into whole vectors");
    static_assert(kOVecElems * int(sizeof(T)) >= 4, "V reads are at least one 32-bit word");
    static_assert(kSmemQBytes % 16 == 0 && kSmemKVTileBytes % 16 == 0,
                  "every shared-memory region starts 16-byte aligned (uint4 / cp.async chunks)");
};

// Which rows and columns this lane owns (see the header comment).
struct LaneCoords {
    int warp;
    int row_group;  // lane / 8
    int col_group;  // lane % 8

    __device__ __forceinline__ LaneCoords()
        : warp(threadIdx.x / 32), row_group((threadIdx.x % 32) / 8), col_group(threadIdx.x % 8) {}
};

template <class G>
__device__ __forceinline__ int owned_row(const LaneCoords& lc, int i) {  // row inside the CTA tile
    return lc.warp * G::kRowsPerWarp + lc.row_group + G::kRowGroups * i;
}

template <class G>
__device__ __forceinline__ int owned_col(const LaneCoords& lc, int j) {  // key inside the key tile
    return lc.col_group + G::kColGroups * j;
}

template <class G>
__device__ __forceinline__ int owned_dim(const LaneCoords& lc, int k) {  // first of kOVecElems dims
    return lc.col_group * G::kOVecElems + G::kColGroups * G::kOVecElems * k;
}

// One 32-bit word of shared memory as 1 (fp32) or 2 (fp16/bf16) floats.
template <typename T> __device__ __forceinline__ void unpack_word(uint32_t w, float* out);
template <> __device__ __forceinline__ void unpack_word<float>(uint32_t w, float* out) {
    out[0] = __uint_as_float(w);
}
template <> __device__ __forceinline__ void unpack_word<__half>(uint32_t w, float* out) {
    const float2 f = __half22float2(*reinterpret_cast<const __half2*>(&w));
    out[0] = f.x;
    out[1] = f.y;
}
template <> __device__ __forceinline__ void unpack_word<__nv_bfloat16>(uint32_t w, float* out) {
    // bf16 is the top half of an fp32: widening is a shift, exact.
    out[0] = __uint_as_float(w << 16);
    out[1] = __uint_as_float(w & 0xffff0000u);
}

// kElems consecutive elements of T from shared memory as floats, one vector load (4, 8 or 16 B).
template <typename T, int kElems>
__device__ __forceinline__ void load_smem_as_float(const T* src, float (&out)[kElems]) {
    constexpr int kBytes = kElems * int(sizeof(T));
    constexpr int kElemsPerWord = 4 / int(sizeof(T));
    static_assert(kBytes == 4 || kBytes == 8 || kBytes == 16, "one LDS.32/64/128");
    uint32_t w[kBytes / 4];
    if constexpr (kBytes == 16) {
        const uint4 v = *reinterpret_cast<const uint4*>(src);
        w[0] = v.x; w[1] = v.y; w[2] = v.z; w[3] = v.w;
    } else if constexpr (kBytes == 8) {
        const uint2 v = *reinterpret_cast<const uint2*>(src);
        w[0] = v.x; w[1] = v.y;
    } else {
        w[0] = *reinterpret_cast<const uint32_t*>(src);
    }
#pragma unroll
    for (int i = 0; i < kBytes / 4; ++i) unpack_word<T>(w[i], &out[i * kElemsPerWord]);
}

// kElems floats converted to T and packed into 32-bit words (for the 16-byte output stores).
template <typename T> __device__ __forceinline__ uint32_t pack_word(const float* in);
template <> __device__ __forceinline__ uint32_t pack_word<float>(const float* in) {
    return __float_as_uint(in[0]);
}
template <> __device__ __forceinline__ uint32_t pack_word<__half>(const float* in) {
    const __half2 h = __floats2half2_rn(in[0], in[1]);
    return *reinterpret_cast<const uint32_t*>(&h);
}
template <> __device__ __forceinline__ uint32_t pack_word<__nv_bfloat16>(const float* in) {
    const __nv_bfloat162 h = __floats2bfloat162_rn(in[0], in[1]);
    return *reinterpret_cast<const uint32_t*>(&h);
}

// kElems floats stored to shared memory as T with one vector store (4, 8 or 16 B).
template <typename T, int kElems>
__device__ __forceinline__ void store_float_to_smem(T* dst, const float (&in)[kElems]) {
    constexpr int kBytes = kElems * int(sizeof(T));
    constexpr int kElemsPerWord = 4 / int(sizeof(T));
    static_assert(kBytes == 4 || kBytes == 8 || kBytes == 16, "one STS.32/64/128");
    uint32_t w[kBytes / 4];
#pragma unroll
    for (int i = 0; i < kBytes / 4; ++i) w[i] = pack_word<T>(&in[i * kElemsPerWord]);
    if constexpr (kBytes == 16) {
        *reinterpret_cast<uint4*>(dst) = make_uint4(w[0], w[1], w[2], w[3]);
    } else if constexpr (kBytes == 8) {
        *reinterpret_cast<uint2*>(dst) = make_uint2(w[0], w[1]);
    } else {
        *reinterpret_cast<uint32_t*>(dst) = w[0];
    }
}

// Per-lane state of the online softmax for the lane's kRowsPerThread rows (online_softmax.cuh).
template <class G>
struct SoftmaxAccum {
    float row_max[G::kRowsPerThread];                     // m: running max of s·scale_log2 (row-uniform)
    float row_sum[G::kRowsPerThread];                     // l: this lane's columns only, reduced at the end
    float o[G::kRowsPerThread][G::kODimsPerThread];       // unnormalized O for the lane's (row, dim)s

    __device__ __forceinline__ void init() {
#pragma unroll
        for (int i = 0; i < G::kRowsPerThread; ++i) {
            row_max[i] = -CUDART_INF_F;
            row_sum[i] = 0.0f;
#pragma unroll
            for (int d = 0; d < G::kODimsPerThread; ++d) o[i][d] = 0.0f;
        }
    }

    // o /= l with l summed over the row's 8 lanes; rows that saw no visible key become zeros.
    // Afterwards row_sum holds the row's whole sum in every one of its lanes (for lse()).
    __device__ __forceinline__ void normalize() {
#pragma unroll
        for (int i = 0; i < G::kRowsPerThread; ++i) {
            float l = row_sum[i];
            l += __shfl_xor_sync(0xffffffffu, l, 1);
            l += __shfl_xor_sync(0xffffffffu, l, 2);
            l += __shfl_xor_sync(0xffffffffu, l, 4);
            row_sum[i] = l;
            const float inv = online_softmax_inv_sum(l);
#pragma unroll
            for (int d = 0; d < G::kODimsPerThread; ++d) o[i][d] *= inv;
        }
    }

    // Natural-log log-sum-exp of row i, after normalize().
    __device__ __forceinline__ float lse(int i) const { return online_softmax_lse(row_max[i], row_sum[i]); }
};

// The rows' log-sum-exp into p.lse (when set), after acc.normalize(): column group 0 of each
// row writes it. m_start: the CTA's first query row.
template <class G>
__device__ __forceinline__ void store_lse(const SoftmaxAccum<G>& acc, const LaneCoords& lc,
                                          const BlockInfo<typename G::T>& bi, const FwdParams& p, int m_start) {
    if (p.lse == nullptr || lc.col_group != 0) return;
#pragma unroll
    for (int i = 0; i < G::kRowsPerThread; ++i) {
        const int row = m_start + owned_row<G>(lc, i);
        if (row < bi.rows) p.lse[bi.lse_index(p, row)] = acc.lse(i);
    }
}

// One key tile: S = Q·Kᵀ (this lane's 4x8), scale to base 2, mask, online-softmax update, P to
// shared memory, O += P·V. sQ/sK/sV: tiles of T with row stride kSmemRowElems; sP: fp32 with row
// stride kPRowFloats. m_start / n_start: first query row / key of the tiles, for masking.
// kMasked: the tile reaches past seqlen_k or crosses the causal diagonal (tile_needs_mask).
// Barriers: the caller makes sQ/sK/sV visible before the call and separates this call's reads of
// sK/sV/sP from later writes with __syncthreads (which also covers the next tile's P writes).
template <bool kMasked, class G>
__device__ __forceinline__ void scalar_tile_step(const typename G::T* __restrict__ sQ,
                                                 const typename G::T* __restrict__ sK,
                                                 const typename G::T* __restrict__ sV,
                                                 float* __restrict__ sP, SoftmaxAccum<G>& acc,
                                                 const LaneCoords& lc, int m_start, int n_start,
                                                 int seqlen_k, bool causal, float scale_log2) {
    using T = typename G::T;
    constexpr int TM = G::kRowsPerThread;
    constexpr int TN = G::kColsPerThread;
    constexpr int kChunk = G::kChunkElems;

    // ---- S = Q·Kᵀ: per 16-byte slice of the head dim, TM + TN vector loads feed TM*TN*kChunk FMAs
    // (4 + 8 loads for 256 FMAs at fp16 / 128 at fp32).
    float s[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) s[i][j] = 0.0f;

    const T* q_rows = sQ + owned_row<G>(lc, 0) * G::kSmemRowElems;
    const T* k_rows = sK + owned_col<G>(lc, 0) * G::kSmemRowElems;
    // Not unrolled: the body is already TM*TN*kChunk independent FMAs (256 at fp16), and a second
    // slice's loads in flight cost registers: D=128 fp16 goes from 168 to 182, i.e. from 3 CTAs
    // per SM to 2 (65536 / (128 threads x regs)).
#pragma unroll 1
    for (int c = 0; c < G::kChunksPerRow; ++c) {
        float q[TM][kChunk];
#pragma unroll
        for (int i = 0; i < TM; ++i)
            load_smem_as_float<T, kChunk>(q_rows + G::kRowGroups * i * G::kSmemRowElems + c * kChunk, q[i]);
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            float k[kChunk];
            load_smem_as_float<T, kChunk>(k_rows + G::kColGroups * j * G::kSmemRowElems + c * kChunk, k);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int x = 0; x < kChunk; ++x) s[i][j] = fmaf(q[i][x], k[x], s[i][j]);
        }
    }

    // ---- Online softmax in base 2: s' = s·scale_log2, p = 2^(s' - m_new).
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = m_start + owned_row<G>(lc, i);
        float tile_max = -CUDART_INF_F;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            float v = s[i][j] * scale_log2;
            if constexpr (kMasked) {
                if (!key_visible(row, n_start + owned_col<G>(lc, j), seqlen_k, causal)) v = -CUDART_INF_F;
            }
            s[i][j] = v;
            tile_max = fmaxf(tile_max, v);
        }
        // The row's 8 column-group lanes differ in lane bits 0..2.
        tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
        tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 2));
        tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 4));

        const float m_new = fmaxf(acc.row_max[i], tile_max);
        const float rescale = online_softmax_rescale(acc.row_max[i], m_new);
        const float offset = online_softmax_offset(m_new);
        acc.row_max[i] = m_new;

        float sum = 0.0f;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            const float p = ptx::ex2_approx(s[i][j] - offset);
            s[i][j] = p;
            sum += p;
        }
        acc.row_sum[i] = acc.row_sum[i] * rescale + sum;
#pragma unroll
        for (int d = 0; d < G::kODimsPerThread; ++d) acc.o[i][d] *= rescale;
    }

    // ---- P to shared memory (fp32), rows private to this warp.
    float* p_rows = sP + owned_row<G>(lc, 0) * G::kPRowFloats;
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            p_rows[G::kRowGroups * i * G::kPRowFloats + owned_col<G>(lc, j)] = s[i][j];
    __syncwarp();

    // ---- O += P·V: per 4 keys, TM float4 P loads and 4*kOVecsPerThread V loads feed
    // TM*kODimsPerThread*4 FMAs (256 at D=128).
    const T* v_cols = sV + owned_dim<G>(lc, 0);
    // Not unrolled, for the same register budget as the S loop.
#pragma unroll 1
    for (int n4 = 0; n4 < G::kBlockN / 4; ++n4) {
        float p[TM][4];
#pragma unroll
        for (int i = 0; i < TM; ++i) {
            const float4 v4 = *reinterpret_cast<const float4*>(p_rows + G::kRowGroups * i * G::kPRowFloats + n4 * 4);
            p[i][0] = v4.x; p[i][1] = v4.y; p[i][2] = v4.z; p[i][3] = v4.w;
        }
#pragma unroll
        for (int nn = 0; nn < 4; ++nn) {
            const T* v_row = v_cols + (n4 * 4 + nn) * G::kSmemRowElems;
#pragma unroll
            for (int k = 0; k < G::kOVecsPerThread; ++k) {
                float v[G::kOVecElems];
                load_smem_as_float<T, G::kOVecElems>(v_row + G::kColGroups * G::kOVecElems * k, v);
#pragma unroll
                for (int i = 0; i < TM; ++i)
#pragma unroll
                    for (int x = 0; x < G::kOVecElems; ++x)
                        acc.o[i][k * G::kOVecElems + x] = fmaf(p[i][nn], v[x], acc.o[i][k * G::kOVecElems + x]);
            }
        }
    }
}

// The configurations both scalar rungs instantiate, so that rung 2 differs from rung 1 in data
// movement only. Rung::row<T, kHeadDim, kBlockN>() is the rung's registry row for one tile of
// 64 query rows x 128 threads: each lane gets 4 rows, the most O accumulators (4·D/8 = 64 at
// D=128, 128 at D=256) that fit in registers. kBlockN = 64 gives a 4x8 S tile per lane (12
// vector loads per 32·kChunk FMAs); D=256 and fp32 D=128 halve it to 32 so that K/V tiles stay
// small enough for 2 CTAs per SM.
template <class Rung>
std::vector<KernelInstance> scalar_rung_instances() {
    std::vector<KernelInstance> v;
    auto add_dtype = [&v](auto type_tag) {
        using T = typename decltype(type_tag)::type;
        v.push_back(Rung::template row<T, 32, 64>());
        v.push_back(Rung::template row<T, 64, 64>());
        v.push_back(Rung::template row<T, 128, sizeof(T) == 4 ? 32 : 64>());
        v.push_back(Rung::template row<T, 256, 32>());
    };
    add_dtype(TypeTag<__half>{});
    add_dtype(TypeTag<__nv_bfloat16>{});
    add_dtype(TypeTag<float>{});
    // The CuTe DSL example's default tile, 128 x 64 x 128 (flash_attention_v2.py), after every
    // default so that no (dtype, head_dim) changes its default. 128 rows over 4 warps give a lane
    // 8 query rows instead of 4: an 8x8 S tile (64 fp32), 8·D/8 O accumulators and an 8-row Q
    // slice (64 fp32) in flight in the S loop. At D=64 that is 64 + 64 + 64 + addresses: 236
    // (tiled) / 240 (cp_async) registers on sm_80, no spill. At D=128 O alone is 128 fp32, the sum
    // passes 255 and ptxas (CUDA 13.0, sm_80) spills 472-480 bytes per thread inside both loops,
    // so D=128 is not instantiated: scalar_tile_limit (lib/registry.cpp) names 64x64x128 instead.
    auto add_example_tile = [&v](auto type_tag) {
        using T = typename decltype(type_tag)::type;
        v.push_back(Rung::template row<T, 64, 64, 128>());
    };
    add_example_tile(TypeTag<__half>{});
    add_example_tile(TypeTag<__nv_bfloat16>{});
    return v;
}

}  // namespace fa::scalar
