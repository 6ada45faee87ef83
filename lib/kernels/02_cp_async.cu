// Rung 2 — `cp_async`: rung 1's math, with tiles arriving by cp.async in a two-stage pipeline.
//
// What changed from rung 1 (`tiled`): only data movement; the per-tile compute is the same
// function (lib/device/scalar_tile.cuh) on the same tiles.
//   * Q, K and V reach shared memory by cp.async.cg 16-byte copies (global -> shared directly, no
//     register staging, L1 bypassed since each chunk is read once per CTA). Rows past the end of
//     a sequence are zero-filled by the copy itself (src_bytes = 0, address clamped to row 0).
//   * K/V have two shared-memory stages. Tile j+1's copies are issued before tile j is computed,
//     so a tile's L2/HBM latency (~1-2k cycles for the 32 KiB K+V tile at D=128 fp16) overlaps the
//     compute of the previous one instead of stalling every warp of the CTA at a barrier (rung 1).
//     One __syncthreads per tile does both jobs: the prefetch of tile j+1 is issued right after
//     the barrier that publishes tile j, which also proves every warp is done with tile j-1's
//     stage (rung 1 needs two: one before and one after the compute).
//   * O leaves through shared memory: each warp converts its rows to the I/O type in the Q buffer
//     (rows only it reads), then writes them with 16-byte coalesced stores (rung 1: one 2- or
//     4-byte store per element, 64 STG.U16 per lane at D=128 fp16).
//
// Why: in rung 1 a CTA issues a key tile's loads, waits for all of them at __syncthreads, then
// computes; its warps are idle for the whole load. Other resident CTAs cover part of that gap,
// but only 2-3 fit per SM (registers, shared memory), all running the same load/compute rhythm.
//
// What it should buy: little, because rung 1 is bound by its FP32 instruction stream, not by
// memory. Per 64-key tile at D=128 fp16 a warp issues ~11.6k instructions (8192 FFMA), i.e.
// ~25-35k cycles of wall time per tile with 2-3 warps sharing a scheduler, against ~1-2k cycles
// of load latency: at most ~5-10% of rung 1's time is exposed load wait, and part of that is
// already covered by the other resident CTAs. Against it, the second K/V stage costs shared
// memory and so resident CTAs where it crosses a threshold (table: fp16/bf16 D=128 3 -> 2,
// fp32 D=32 4 -> 3, fp32 D=64 3 -> 2), which costs latency hiding for the LDS -> FFMA chains.
// Prediction: -5% to +10% against `tiled` at S=8192 (fp16/bf16 D=128: ~20-28 TFLOP/s on H100
// SXM), gains largest at D=32-64 where a tile carries 2-4x less compute per byte loaded and
// occupancy is unchanged, and for short sequences (few key tiles) where the 16-byte O stores
// matter. The tensor-core rung is where the time goes down.
//
// Measured (results/nvidia-h100-80gb-hbm3/ladder.csv, H100 SXM, bf16, TFLOP/s, rung 1 in the same
// sweep): 36.4 (36.4) at 4x16x8192x128 non-causal, 35.5 (35.2) causal; at every FA2-grid shape
// with seqlen >= 4096 +0.3 % (d=128 non-causal) to +2.7 % over rung 1: the same within noise
// where the FFMA stream binds hardest, as predicted for an FP32-issue-bound kernel. ncu shows the
// shared-memory bank conflicts fall 8.7x (12.4 M -> 1.4 M) but the time does not move; dropping
// the second barrier per tile moved d=128 by +0.2-0.3 % (one call, repeated: 36.43 vs 36.36).
//
// Instances (ptxas, CUDA 13.0, -O3; every one 0-byte stack frame, no spills on sm_80 and sm_90).
// CTAs/SM: resident CTAs on an H100 by min(registers, shared memory); rung 1's in brackets.
//   dtype      D    M x N, threads   smem (B)   regs sm_90 (sm_80)   CTAs/SM
//   fp16/bf16  32   64 x 64, 128       44,032   126 (122)            4 [4]
//   fp16/bf16  64   64 x 64, 128       64,512   148 (140)            3 [3]
//   fp16/bf16  128  64 x 64, 128      105,472   220 (214)            2 [3]
//   fp16/bf16  256  64 x 32, 128      111,616   255 (255)            2 [2]
//   fp32       32   64 x 64, 128       64,512   128 (128)            3 [4]
//   fp32       64   64 x 64, 128      105,472   128 (128)            2 [3]
//   fp32       128  64 x 32, 128      111,616   168 (158)            2 [2]
//   fp32       256  64 x 32, 128      209,920   218 (250)            1 [1]  (sm_90 only: > 163 KiB)
//   fp16/bf16  64  128 x 64, 128       92,160   - (240)              2 [2]  the CuTe example's tile
// The example's 128 x 64 x 128 (issue #13) follows the defaults; not at D=128, as in rung 1
// (ptxas spills 480 bytes a thread there).

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "device/block_info.cuh"
#include "device/launch.cuh"
#include "device/mask.cuh"
#include "device/ptx.cuh"
#include "device/scalar_tile.cuh"
#include "fa/kernel_api.h"
#include "kernels/kernels.h"

