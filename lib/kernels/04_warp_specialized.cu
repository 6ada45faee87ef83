// Rung 4 — warp_specialized: one producer warp keeps a kStages-deep shared-memory K/V ring full
// with cp.async while eight consumer warps only compute, signalled through mbarriers.
//
// What changed from rung 3 (mma), and why:
//   - Roles. In rung 3 every warp issues its share of each K/V copy and all warps meet at one
//     __syncthreads per key tile, so the slowest warp (a masked tile, a late L2 line) sets the
//     pace. Here the last warp is a producer: it copies tile after tile into a ring of kStages K
//     and V slots and never computes; consumers never copy. The hand-off uses mbarriers (sm_80
//     PTX): producer lanes attach their cp.async to a slot's "full" barrier with
//     cp.async.mbarrier.arrive.noinc, so the barrier completes when the bytes have landed and the
//     producer never waits on memory; each consumer warp releases a slot with one arrive on its
//     "empty" barrier. K and V have separate barriers: Q·Kᵀ starts as soon as K has landed, and K's
//     slot is refilled as soon as every warp is done with Q·Kᵀ. No CTA-wide barrier is left in
//     the main loop, and consumer warps drift independently within the ring's slack.
//   - Eager loads (seed 004 step 3): the ring runs kStages-1 tiles ahead of the consumers instead
//     of rung 3's one.
//   - Shared->register double buffering (step 5): each ldmatrix.x4 of K (per k-step and key pair)
//     and of V (per key step and head_dim pair) is issued one unit ahead of the MMAs it feeds.
//   - Fewer integer instructions (steps 8-9): every consumer ldmatrix address is one of four
//     per-lane registers plus an immediate (LdsmAddr), and the producer's swizzled cp.async
//     destinations, periodic in row & 7, are precomputed once.
//   - Tile per head dim (step 7), set by registers. All warps of a CTA get the same allocation and
//     each SM sub-partition has 16 K registers: a 9-warp CTA puts 3 warps on one sub-partition, so
//     ptxas caps it at 168 registers (measured); two 5-warp CTAs per SM would face the same 168.
//     Rung 3's 32-rows-per-warp layout needs ~245 at d=128, so:
//       d=128: 128 x 32 tiles, 8 consumers x 16 rows, Q's fragments held in registers for the
//              whole kernel (32 registers; Q is never re-read), 4 stages: 96 KB smem, 161-164 regs.
//       d=64:  256 x 32 tiles, 8 consumers x 32 rows (as rung 3), Q re-read per tile, 4 stages:
//              64 KB smem, 162-166 regs.
//     One CTA per SM (8 consumer warps, as rung 3's two CTAs), so each K/V tile is loaded once
//     per 128 (d=128) or 256 (d=64) query rows: L2->SM traffic is that of rung 3 or half of it.
//     The cost at d=128 is shared-memory bandwidth: with 16 rows per warp every K/V fragment feeds
//     one MMA instead of two, ~15 FLOP per byte of smem traffic instead of rung 3's ~19, a ceiling
//     of ~1900 FLOP/clk/SM against the ~1500 FA2 reaches.
//     Tile rows report num_threads = the consumer (MMA) threads, 256; the CTA launches 32 more
//     for the producer. The tile rule (2·m_block_size) % num_threads == 0 is the CuTe example's
//     copy/MMA partition rule, which here binds the consumers; no CTA of N consumers + 1 producer
//     warp that fits the register limit could satisfy it with the full count.
//
// Prediction (H100 SXM, bf16, B·H·S = 2·16·8192, non-causal): d=128 270-330 TFLOP/s (shared-memory
// bound, likely 5-15% under rung 3), d=64 260-300 (same smem ratio as rung 3, fewer stalls: on
// par or a few % above). Causal gains more than non-causal from the decoupled producer, since
// masked diagonal tiles no longer hold a CTA-wide barrier.
// Measured: (filled in from results/ after the H100 sweep)

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "device/block_info.cuh"
#include "device/mask.cuh"
#include "device/online_softmax.cuh"
#include "device/ptx.cuh"
#include "device/smem_swizzle.cuh"
#include "device/softmax_fragment.cuh"
#include "fa/kernel_api.h"
#include "kernels/kernels.h"

