// Rung 1 — `tiled`: fused forward with online softmax, Q/K/V tiles in shared memory, FP32 scalar math.
//
// What changed from rung 0 (`naive`): naive runs S = Q·Kᵀ and O = P·V as cuBLAS GEMMs and
// materializes S (fp32) and P in global memory between them — ~51 GB of HBM traffic at
// B=4, H=16, S=8192, D=128 bf16, a ~17 ms floor. Here one CTA owns kBlockM = 64 query rows,
// streams K and V through shared memory kBlockN keys at a time and keeps the online-softmax state
// (running max m, running sum l, rescaled accumulator O) in registers (seed 002), so S and P never
// leave the SM: global traffic is Q once, K/V once per query tile, O once. At the shape above
// that is (8192/64)·64 heads·8192 keys·128·2 B·2 (K and V) ≈ 34 GB, nearly all L2 hits (the 128
// query tiles of a head run side by side and share its 4 MiB of K/V), for 2.2 TFLOP: ~64 FLOP/B.
// Memory is no longer the limit; the FP32 instruction stream is.
//
// What it costs: no tensor cores. Every multiply-add is a scalar FFMA (H100 SXM: 132 SMs x 128
// lanes x 2 FLOP x ~1.98 GHz = 67 TFLOP/s FP32, vs ~990 dense bf16 on tensor cores), and
// fp16/bf16 operands are widened to fp32 as they leave shared memory (HADD2.F32 / shift).
//
// How the work is split (lib/device/scalar_tile.cuh has the derivation and the bank analysis):
// each lane holds a 4x8 register tile of S and the matching 4 rows x D/8 columns of O, reads Q/K
// rows conflict-free (padded rows), and passes P through fp32 shared-memory rows private to its
// warp. Loads are synchronous here: 16-byte ld.global into registers, st.shared, __syncthreads,
// then compute — every warp of the CTA waits out one L2/HBM latency per key tile, which rung 2
// (`cp_async`) hides. O is stored straight from registers, one element per store.
//
// What it should buy: per lane and 64-key tile at D=128 fp16 there are 2·4·8·128 = 8192 FFMA
// against ~2,560 fp16->fp32 conversions, ~384 LDS.128 and ~500 softmax/mask/address
// instructions, so FFMA fill at most ~70% of issue slots (fp32 I/O: ~87%, no conversions). With
// 2-3 CTAs of 4 warps per SM (table) and ~60-70% issue efficiency expect ~20-28 TFLOP/s for
// fp16/bf16 at D=128, S=8192 non-causal: 80-110 ms for the 2.2 TFLOP, i.e. SLOWER than naive's
// tensor-core GEMMs (~17-25 ms) at that shape — fusion alone does not pay without tensor cores;
// rung 3 (`mma`) adds them. What this rung does buy is O(N·d) memory (naive needs a
// 6.4 GB S/P workspace per batch at S=8192) and the kernel structure later rungs keep.
//
// Measured (results/nvidia-h100-80gb-hbm3/ladder.csv, H100 SXM, bf16, TFLOP/s): 36.4 at 4x16x8192x128
// non-causal, 35 causal, 35-36 at every FA2-grid shape — above the 20-28 predicted (FFMA fill is
// better than estimated), but 3x below naive's tensor-core GEMMs, as predicted. ncu at
// 4x16x4096x128: DRAM 0.26 GB against 8.7 GB modelled without L2 reuse (0.03x): the K/V re-reads
// of a head's 64 query tiles hit L2.
//
// Instances (ptxas, CUDA 13.0, -O3; every one 0-byte stack frame, no spills on sm_80 and sm_90).
// CTAs/SM: resident CTAs on an H100 by min(registers, shared memory).
//   dtype      D    M x N, threads   smem (B)   regs sm_90 (sm_80)   CTAs/SM
//   fp16/bf16  32   64 x 64, 128       33,792   122 (120)            4
//   fp16/bf16  64   64 x 64, 128       46,080   144 (136)            3
//   fp16/bf16  128  64 x 64, 128       70,656   168 (168)            3
//   fp16/bf16  256  64 x 32, 128       77,824   255 (255)            2
//   fp32       32   64 x 64, 128       46,080   128 (128)            4
//   fp32       64   64 x 64, 128       70,656   128 (128)            3
//   fp32       128  64 x 32, 128       77,824   168 (162)            2
//   fp32       256  64 x 32, 128      143,360   250 (252)            1
//   fp16/bf16  64  128 x 64, 128       73,728   - (236)              2    the CuTe example's tile
// The example's 128 x 64 x 128 (issue #13) is listed after the defaults; at D=128 it is not
// built: 8 query rows per lane keep ~256 fp32 values live and ptxas spills 472 bytes a thread
// (scalar_tile.cuh, scalar_rung_instances; the registry's skip reason names 64x64x128).

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "device/block_info.cuh"
#include "device/launch.cuh"
#include "device/mask.cuh"
#include "device/scalar_tile.cuh"
#include "fa/kernel_api.h"
#include "kernels/kernels.h"