namespace fa {
namespace {

// Tile values of rung 2; ScalarTile derives the lane mapping and per-operand sizes.
template <typename T, int kHeadDim_, int kBlockM_, int kBlockN_, int kNThreads_>
struct CpAsyncTraits : scalar::ScalarTile<T, kHeadDim_, kBlockM_, kBlockN_, kNThreads_> {
    using Tile = scalar::ScalarTile<T, kHeadDim_, kBlockM_, kBlockN_, kNThreads_>;

    // Two K/V stages: one being computed on, one being filled. More stages would only help if
    // the load latency exceeded a tile's compute time, which it does not (header comment).
    static constexpr int kStages = 2;
    static constexpr int kKVStageElems = Tile::kBlockN * Tile::kSmemRowElems;  // one K or V stage, elements

    // Layout: Q | K stage 0, 1 | V stage 0, 1 | P (fp32). Q doubles as O's staging buffer.
    static constexpr int kSmemKOffset = Tile::kSmemQBytes;
    static constexpr int kSmemVOffset = kSmemKOffset + kStages * Tile::kSmemKVTileBytes;
    static constexpr int kSmemPOffset = kSmemVOffset + kStages * Tile::kSmemKVTileBytes;
    static constexpr int kSmemBytes = kSmemPOffset + Tile::kSmemPBytes;

    // O copy-out: a warp's rows as 16-byte chunks, spread over its 32 lanes.
    static constexpr int kOutChunksPerLane = Tile::kRowsPerWarp * Tile::kChunksPerRow / 32;