namespace fa {
namespace {

template <typename T_, int kHeadDim_, int kBlockM_, int kBlockN_, int kNConsumerWarps_, int kStages_, bool kQInRegs_>
struct WarpSpecializedTraits {
    using T = T_;
    static constexpr int kHeadDim = kHeadDim_;  // D: one Q/K/V/O row
    static constexpr int kBlockM = kBlockM_;    // query rows per CTA
    static constexpr int kBlockN = kBlockN_;    // key rows per ring slot (one consumer iteration)
    static constexpr int kNConsumerWarps = kNConsumerWarps_;
    static constexpr int kProducerWarp = kNConsumerWarps;        // the last warp copies
    static constexpr int kNConsumerThreads = kNConsumerWarps * 32;  // TileConfig::num_threads
    static constexpr int kNThreads = kNConsumerThreads + 32;         // launched: + 1 producer warp
    static constexpr int kStages = kStages_;                      // K/V ring depth

    static constexpr int kWarpRows = kBlockM / kNConsumerWarps;  // query rows owned by one consumer
    static constexpr int kMTiles = kWarpRows / 16;               // m16 tiles per consumer
    // Hold all of this warp's Q A-fragments in registers (kMTiles·kKStepsQK·4: 32 at 16 rows x
    // d128) instead of re-reading them from shared memory every key tile.
    static constexpr bool kQInRegs = kQInRegs_;
    static constexpr int kNTilesS = kBlockN / 8;     // n8 tiles of S per m-tile
    static constexpr int kKStepsQK = kHeadDim / 16;  // k16 steps of S = Q·Kᵀ
    static constexpr int kNTilesO = kHeadDim / 8;    // n8 tiles of O per m-tile
    static constexpr int kKStepsPV = kBlockN / 16;   // k16 steps of O += P·V
    static constexpr int kPVUnits = kKStepsPV * kNTilesO / 2;  // (k-step, n-pair) ldmatrix units of P·V

    static constexpr int kChunksPerRow = kHeadDim / kChunkElems;             // 16-byte chunks per row
    static constexpr int kRowBytes = kHeadDim * static_cast<int>(sizeof(T));  // smem row pitch
    static constexpr int kCopyRowsPerIt = 32 / kChunksPerRow;  // rows one producer cp.async covers
    static constexpr int kSwizzlePeriod = 8 / kCopyRowsPerIt;  // its after which row & 7 repeats

    static constexpr int kTileQBytes = kBlockM * kRowBytes;
    static constexpr int kTileKVBytes = kBlockN * kRowBytes;  // one K or V slot
    static constexpr int kBarrierBytes = 8 * (1 + 4 * kStages);  // q_full, k/v full, k/v empty
    // Q | K slots | V slots | mbarriers; O reuses Q's rows in the epilogue.
    static constexpr int kSmemBytes = kTileQBytes + 2 * kStages * kTileKVBytes + kBarrierBytes;