namespace fa {
namespace {

// Tile values of rung 1; ScalarTile derives the lane mapping and per-operand sizes.
template <typename T, int kHeadDim_, int kBlockM_, int kBlockN_, int kNThreads_>
struct TiledTraits : scalar::ScalarTile<T, kHeadDim_, kBlockM_, kBlockN_, kNThreads_> {
    using Tile = scalar::ScalarTile<T, kHeadDim_, kBlockM_, kBlockN_, kNThreads_>;

    // One buffer per operand: Q (kept for the whole CTA), K, V (overwritten every key tile), P.
    static constexpr int kSmemBytes = Tile::kSmemQBytes + 2 * Tile::kSmemKVTileBytes + Tile::kSmemPBytes;

    // Synchronous loads go through registers, at most kLoadBatch 16-byte chunks per lane at once:
    // 8 chunks = 32 registers in flight, enough to cover latency without crowding the O accumulator
    // (128 registers at D=256).
    static constexpr int kLoadBatch = 8;

    static_assert((kBlockM_ * Tile::kChunksPerRow) % kNThreads_ == 0 &&
                      (kBlockN_ * Tile::kChunksPerRow) % kNThreads_ == 0,
                  "every lane copies the same number of 16-byte chunks (no tail predicate)");
    static_assert(kSmemBytes <= 227 * 1024, "fits sm_90's 227 KiB opt-in shared memory per block");
};

// Copies rows [row_start, row_start + kRows) of one (batch, head) from global to shared memory
// with 16-byte loads through registers; rows at or past `seqlen` are written as zeros and never
// read from global memory (zero Q rows give finite scores that are never stored; zero K/V rows
// give finite values that the mask removes, so no NaN/Inf garbage meets a zero P).
//
// Lane -> chunk: kNThreads / kChunksPerRow rows per pass, each lane one fixed 16-byte column of
// a row (row r0 + pass * kRowsPerPass). The global address advances by one pointer bump per
// pass: computing each pass's address from scratch let the compiler hoist one 64-bit pointer per
// pass out of the key loop (32 pointers = 64 registers at fp32 D=256, which then spilled).
template <class Traits, int kRows>
__device__ __forceinline__ void load_tile_sync(typename Traits::T* __restrict__ smem,
                                               const typename Traits::T* __restrict__ gmem,
                                               int64_t row_stride, int row_start, int seqlen) {
    using T = typename Traits::T;
    constexpr int kRowsPerPass = Traits::kNThreads / Traits::kChunksPerRow;
    constexpr int kPasses = kRows / kRowsPerPass;
    constexpr int kBatch = kPasses < Traits::kLoadBatch ? kPasses : Traits::kLoadBatch;
    static_assert(Traits::kNThreads % Traits::kChunksPerRow == 0, "a pass covers whole rows");
    static_assert(kRows % kRowsPerPass == 0 && kPasses % kBatch == 0, "whole passes and batches");

    const int r0 = threadIdx.x / Traits::kChunksPerRow;
    const int col = (threadIdx.x % Traits::kChunksPerRow) * Traits::kChunkElems;
    const T* src = gmem + (row_start + r0) * row_stride + col;
    const int64_t pass_stride = kRowsPerPass * row_stride;
    T* dst = smem + r0 * Traits::kSmemRowElems + col;
#pragma unroll
    for (int b = 0; b < kPasses; b += kBatch) {
        uint4 chunk[kBatch];
#pragma unroll
        for (int c = 0; c < kBatch; ++c) {
            chunk[c] = make_uint4(0u, 0u, 0u, 0u);
            if (row_start + r0 + (b + c) * kRowsPerPass < seqlen) chunk[c] = *reinterpret_cast<const uint4*>(src);
            src += pass_stride;  // past the end only as a value: never dereferenced there
        }
#pragma unroll
        for (int c = 0; c < kBatch; ++c)
            *reinterpret_cast<uint4*>(dst + (b + c) * kRowsPerPass * Traits::kSmemRowElems) = chunk[c];
    }
}

template <class Traits>
__global__ void __launch_bounds__(Traits::kNThreads, Traits::kMinBlocksPerSm) tiled_fwd_kernel(const FwdParams p) {
    using T = typename Traits::T;
    constexpr int kBlockM = Traits::kBlockM;
    constexpr int kBlockN = Traits::kBlockN;

    extern __shared__ __align__(16) unsigned char smem[];
    T* sQ = reinterpret_cast<T*>(smem);
    T* sK = reinterpret_cast<T*>(smem + Traits::kSmemQBytes);
    T* sV = reinterpret_cast<T*>(smem + Traits::kSmemQBytes + Traits::kSmemKVTileBytes);
    float* sP = reinterpret_cast<float*>(smem + Traits::kSmemQBytes + 2 * Traits::kSmemKVTileBytes);

    const BlockInfo<T> bi(p, kBlockM, false);
    const int m_start = bi.m_block * kBlockM;
    const int n_tiles = key_tile_range(p, bi, kBlockM, kBlockN).end;  // no split-KV: tiles [0, end)
    const scalar::LaneCoords lc;

    scalar::SoftmaxAccum<Traits> acc;
    acc.init();

    load_tile_sync<Traits, kBlockM>(sQ, bi.q, p.q_row_stride, m_start, p.seqlen_q);

#pragma unroll 1
    for (int n_block = 0; n_block < n_tiles; ++n_block) {
        const int n_start = n_block * kBlockN;
        load_tile_sync<Traits, kBlockN>(sK, bi.k, p.k_row_stride, n_start, p.seqlen_k);
        load_tile_sync<Traits, kBlockN>(sV, bi.v, p.v_row_stride, n_start, p.seqlen_k);
        __syncthreads();  // K, V (and Q on the first tile) visible to every warp

        // CTA-uniform branch: only the tail tile and, when causal, the diagonal tiles pay for masking.
        if (tile_needs_mask(m_start, n_start, kBlockN, p.seqlen_k, p.causal))
            scalar::scalar_tile_step<true, Traits>(sQ, sK, sV, sP, acc, lc, m_start, n_start,
                                                   p.seqlen_k, p.causal, p.scale_log2);
        else
            scalar::scalar_tile_step<false, Traits>(sQ, sK, sV, sP, acc, lc, m_start, n_start,
                                                    p.seqlen_k, p.causal, p.scale_log2);
        __syncthreads();  // every warp done with sK/sV (and its sP rows) before the next tile lands
    }

    acc.normalize();

    // O straight from registers: each lane writes its 4 rows x D/8 columns one element at a time.
#pragma unroll
    for (int i = 0; i < Traits::kRowsPerThread; ++i) {
        const int row = m_start + scalar::owned_row<Traits>(lc, i);
        if (row >= p.seqlen_q) continue;
        T* o_row = bi.o + row * p.o_row_stride;
#pragma unroll
        for (int k = 0; k < Traits::kOVecsPerThread; ++k)
#pragma unroll
            for (int x = 0; x < Traits::kOVecElems; ++x)
                o_row[scalar::owned_dim<Traits>(lc, k) + x] =
                    from_float<T>(acc.o[i][k * Traits::kOVecElems + x]);
    }
    scalar::store_lse(acc, lc, bi, p, m_start);
}

// Registry rows on scalar_tile.cuh's shared tile list.
struct TiledRows {
    template <typename T, int kHeadDim, int kBlockN, int kBlockM = 64>
    static KernelInstance row() {
        using Tr = TiledTraits<T, kHeadDim, kBlockM, kBlockN, 128>;
        return fwd_instance<Tr, &tiled_fwd_kernel<Tr>>();
    }
};

}  // namespace

const std::vector<KernelInstance>& tiled_instances() {
    static const std::vector<KernelInstance> instances = scalar::scalar_rung_instances<TiledRows>();
    return instances;
}

}  // namespace fa