    static_assert(Tile::kNThreads % Tile::kChunksPerRow == 0, "a copy pass covers whole rows");
    static_assert(Tile::kBlockM % (Tile::kNThreads / Tile::kChunksPerRow) == 0 &&
                      Tile::kBlockN % (Tile::kNThreads / Tile::kChunksPerRow) == 0,
                  "every lane issues the same number of cp.async (no tail predicate)");
    static_assert((Tile::kRowsPerWarp * Tile::kChunksPerRow) % 32 == 0,
                  "a warp's O rows split evenly into 16-byte chunks over its lanes");
    static_assert(kSmemBytes <= 227 * 1024, "fits sm_90's 227 KiB opt-in shared memory per block");
};

// Issues cp.async copies of rows [row_start, row_start + kRows) of one (batch, head) into shared
// memory; the caller commits the group. Rows at or past `seqlen` are zero-filled (src_bytes = 0)
// from a clamped address (row 0, which exists since seqlen >= 1), so no copy touches memory
// outside the tensor. Same lane -> chunk mapping and pointer bump as rung 1's synchronous loader.
template <class Traits, int kRows>
__device__ __forceinline__ void cp_async_tile(typename Traits::T* __restrict__ smem,
                                              const typename Traits::T* __restrict__ gmem,
                                              int64_t row_stride, int row_start, int seqlen) {
    using T = typename Traits::T;
    constexpr int kRowsPerPass = Traits::kNThreads / Traits::kChunksPerRow;
    constexpr int kPasses = kRows / kRowsPerPass;

    const int r0 = threadIdx.x / Traits::kChunksPerRow;
    const int col = (threadIdx.x % Traits::kChunksPerRow) * Traits::kChunkElems;
    const T* src = gmem + (row_start + r0) * row_stride + col;
    const T* const src_clamped = gmem + col;
    const int64_t pass_stride = kRowsPerPass * row_stride;
    T* dst = smem + r0 * Traits::kSmemRowElems + col;
#pragma unroll
    for (int p = 0; p < kPasses; ++p) {
        const bool in_bounds = row_start + r0 + p * kRowsPerPass < seqlen;
        ptx::cp_async_cg_16(dst + p * kRowsPerPass * Traits::kSmemRowElems, in_bounds ? src : src_clamped,
                            in_bounds ? 16 : 0);
        src += pass_stride;  // past the end only as a value: never used as a copy source there
    }
}

template <class Traits>
__global__ void __launch_bounds__(Traits::kNThreads, Traits::kMinBlocksPerSm) cp_async_fwd_kernel(const FwdParams p) {
    using T = typename Traits::T;
    constexpr int kBlockM = Traits::kBlockM;
    constexpr int kBlockN = Traits::kBlockN;

    extern __shared__ __align__(16) unsigned char smem[];
    T* sQ = reinterpret_cast<T*>(smem);
    T* sK = reinterpret_cast<T*>(smem + Traits::kSmemKOffset);
    T* sV = reinterpret_cast<T*>(smem + Traits::kSmemVOffset);
    float* sP = reinterpret_cast<float*>(smem + Traits::kSmemPOffset);

    const BlockInfo<T> bi(p, kBlockM, false);
    const int m_start = bi.m_block * kBlockM;
    const int n_tiles = key_tile_range(p, bi, kBlockM, kBlockN).end;  // no split-KV: tiles [0, end)
    const scalar::LaneCoords lc;

    // Prologue: Q and key tile 0 in one group.
    cp_async_tile<Traits, kBlockM>(sQ, bi.q, p.q_row_stride, m_start, p.seqlen_q);
    cp_async_tile<Traits, kBlockN>(sK, bi.k, p.k_row_stride, 0, p.seqlen_k);
    cp_async_tile<Traits, kBlockN>(sV, bi.v, p.v_row_stride, 0, p.seqlen_k);
    ptx::cp_async_commit_group();

    scalar::SoftmaxAccum<Traits> acc;
    acc.init();

#pragma unroll 1
    for (int n_block = 0; n_block < n_tiles; ++n_block) {
        const int stage = n_block & 1;
        ptx::cp_async_wait_group<0>();  // this thread's copies of tile n_block (and Q) have landed
        // One barrier per tile: it publishes every thread's copies of tile n_block and proves that
        // every warp is done with tile n_block-1, whose stage the prefetch below overwrites. (P
        // rows are private to their warp: __syncwarp inside the step orders them.)
        __syncthreads();
        // Prefetch tile n_block+1 into the other stage; it lands while this tile is computed.
        if (n_block + 1 < n_tiles) {
            const int next_start = (n_block + 1) * kBlockN;
            cp_async_tile<Traits, kBlockN>(sK + (stage ^ 1) * Traits::kKVStageElems, bi.k,
                                           p.k_row_stride, next_start, p.seqlen_k);
            cp_async_tile<Traits, kBlockN>(sV + (stage ^ 1) * Traits::kKVStageElems, bi.v,
                                           p.v_row_stride, next_start, p.seqlen_k);
            ptx::cp_async_commit_group();
        }

        const int n_start = n_block * kBlockN;
        const T* sK_cur = sK + stage * Traits::kKVStageElems;
        const T* sV_cur = sV + stage * Traits::kKVStageElems;
        if (tile_needs_mask(m_start, n_start, kBlockN, p.seqlen_k, p.causal))
            scalar::scalar_tile_step<true, Traits>(sQ, sK_cur, sV_cur, sP, acc, lc, m_start, n_start,
                                                   p.seqlen_k, p.causal, p.scale_log2);
        else
            scalar::scalar_tile_step<false, Traits>(sQ, sK_cur, sV_cur, sP, acc, lc, m_start, n_start,
                                                    p.seqlen_k, p.causal, p.scale_log2);
    }
    // The last iteration committed nothing: no copy is in flight.

    acc.normalize();

    // O through shared memory. A warp's Q rows were read only by that warp (scalar_tile.cuh), so
    // the warp reuses its own rows of sQ for O after a warp barrier, without a CTA-wide one.
    __syncwarp();
    T* sO = sQ;
#pragma unroll
    for (int i = 0; i < Traits::kRowsPerThread; ++i) {
        T* o_row = sO + scalar::owned_row<Traits>(lc, i) * Traits::kSmemRowElems;
#pragma unroll
        for (int k = 0; k < Traits::kOVecsPerThread; ++k) {
            float vec[Traits::kOVecElems];
#pragma unroll
            for (int x = 0; x < Traits::kOVecElems; ++x) vec[x] = acc.o[i][k * Traits::kOVecElems + x];
            scalar::store_float_to_smem<T, Traits::kOVecElems>(o_row + scalar::owned_dim<Traits>(lc, k), vec);
        }
    }
    __syncwarp();

    // 16-byte stores: consecutive lanes take consecutive chunks of a row (kChunksPerRow lanes per
    // row: a full 128-byte line at D=64 fp16), rows past seqlen_q are skipped.
    const int lane = threadIdx.x % 32;
    const int warp_row0 = lc.warp * Traits::kRowsPerWarp;
#pragma unroll
    for (int c = 0; c < Traits::kOutChunksPerLane; ++c) {
        const int idx = lane + 32 * c;
        const int r = warp_row0 + idx / Traits::kChunksPerRow;
        const int col = (idx % Traits::kChunksPerRow) * Traits::kChunkElems;
        const int row = m_start + r;
        if (row < p.seqlen_q)
            *reinterpret_cast<uint4*>(bi.o + row * p.o_row_stride + col) =
                *reinterpret_cast<const uint4*>(sO + r * Traits::kSmemRowElems + col);
    }
    scalar::store_lse(acc, lc, bi, p, m_start);
}

// Registry rows on scalar_tile.cuh's tile list, the same as rung 1's. fp32 D=256 needs 205 KiB
// (two fp32 K/V stages of 32 x 260 floats): it runs on sm_90 (227 KiB) but not on A100 (163 KiB);
// the registry skips it there by smem_bytes.
struct CpAsyncRows {
    template <typename T, int kHeadDim, int kBlockN, int kBlockM = 64>
    static KernelInstance row() {
        using Tr = CpAsyncTraits<T, kHeadDim, kBlockM, kBlockN, 128>;
        return fwd_instance<Tr, &cp_async_fwd_kernel<Tr>>();
    }
};

}  // namespace

const std::vector<KernelInstance>& cp_async_instances() {
    static const std::vector<KernelInstance> instances = scalar::scalar_rung_instances<CpAsyncRows>();
    return instances;
}

}  // namespace fa