    static_assert(sizeof(T) == 2, "mma.sync.m16n8k16 here takes bf16 or fp16 operands");
    static_assert(kHeadDim % 64 == 0, "the 8-chunk XOR swizzle needs rows of whole 128-byte segments");
    static_assert(kWarpRows * kNConsumerWarps == kBlockM, "consumers split the query rows evenly");
    static_assert(kWarpRows % 16 == 0, "each consumer owns whole m16 tiles");
    static_assert(kBlockN % 16 == 0, "P·V consumes keys in k16 steps");
    static_assert(32 % kChunksPerRow == 0 && 8 % kCopyRowsPerIt == 0, "producer lanes cover whole rows");
    static_assert((kBlockM * kChunksPerRow) % 32 == 0 && (kBlockN * kChunksPerRow) % 32 == 0,
                  "tiles are copied in whole warp sweeps");
    static_assert(kStages >= 2, "a ring of one slot would serialize copy and compute");
    static_assert((kBlockM * 2) % kNConsumerThreads == 0, "fa-bench tile rule, on the consumer threads");
    static_assert(kSmemBytes <= 227 * 1024, "must fit the H100/A100 per-block shared-memory opt-in");
};

// Producer: this lane's share of a kRows-row tile, 16-byte cp.async per chunk. Lane L copies chunk
// L % kChunksPerRow of rows kCopyRowsPerIt·it + L / kChunksPerRow. Its swizzled destination column
// depends on row & 7 only, which repeats every kSwizzlePeriod sweeps: `col` holds those offsets
// (row-in-sweep included), so a destination is a register plus an immediate. With kCheckBounds,
// rows at or past valid_rows are zero-filled from `fallback` (row 0, always valid).
template <typename Tr, int kRows, bool kCheckBounds>
__device__ __forceinline__ void producer_copy_tile(uint32_t smem_tile, const typename Tr::T* gmem_lane,
                                                   int64_t row_stride, const uint32_t (&col)[Tr::kSwizzlePeriod],
                                                   int lane_row, int valid_rows, const typename Tr::T* fallback) {
#pragma unroll
    for (int it = 0; it < kRows / Tr::kCopyRowsPerIt; ++it) {
        const uint32_t dst =
            smem_tile + col[it % Tr::kSwizzlePeriod] + static_cast<uint32_t>(it * Tr::kCopyRowsPerIt * Tr::kRowBytes);
        const typename Tr::T* src = gmem_lane + it * Tr::kCopyRowsPerIt * row_stride;
        if constexpr (kCheckBounds) {
            const bool in_bounds = lane_row + it * Tr::kCopyRowsPerIt < valid_rows;
            ptx::cp_async_cg_16(dst, in_bounds ? src : fallback, in_bounds ? 16 : 0);
        } else {
            ptx::cp_async_cg_16(dst, src);
        }
    }
}

// Shared-memory map of one CTA, all as 32-bit shared addresses.
template <typename Tr>
struct SmemMap {
    uint32_t q, k, v, bar;
    __device__ __forceinline__ explicit SmemMap(const void* base) {
        q = ptx::smem_u32(base);
        k = q + Tr::kTileQBytes;
        v = k + Tr::kStages * Tr::kTileKVBytes;
        bar = v + Tr::kStages * Tr::kTileKVBytes;
    }
    __device__ __forceinline__ uint32_t q_full() const { return bar; }
    __device__ __forceinline__ uint32_t k_full(int s) const { return bar + 8 * (1 + s); }
    __device__ __forceinline__ uint32_t v_full(int s) const { return bar + 8 * (1 + Tr::kStages + s); }
    __device__ __forceinline__ uint32_t k_empty(int s) const { return bar + 8 * (1 + 2 * Tr::kStages + s); }
    __device__ __forceinline__ uint32_t v_empty(int s) const { return bar + 8 * (1 + 3 * Tr::kStages + s); }
};

// The producer warp: Q once, then key tiles n_tiles-1 down to 0 into ring slot i % kStages. Use u
// of a slot waits for the consumers' release of use u-1 (empty barrier phase u-1), then lets the
// copies complete the full barrier's phase u on their own.
template <typename Tr>
__device__ __forceinline__ void producer_warp(const FwdParams& p, const SmemMap<Tr>& sm, const BlockInfo<typename Tr::T>& bi,
                                              int m_start, int n_tiles, int lane) {
    using T = typename Tr::T;
    const int lane_row = lane / Tr::kChunksPerRow;
    const int lane_chunk = lane % Tr::kChunksPerRow;
    uint32_t col[Tr::kSwizzlePeriod];
#pragma unroll
    for (int j = 0; j < Tr::kSwizzlePeriod; ++j) {
        const int row = j * Tr::kCopyRowsPerIt + lane_row;
        col[j] = static_cast<uint32_t>(lane_row * Tr::kRowBytes + swizzle_chunk(row, lane_chunk) * 16);
    }

    producer_copy_tile<Tr, Tr::kBlockM, true>(sm.q, bi.q + (m_start + lane_row) * p.q_row_stride + lane_chunk * kChunkElems,
                                              p.q_row_stride, col, lane_row, p.seqlen_q - m_start, bi.q);
    ptx::cp_async_mbarrier_arrive_noinc(sm.q_full());

    const int k_lane_off = lane_row * static_cast<int>(p.k_row_stride) + lane_chunk * kChunkElems;
    const int v_lane_off = lane_row * static_cast<int>(p.v_row_stride) + lane_chunk * kChunkElems;
    int s = 0;
    uint32_t phase = 0;  // parity of the current use of slot s
    for (int i = 0; i < n_tiles; ++i) {
        const int n0 = (n_tiles - 1 - i) * Tr::kBlockN;
        const uint32_t k_slot = sm.k + static_cast<uint32_t>(s * Tr::kTileKVBytes);
        const uint32_t v_slot = sm.v + static_cast<uint32_t>(s * Tr::kTileKVBytes);
        const T* gk = bi.k + n0 * p.k_row_stride + k_lane_off;
        const T* gv = bi.v + n0 * p.v_row_stride + v_lane_off;
        if (i >= Tr::kStages) ptx::mbarrier_wait_parity(sm.k_empty(s), phase ^ 1);
        if (i == 0) {  // the highest key tile is the only one that can be partial
            producer_copy_tile<Tr, Tr::kBlockN, true>(k_slot, gk, p.k_row_stride, col, lane_row, p.seqlen_k - n0, bi.k);
        } else {
            producer_copy_tile<Tr, Tr::kBlockN, false>(k_slot, gk, p.k_row_stride, col, 0, 0, nullptr);
        }
        ptx::cp_async_mbarrier_arrive_noinc(sm.k_full(s));
        if (i >= Tr::kStages) ptx::mbarrier_wait_parity(sm.v_empty(s), phase ^ 1);
        if (i == 0) {
            producer_copy_tile<Tr, Tr::kBlockN, true>(v_slot, gv, p.v_row_stride, col, lane_row, p.seqlen_k - n0, bi.v);
        } else {
            producer_copy_tile<Tr, Tr::kBlockN, false>(v_slot, gv, p.v_row_stride, col, 0, 0, nullptr);
        }
        ptx::cp_async_mbarrier_arrive_noinc(sm.v_full(s));
        if (++s == Tr::kStages) {
            s = 0;
            phase ^= 1;
        }
    }
    // Leave no copy in flight behind an exited warp (the barriers are already armed).
    ptx::cp_async_wait_all();
}

// Consumer state that lives across key tiles.
template <typename Tr>
struct ConsumerState {
    float o[Tr::kMTiles][Tr::kNTilesO][4];
    float m[Tr::kMTiles][2];
    float l[Tr::kMTiles][2];
    // Q's A fragments for every k-step when kQInRegs (else unused and optimized away).
    uint32_t qf[Tr::kQInRegs ? Tr::kMTiles : 1][Tr::kQInRegs ? Tr::kKStepsQK : 1][4];
};

// One key tile for one consumer warp. v: kRowsFirst ldmatrix addresses of V slot `s`; k_delta
// moves them to K slot s in kChunksFirst order, q_delta to this warp's Q rows (when Q is re-read).
template <typename Tr, bool kMasked>
__device__ __forceinline__ void consumer_key_tile(ConsumerState<Tr>& st, const SmemMap<Tr>& sm, const LdsmAddr<Tr::kRowBytes>& v,
                                                  int32_t k_delta, int32_t q_delta, int s, uint32_t phase, int m_start,
                                                  int n_start, const FwdParams& p) {
    using T = typename Tr::T;
    constexpr int kNPairs = Tr::kNTilesS / 2;

    float sacc[Tr::kMTiles][Tr::kNTilesS][4];
#pragma unroll
    for (int mt = 0; mt < Tr::kMTiles; ++mt)
#pragma unroll
        for (int nt = 0; nt < Tr::kNTilesS; ++nt)
#pragma unroll
            for (int i = 0; i < 4; ++i) sacc[mt][nt][i] = 0.0f;

    ptx::mbarrier_wait_parity(sm.k_full(s), phase);

    // S = Q·Kᵀ over (k-step, n-pair) units, each one ldmatrix.x4 of K (kChunksFirst: b0,b1 of
    // n-tile 2np, then of 2np+1), double buffered unit to unit: unit u+1's fragment is requested
    // before unit u's MMAs. Q's fragments come from registers (kQInRegs) or, once per k-step,
    // from shared memory.
    constexpr int kQKUnits = Tr::kKStepsQK * kNPairs;
    uint32_t kb[2][4];
    uint32_t qa_smem[Tr::kMTiles][4];
    ptx::ldmatrix_x4(kb[0], v(0, 0, k_delta));
#pragma unroll
    for (int u = 0; u < kQKUnits; ++u) {
        const int kk = u / kNPairs;
        const int np = u % kNPairs;
        if (u + 1 < kQKUnits) ptx::ldmatrix_x4(kb[(u + 1) & 1], v((u + 1) % kNPairs, (u + 1) / kNPairs, k_delta));
        if constexpr (!Tr::kQInRegs) {
            // kRowsFirst on this warp's Q rows: a0..a3 of m16n8k16 directly.
            if (np == 0) {
#pragma unroll
                for (int mt = 0; mt < Tr::kMTiles; ++mt) ptx::ldmatrix_x4(qa_smem[mt], v(mt, kk, q_delta));
            }
        }
        const uint32_t b_even[2] = {kb[u & 1][0], kb[u & 1][1]};
        const uint32_t b_odd[2] = {kb[u & 1][2], kb[u & 1][3]};
#pragma unroll
        for (int mt = 0; mt < Tr::kMTiles; ++mt) {
            if constexpr (Tr::kQInRegs) {
                ptx::mma_m16n8k16<T>(sacc[mt][2 * np], st.qf[mt][kk], b_even);
                ptx::mma_m16n8k16<T>(sacc[mt][2 * np + 1], st.qf[mt][kk], b_odd);
            } else {
                ptx::mma_m16n8k16<T>(sacc[mt][2 * np], qa_smem[mt], b_even);
                ptx::mma_m16n8k16<T>(sacc[mt][2 * np + 1], qa_smem[mt], b_odd);
            }
        }
    }
    // K slot s is free once every consumer warp is past its last K ldmatrix (whose results the
    // MMAs above consumed); one arrival per warp.
    __syncwarp();
    if (ptx::tid_x() % 32 == 0) ptx::mbarrier_arrive(sm.k_empty(s));

    if constexpr (kMasked) {
        // Lane-derived origins come from a fresh %tid.x, not registers held across Q·Kᵀ.
        const int tid = ptx::tid_x();
        const int row0 = m_start + (tid / 32) * Tr::kWarpRows + (tid % 32) / 4;
        mask_fragment(sacc, row0, n_start + 2 * (tid % 4), p.seqlen_k, p.causal);
    }
    softmax_rescale_fragment<true>(sacc, st.o, st.m, st.l, p.scale_log2);

    uint32_t pa[Tr::kMTiles][Tr::kKStepsPV][4];
    convert_p_fragment<T>(sacc, pa);

    ptx::mbarrier_wait_parity(sm.v_full(s), phase);
    // O += P·V over (k-step, n-pair) units, each one ldmatrix.x4.trans (kRowsFirst: b0,b1 of
    // n-tile 2np, then of 2np+1), double buffered unit to unit.
    uint32_t vb[2][4];
    ptx::ldmatrix_x4_trans(vb[0], v(0, 0));
#pragma unroll
    for (int u = 0; u < Tr::kPVUnits; ++u) {
        const int kk = u / (Tr::kNTilesO / 2);
        const int np = u % (Tr::kNTilesO / 2);
        if (u + 1 < Tr::kPVUnits) {
            ptx::ldmatrix_x4_trans(vb[(u + 1) & 1], v((u + 1) / (Tr::kNTilesO / 2), (u + 1) % (Tr::kNTilesO / 2)));
        }
        const uint32_t b_even[2] = {vb[u & 1][0], vb[u & 1][1]};
        const uint32_t b_odd[2] = {vb[u & 1][2], vb[u & 1][3]};
#pragma unroll
        for (int mt = 0; mt < Tr::kMTiles; ++mt) {
            ptx::mma_m16n8k16<T>(st.o[mt][2 * np], pa[mt][kk], b_even);
            ptx::mma_m16n8k16<T>(st.o[mt][2 * np + 1], pa[mt][kk], b_odd);
        }
    }
    __syncwarp();
    if (ptx::tid_x() % 32 == 0) ptx::mbarrier_arrive(sm.v_empty(s));
}

template <typename Tr>
__global__ void __launch_bounds__(Tr::kNThreads, 1) warp_specialized_fwd_kernel(const __grid_constant__ FwdParams p) {
    using T = typename Tr::T;
    extern __shared__ __align__(128) unsigned char smem_raw[];
    const SmemMap<Tr> sm(smem_raw);

    // Causal: the last query tiles see the most keys; issuing them first shortens the tail.
    const int m_block = p.causal ? static_cast<int>(gridDim.x - 1 - blockIdx.x) : static_cast<int>(blockIdx.x);
    const int m_start = m_block * Tr::kBlockM;
    const BlockInfo<T> bi(p);
    const int tid = threadIdx.x;
    const int warp = tid / 32;
    const int lane = tid % 32;
    const int n_tiles = num_key_tiles(p, m_start, Tr::kBlockM, Tr::kBlockN);

    if (tid == 0) {
        ptx::mbarrier_init(sm.q_full(), 32);  // one cp.async-tracked arrival per producer lane
#pragma unroll
        for (int s = 0; s < Tr::kStages; ++s) {
            ptx::mbarrier_init(sm.k_full(s), 32);
            ptx::mbarrier_init(sm.v_full(s), 32);
            ptx::mbarrier_init(sm.k_empty(s), Tr::kNConsumerWarps);  // one arrival per consumer warp
            ptx::mbarrier_init(sm.v_empty(s), Tr::kNConsumerWarps);
        }
    }
    // The only CTA-wide barrier: barrier initialization is visible before any use. After the
    // role split the producer exits early, so no later __syncthreads may appear.
    __syncthreads();

    if (warp == Tr::kProducerWarp) {
        producer_warp<Tr>(p, sm, bi, m_start, n_tiles, lane);
        return;
    }

    // Consumers. Masked tiles (causal diagonal, partial tail) are a suffix of the key range and
    // are visited first; the rest run the unmasked instantiation.
    int n_masked = 0;
    while (n_masked < n_tiles &&
           tile_needs_mask(m_start, (n_tiles - 1 - n_masked) * Tr::kBlockN, Tr::kBlockN, p.seqlen_k, p.causal)) {
        ++n_masked;
    }
    const int warp_row = warp * Tr::kWarpRows;

    ConsumerState<Tr> st;
#pragma unroll
    for (int mt = 0; mt < Tr::kMTiles; ++mt) {
#pragma unroll
        for (int nt = 0; nt < Tr::kNTilesO; ++nt)
#pragma unroll
            for (int i = 0; i < 4; ++i) st.o[mt][nt][i] = 0.0f;
        st.m[mt][0] = st.m[mt][1] = -CUDART_INF_F;
        st.l[mt][0] = st.l[mt][1] = 0.0f;
    }

    LdsmAddr<Tr::kRowBytes> v_addr(sm.v, lane);  // slot 0; advanced around the ring
    const int32_t k_delta = static_cast<int32_t>(sm.k - sm.v) + ldsm_chunks_first_delta<Tr::kRowBytes>(lane);
    int32_t q_delta = static_cast<int32_t>(sm.q + warp_row * Tr::kRowBytes - sm.v);

    ptx::mbarrier_wait_parity(sm.q_full(), 0);
    if constexpr (Tr::kQInRegs) {
#pragma unroll
        for (int mt = 0; mt < Tr::kMTiles; ++mt)
#pragma unroll
            for (int kk = 0; kk < Tr::kKStepsQK; ++kk) ptx::ldmatrix_x4(st.qf[mt][kk], v_addr(mt, kk, q_delta));
    }

    int s = 0;
    uint32_t phase = 0;
    auto iteration = [&](int i, auto masked) {
        consumer_key_tile<Tr, decltype(masked)::value>(st, sm, v_addr, k_delta, q_delta, s, phase, m_start,
                                                       (n_tiles - 1 - i) * Tr::kBlockN, p);
        // Next slot: +1 slot, or back to slot 0 after the last one (and flip the parity).
        const int32_t step = s + 1 < Tr::kStages ? Tr::kTileKVBytes : -(Tr::kStages - 1) * Tr::kTileKVBytes;
        v_addr.advance(step);
        q_delta -= step;
        if (++s == Tr::kStages) {
            s = 0;
            phase ^= 1;
        }
    };
    int i = 0;
    for (; i < n_masked; ++i) iteration(i, std::true_type{});
    for (; i < n_tiles; ++i) iteration(i, std::false_type{});

    normalize_fragment(st.o, st.l);

    // Epilogue: this warp's O rows -> its own rows of sQ (swizzled, 4-byte stores) -> global with
    // 16-byte stores. Only this warp reads those Q rows (and the producer wrote them before
    // q_full), so a warp barrier orders its last Q ldmatrix before the overwrite.
    __syncwarp();
#pragma unroll
    for (int mt = 0; mt < Tr::kMTiles; ++mt) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int r = warp_row + 16 * mt + 8 * h + lane / 4;
#pragma unroll
            for (int nt = 0; nt < Tr::kNTilesO; ++nt) {
                const uint32_t off = static_cast<uint32_t>(swizzled_offset<Tr::kHeadDim>(r, nt) * sizeof(T));
                ptx::st_shared_b32(sm.q + off + 4 * (lane % 4), ptx::pack2<T>(st.o[mt][nt][2 * h], st.o[mt][nt][2 * h + 1]));
            }
        }
    }
    __syncwarp();
    constexpr int kRowsPerStore = 32 / Tr::kChunksPerRow;  // rows one warp-wide 16-byte store covers
    static_assert(Tr::kWarpRows % kRowsPerStore == 0, "whole store sweeps per warp");
    const int st_chunk = lane % Tr::kChunksPerRow;
#pragma unroll
    for (int it = 0; it < Tr::kWarpRows / kRowsPerStore; ++it) {
        const int r = warp_row + it * kRowsPerStore + lane / Tr::kChunksPerRow;
        const uint4 val =
            ptx::ld_shared_v4_b32(sm.q + static_cast<uint32_t>(swizzled_offset<Tr::kHeadDim>(r, st_chunk) * sizeof(T)));
        if (m_start + r < p.seqlen_q) {
            *reinterpret_cast<uint4*>(bi.o + (m_start + r) * p.o_row_stride + st_chunk * kChunkElems) = val;
        }
    }
}

template <typename Tr>
cudaError_t launch_warp_specialized(const FwdParams& p, cudaStream_t stream) {
    const auto kernel = warp_specialized_fwd_kernel<Tr>;
    if (Tr::kSmemBytes > 48 * 1024) {
        const cudaError_t e =
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Tr::kSmemBytes);
        if (e != cudaSuccess) return e;
    }
    const cudaError_t e =
        cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared);
    if (e != cudaSuccess) return e;
    const dim3 grid((p.seqlen_q + Tr::kBlockM - 1) / Tr::kBlockM, p.heads, p.batch);
    kernel<<<grid, Tr::kNThreads, Tr::kSmemBytes, stream>>>(p);
    return cudaGetLastError();
}

template <typename Tr, DType kDType>
KernelInstance warp_specialized_instance() {
    return KernelInstance{kDType,
                          Tr::kHeadDim,
                          // num_threads: the consumer threads (see the top of the file).
                          TileConfig{Tr::kBlockM, Tr::kBlockN, Tr::kNConsumerThreads},
                          static_cast<std::size_t>(Tr::kSmemBytes),
                          reinterpret_cast<const void*>(warp_specialized_fwd_kernel<Tr>),
                          launch_warp_specialized<Tr>};
}

}  // namespace

// First row per (dtype, head_dim) is the default. d=128: 16 rows per consumer with Q in registers
// (the 32-row layout needs ~245 registers, over the 168 a 9-warp CTA allows). d=64: 32 rows per
// consumer fits in 168 at 32-key tiles and reads shared memory ~30% less per FLOP than 16 rows.
// The last two rows are the other layout for each head dim, for the tile sweep.
const std::vector<KernelInstance>& warp_specialized_instances() {
    static const std::vector<KernelInstance> instances = {
        warp_specialized_instance<WarpSpecializedTraits<__nv_bfloat16, 128, 128, 32, 8, 4, true>, DType::BFloat16>(),
        warp_specialized_instance<WarpSpecializedTraits<__nv_bfloat16, 64, 256, 32, 8, 4, false>, DType::BFloat16>(),
        warp_specialized_instance<WarpSpecializedTraits<__half, 128, 128, 32, 8, 4, true>, DType::Float16>(),
        warp_specialized_instance<WarpSpecializedTraits<__half, 64, 256, 32, 8, 4, false>, DType::Float16>(),
        warp_specialized_instance<WarpSpecializedTraits<__nv_bfloat16, 128, 128, 64, 8, 3, false>, DType::BFloat16>(),
        warp_specialized_instance<WarpSpecializedTraits<__nv_bfloat16, 64, 128, 64, 8, 4, true>, DType::BFloat16>(),
    };
    return instances;
}

}  // namespace fa
