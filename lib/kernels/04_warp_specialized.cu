// Rung 4 — warp_specialized: one producer warp keeps a kStages-deep shared-memory K/V ring full
// with cp.async while eleven consumer warps only compute (mma.sync, as rung 3), handed off through
// named barriers (FULL: bar.arrive / bar.sync) and mbarriers (EMPTY: arrive / wait.parity).
//
// What changed from rung 3 (mma), and why:
//   - Roles. In rung 3 every warp issues its share of each K/V copy and all warps meet at one
//     __syncthreads per key tile. Here the last warp is a producer: it copies tile after tile into
//     a ring of kStages K+V slots and never computes; consumers never touch global memory until
//     the epilogue. Per slot s there are two barriers:
//       FULL_s:  a named barrier over all kNThreads threads: producer cp.async.wait_group (its
//                copies of that tile have landed), then bar.arrive; consumers bar.sync before
//                reading the slot.
//       EMPTY_s: an mbarrier (shared memory, after the V slots) with one arrival per consumer
//                thread: after its last ldmatrix of the slot (for every tile: prefetches into
//                registers never cross a tile) each consumer thread mbarrier.arrive's
//                (release; one elected lane per warp after __syncwarp was correct but racecheck
//                did not accept it as ordering the other lanes); the producer waits on the phase parity
//                (mbarrier.try_wait.parity on sm_90, test_wait on sm_80: acquire) before
//                overwriting the slot, and after its last copy drains the releases of the last
//                min(n_tiles, kStages) tiles, so it exits with every phase complete. Tile j's
//                release completes phase j / kStages of EMPTY_{j % kStages}. Thread 0 initialises
//                the mbarriers before the kernel's only __syncthreads, ahead of the role split.
//     Every FULL operation is warp-uniform and, among consumers, has one call site: all consumer
//     warps meet each phase at the same bar.sync instruction (compute-sanitizer synccheck
//     flagged the earlier skip/masked/unmasked loops, which reached the same FULL phase from
//     different instructions under causal masking); the EMPTY release also has one call site.
//     Both directions are release/acquire synchronizations (PTX memory model); the cp.async
//     writes are the producer's own once wait_group returns, so FULL is rung 3's pattern
//     (wait_group + barrier, racecheck-clean) split between roles. EMPTY was a named barrier too
//     (consumers bar.arrive -> producer bar.sync), correct but racecheck-dirty once slots are
//     reused (cp.async refill vs. the previous use's ldmatrix: racecheck does not take
//     bar.arrive -> bar.sync as ordering that WAR), whereas it accepts mbarrier arrive -> wait,
//     as in the Hopper rungs. The older all-mbarrier hand-off (FULL by
//     cp.async.mbarrier.arrive.noinc) was racecheck-dirty in the other direction, apparently
//     because racecheck does not model cp.async completion through an mbarrier. ptxas reserves
//     all 16 named barriers (the slot's id is a register); with one CTA per SM that costs nothing.
//   - Eager loads (seed 004 step 3): the producer runs up to kStages tiles ahead of the slowest
//     consumer, not rung 3's one tile.
//   - Shared->register double buffering (step 5): each ldmatrix.x4 of K (per k-step, key pair)
//     and of V (per key step, head_dim pair) is issued one unit ahead of the MMAs it feeds; the
//     first V fragment is requested before the softmax, so the P·V loop starts on loaded data.
//   - Fewer integer instructions (steps 8-9): every consumer ldmatrix address is one of four
//     per-lane registers plus an immediate (LdsmAddr); the producer's swizzled cp.async
//     destinations, periodic in row & 7, are precomputed once.
//   - Heaviest-first causal scheduling, as rung 3; masking is a warp-uniform branch inside one
//     tile loop (not rung 3's loop split: see the barrier call sites above). Under causal masking
//     a consumer warp skips the MMAs of key tiles that lie wholly above its own 16 rows' diagonal
//     (it still takes part in both barriers), instead of computing an all -inf S.
//   - Warp count and tile, set by the register file. Each SM sub-partition (SMSP) has 16 K
//     32-bit registers and a CTA's warps are spread over the four SMSPs, so the allocation
//     per thread is bounded by 16384 / (32 · warps on the fullest SMSP): 255 for 8 warps per SM,
//     168 for 9-12, 128 for 13-16 (ptxas applies exactly this: __launch_bounds__(160, 2) and
//     (288, 1) both cap at 168, checked with CUDA 13.0). Rung 3 fills the register file with
//     2 x 4 warps at up to 255 registers; a producer warp on top of 8 consumers at that size
//     does not fit, and at 255 registers the only layouts with a producer have 7 (or 2 x 3)
//     consumer warps per SM, one SMSP then carrying a single consumer: at best 7/8 of rung 3's
//     tensor throughput. So this rung moves to 12 warps per SM at <= 168 registers: 11 consumers
//     + 1 producer in one CTA, 3 warps on three SMSPs (2 consumers + producer on the fourth), 37%
//     more MMA warps than rung 3 to hide ldmatrix, MMA-chain, shuffle and MUFU latency, which is
//     what bounds rung 3 (it issues one HMMA per ~12 SMSP cycles against ~6 at mma.sync peak).
//     168 registers cannot hold 32 query rows at d=128 (128 fp32 of O alone), so consumers own
//     16 rows (one m16 tile) with Q's A fragments in registers for the whole kernel (Q is never
//     re-read; d=128: 32 registers, d=64: 16). ptxas, CUDA 13.0, sm_90 and sm_80, no spills:
//       d=128: 176 x 32 tiles (11 x 16 rows), 4-stage ring: 44 + 64 = 108 KB smem (+ 32 B of
//              EMPTY mbarriers), 166 registers (sm_90; 164 sm_80).
//              (64-key tiles spill 56 B with Q in registers.)
//       d=64:  176 x 64 tiles, 4-stage ring: 22 + 64 = 86 KB smem, 137 (sm_90) / 128 (sm_80).
//     One CTA per SM (the register file is full). Each K/V tile is loaded once per 176 query
//     rows (rung 3: 128). The cost of 16 rows per warp is shared-memory bandwidth: each K/V
//     fragment feeds two MMAs instead of four, a ceiling of ~2000 FLOP/clk/SM (128 B/clk of
//     ldmatrix) against the ~1400 rung 3 runs at, so it binds only above ~480 TFLOP/s (at 360
//     TFLOP/s ldmatrix + cp.async take ~80% of the bandwidth, which lengthens LDSM latency).
//     Tile rows report num_threads = the consumer (MMA) threads, 352; the CTA launches 32 more for
//     the producer. The tile rule (2·m_block_size) % num_threads == 0 binds the consumers.
//
// Previous design of this rung (replaced): 8 consumer warps + 1 producer in one CTA, mbarrier
// hand-off with cp.async.mbarrier.arrive.noinc. Its 9 warps capped ptxas at 168 registers, which
// forced 16 rows per warp at d=128 and 32-key tiles at d=64, with only 8 MMA warps per SM: slower
// than rung 3 everywhere, and racecheck reported hazards on the K/V ring (cp.async -> mbarrier
// completion is not modelled). Measured on H100, bf16, B=2, S=8192, TFLOP/s (median of 10):
//   d=64 H=32: 250 non-causal, 228 causal (rung 3: 308, 293);
//   d=128 H=16: 279 non-causal, 267 causal (rung 3: 341, 306).
//
// Prediction (H100 SXM, bf16, B·H·S = 2·16·8192): 11 consumer warps instead of the old 8 should
// recover what the old design lost to latency, and land 0-15% above rung 3: d=128 340-380
// TFLOP/s non-causal, d=64 310-345; causal gains a little more (no CTA-wide barrier on masked
// tiles, above-diagonal tiles skipped per warp). Risk: if rung 3 is bound by its register-rich
// per-warp ILP or by shared-memory bandwidth rather than by latency, 16-row warps at 168
// registers land at or below it; the sweep row with 15 consumers at d=64 tests more warps.
// Measured (results/nvidia-h100-80gb-hbm3/ladder.csv, H100 SXM, bf16, TFLOP/s, FA2 in the same
// sweep): d=128 4x16x8192 311 non-causal / 286 causal (mma 342 / 324, FA2 345 / 316); d=64
// 2x32x8192 260 / 234 (mma 311 / 290). So the bet lost: 11-16 % below rung 3 at every large
// shape, i.e. rung 3 is not latency-bound in the way assumed — 16-row warps pay in shared-memory
// traffic per FLOP (ncu at 4x16x4096x128: 1.26 M bank conflicts vs mma's 0.20 M, HMMA pipe 47 %
// vs 52 %) more than the extra warps buy. A 176 x 48 variant that re-read Q from shared memory
// was dropped: compute-sanitizer racecheck reported hazards on it that were not understood.
// (The sweep ran with one elected arrive per warp; the per-thread arrive that followed measured
// 302 / 280 at d=128 2x16x8192 and 262 / 238 at d=64 2x32x8192 in one later call, mma 342 / 310
// and 311 / 293 in the same call: the same within 1-2 %.)

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "device/block_info.cuh"
#include "device/launch.cuh"
#include "device/mask.cuh"
#include "device/online_softmax.cuh"
#include "device/ptx.cuh"
#include "device/smem_swizzle.cuh"
#include "device/softmax_fragment.cuh"
#include "fa/kernel_api.h"
#include "kernels/kernels.h"

namespace fa {
namespace {

// Named barriers (sm_70+ bar.sync / bar.arrive with an id and a thread count, a multiple of 32;
// id 0 is __syncthreads'). Kept here rather than in ptx.cuh: only this rung uses them on sm_80.
// Both are executed warp-uniformly (bar.* is .aligned).
template <int kCount>
__device__ __forceinline__ void bar_sync(int id) {
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "n"(kCount) : "memory");
}

template <int kCount>
__device__ __forceinline__ void bar_arrive(int id) {
    asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "n"(kCount) : "memory");
}

template <typename T_, int kHeadDim_, int kBlockM_, int kBlockN_, int kNConsumerWarps_, int kStages_>
struct WarpSpecializedTraits {
    using T = T_;
    static constexpr int kHeadDim = kHeadDim_;  // D: one Q/K/V/O row
    static constexpr int kBlockM = kBlockM_;    // query rows per CTA
    static constexpr int kBlockN = kBlockN_;    // key rows per ring slot (one consumer iteration)
    static constexpr int kNConsumerWarps = kNConsumerWarps_;
    static constexpr int kNConsumerThreads = kNConsumerWarps * 32;  // TileConfig::num_threads
    static constexpr int kNThreads = kNConsumerThreads + 32;         // launched: + 1 producer warp
    static constexpr int kProducerWarp = kNConsumerWarps;            // the last warp copies
    static constexpr int kStages = kStages_;                         // K/V ring depth

    static constexpr int kWarpRows = kBlockM / kNConsumerWarps;  // query rows owned by one consumer
    static constexpr int kMTiles = kWarpRows / 16;               // m16 tiles per consumer
    static constexpr int kNTilesS = kBlockN / 8;                 // n8 tiles of S per m-tile
    static constexpr int kKStepsQK = kHeadDim / 16;              // k16 steps of S = Q·Kᵀ
    static constexpr int kNTilesO = kHeadDim / 8;                // n8 tiles of O per m-tile
    static constexpr int kKStepsPV = kBlockN / 16;               // k16 steps of O += P·V
    static constexpr int kNPairsS = kNTilesS / 2;                // K ldmatrix.x4 per k-step
    static constexpr int kNPairsO = kNTilesO / 2;                // V ldmatrix.x4 per key step
    static constexpr int kQKUnits = kKStepsQK * kNPairsS;        // K ldmatrix.x4 per key tile
    static constexpr int kPVUnits = kKStepsPV * kNPairsO;        // V ldmatrix.x4 per key tile

    static constexpr int kChunksPerRow = kHeadDim / kChunkElems;             // 16-byte chunks per row
    static constexpr int kRowBytes = kHeadDim * static_cast<int>(sizeof(T));  // smem row pitch
    static constexpr int kCopyRowsPerIt = 32 / kChunksPerRow;  // rows one producer cp.async covers
    static constexpr int kSwizzlePeriod = 8 / kCopyRowsPerIt;  // sweeps after which row & 7 repeats

    static constexpr int kTileQBytes = kBlockM * kRowBytes;
    static constexpr int kTileKVBytes = kBlockN * kRowBytes;  // one K or V slot
    // Q | K slots | V slots | EMPTY mbarriers (8 B per slot); O reuses Q's rows in the epilogue.
    static constexpr int kEmptyBarOffset = kTileQBytes + 2 * kStages * kTileKVBytes;
    static constexpr int kSmemBytes = kEmptyBarOffset + 8 * kStages;

    // Named barrier ids: FULL_s = kBarFull + s; all kNThreads take part.
    static constexpr int kBarFull = 1;

    static_assert(sizeof(T) == 2, "mma.sync.m16n8k16 here takes bf16 or fp16 operands");
    static_assert(kHeadDim % 64 == 0, "the 8-chunk XOR swizzle needs rows of whole 128-byte segments");
    static_assert(kWarpRows * kNConsumerWarps == kBlockM, "consumers split the query rows evenly");
    static_assert(kWarpRows % 16 == 0, "each consumer owns whole m16 tiles");
    static_assert(kBlockN % 16 == 0, "P·V consumes keys in k16 steps");
    static_assert(32 % kChunksPerRow == 0 && 8 % kCopyRowsPerIt == 0, "producer lanes cover whole rows");
    static_assert(kBlockM % kCopyRowsPerIt == 0 && kBlockN % kCopyRowsPerIt == 0, "whole producer sweeps");
    static_assert(kStages >= 2, "a ring of one slot would serialize copy and compute");
    static_assert(kBarFull + kStages <= 16, "16 named barriers per CTA");
    static_assert(kEmptyBarOffset % 8 == 0, "mbarriers are 8-byte aligned");
    static_assert(kNThreads <= 1024, "CTA size");
    static_assert((kBlockM * 2) % kNConsumerThreads == 0, "fa-bench tile rule, on the consumer threads");
    static_assert(kSmemBytes <= 227 * 1024, "must fit the H100/A100 per-block shared-memory opt-in");
};

// Producer: this lane's share of a kRows-row tile, 16-byte cp.async per chunk. Lane L copies chunk
// L % kChunksPerRow of rows kCopyRowsPerIt·it + L / kChunksPerRow. Its swizzled destination column
// depends on row & 7 only, which repeats every kSwizzlePeriod sweeps: `col` holds those offsets
// (row-in-sweep included), so a destination is a register plus an immediate. With kCheckBounds,
// rows at or past valid_rows are zero-filled (src-size 0) from `fallback` (row 0, always valid):
// zeros, not stale data, so masked keys meet P = 0 times a finite V.
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

// The producer warp. Key tiles are produced in consumer order, n_tiles-1 down to 0, tile i into
// slot i % kStages; Q rides in tile 0's commit group. Tile i is published one iteration late:
// after issuing tile i, wait_group<1> retires tile i-1's group and FULL of its slot is arrived
// on, so copies of two tiles are in flight while the producer never waits on the newest one.
// Use u >= 1 of a slot first waits on EMPTY_s, the consumers' release of use u-1: the release of
// tile j completes phase j / kStages of EMPTY_{j % kStages}, so before writing tile i (i >=
// kStages, use u = i / kStages) the producer waits for the phase of parity (u - 1) & 1.
// Deadlock-free for any n_tiles >= 1: consumers need FULL of tile j, arrived at producer step
// j+1 (or in the drain); the producer's step i waits for EMPTY of tile i-kStages, whose FULL
// went out at step i-kStages+1 <= i-1; the final EMPTY waits (tiles >= n_tiles-kStages) follow
// every FULL arrive and wait on nothing but consumers' releases. No phase mixing or parity
// aliasing: a consumer warp arrives on EMPTY of tile j+kStages only after FULL of that tile, i.e.
// after the producer saw EMPTY of tile j complete, so an EMPTY mbarrier is never more than one
// phase past the one its waiter asks for; the producer arrives on FULL of tile j+kStages only
// after EMPTY of tile j, i.e. after every consumer passed FULL of tile j.
template <typename Tr>
__device__ __forceinline__ void producer_warp(const FwdParams& p, uint32_t sQ, uint32_t sK, uint32_t sV,
                                              uint32_t empty_bar, const BlockInfo<typename Tr::T>& bi, int m_start,
                                              int n_tiles, int lane) {
    using T = typename Tr::T;
    const int lane_row = lane / Tr::kChunksPerRow;
    const int lane_chunk = lane % Tr::kChunksPerRow;
    uint32_t col[Tr::kSwizzlePeriod];
#pragma unroll
    for (int j = 0; j < Tr::kSwizzlePeriod; ++j) {
        const int row = j * Tr::kCopyRowsPerIt + lane_row;
        col[j] = static_cast<uint32_t>(lane_row * Tr::kRowBytes + swizzle_chunk(row, lane_chunk) * 16);
    }
    const int64_t k_lane_off = lane_row * p.k_row_stride + lane_chunk * kChunkElems;
    const int64_t v_lane_off = lane_row * p.v_row_stride + lane_chunk * kChunkElems;

    // Step 0: Q and the highest key tile, the only partial ones.
    producer_copy_tile<Tr, Tr::kBlockM, true>(sQ, bi.q + (m_start + lane_row) * p.q_row_stride + lane_chunk * kChunkElems,
                                              p.q_row_stride, col, lane_row, p.seqlen_q - m_start, bi.q);
    {
        const int n0 = (n_tiles - 1) * Tr::kBlockN;
        producer_copy_tile<Tr, Tr::kBlockN, true>(sK, bi.k + n0 * p.k_row_stride + k_lane_off, p.k_row_stride, col,
                                                  lane_row, p.seqlen_k - n0, bi.k);
        producer_copy_tile<Tr, Tr::kBlockN, true>(sV, bi.v + n0 * p.v_row_stride + v_lane_off, p.v_row_stride, col,
                                                  lane_row, p.seqlen_k - n0, bi.v);
        ptx::cp_async_commit_group();
    }

    int s = 0;  // slot of tile i - 1 (the one to publish)
    for (int i = 1; i < n_tiles; ++i) {
        const int s_next = s + 1 == Tr::kStages ? 0 : s + 1;  // slot of tile i
        // Acquire the consumers' release of tile i - kStages (phase (i / kStages - 1) of the slot).
        if (i >= Tr::kStages) ptx::mbarrier_wait_parity(empty_bar + 8 * s_next, ((i / Tr::kStages) - 1) & 1);
        const uint32_t slot_off = static_cast<uint32_t>(s_next * Tr::kTileKVBytes);
        const int n0 = (n_tiles - 1 - i) * Tr::kBlockN;
        producer_copy_tile<Tr, Tr::kBlockN, false>(sK + slot_off, bi.k + n0 * p.k_row_stride + k_lane_off,
                                                   p.k_row_stride, col, 0, 0, nullptr);
        producer_copy_tile<Tr, Tr::kBlockN, false>(sV + slot_off, bi.v + n0 * p.v_row_stride + v_lane_off,
                                                   p.v_row_stride, col, 0, 0, nullptr);
        ptx::cp_async_commit_group();
        ptx::cp_async_wait_group<1>();  // tile i-1 (and Q with tile 0) has landed
        bar_arrive<Tr::kNThreads>(Tr::kBarFull + s);
        s = s_next;
    }
    ptx::cp_async_wait_group<0>();
    bar_arrive<Tr::kNThreads>(Tr::kBarFull + s);  // the last tile
    // Drain: consumers release every tile, so the producer also waits for the EMPTY phases of the
    // last min(n_tiles, kStages) tiles (tile j: phase j / kStages of EMPTY_{j % kStages}). Every
    // EMPTY phase is then complete before it exits, and every consumer read of a slot it wrote is
    // ordered (mbarrier arrive -> wait) before its exit.
    const int first = n_tiles > Tr::kStages ? n_tiles - Tr::kStages : 0;
    for (int j = first; j < n_tiles; ++j) {
        ptx::mbarrier_wait_parity(empty_bar + 8 * (j % Tr::kStages), (j / Tr::kStages) & 1);
    }
}

// One key tile for one consumer warp, on data the FULL barrier has published. v: kRowsFirst
// ldmatrix addresses of the current V slot; k_delta moves them to the K slot in kChunksFirst order.
template <typename Tr>
__device__ __forceinline__ void consumer_key_tile(const LdsmAddr<Tr::kRowBytes>& v, int32_t k_delta,
                                                  const uint32_t (&qf)[Tr::kMTiles][Tr::kKStepsQK][4],
                                                  float (&o)[Tr::kMTiles][Tr::kNTilesO][4], float (&m)[Tr::kMTiles][2],
                                                  float (&l)[Tr::kMTiles][2], int m_start, int n_start, bool masked,
                                                  int seqlen_k, bool causal, float scale_log2) {
    using T = typename Tr::T;
    constexpr int kNP = Tr::kNPairsS;

    float s[Tr::kMTiles][Tr::kNTilesS][4];
#pragma unroll
    for (int mt = 0; mt < Tr::kMTiles; ++mt)
#pragma unroll
        for (int nt = 0; nt < Tr::kNTilesS; ++nt)
#pragma unroll
            for (int i = 0; i < 4; ++i) s[mt][nt][i] = 0.0f;

    // S = Q·Kᵀ over (k-step, key pair) units u = kk·kNP + np, one ldmatrix.x4 of K each
    // (kChunksFirst: matrices (keys +0..7, k lo), (+0..7, k hi), (+8..15, k lo), (+8..15, k hi)
    // = b0, b1 of n-tile 2np, then of 2np+1), issued one unit ahead of its MMAs.
    uint32_t kb[2][4];
    ptx::ldmatrix_x4(kb[0], v(0, 0, k_delta));
#pragma unroll
    for (int u = 0; u < Tr::kQKUnits; ++u) {
        const int kk = u / kNP;
        const int np = u % kNP;
        if (u + 1 < Tr::kQKUnits) ptx::ldmatrix_x4(kb[(u + 1) & 1], v((u + 1) % kNP, (u + 1) / kNP, k_delta));
        const uint32_t b_even[2] = {kb[u & 1][0], kb[u & 1][1]};
        const uint32_t b_odd[2] = {kb[u & 1][2], kb[u & 1][3]};
#pragma unroll
        for (int mt = 0; mt < Tr::kMTiles; ++mt) {
            ptx::mma_m16n8k16<T>(s[mt][2 * np], qf[mt][kk], b_even);
            ptx::mma_m16n8k16<T>(s[mt][2 * np + 1], qf[mt][kk], b_odd);
        }
    }

    // The first V fragment (kRowsFirst + .trans: (keys +0..7, d lo), (+8..15, d lo), (+0..7, d hi),
    // (+8..15, d hi) = b0, b1 of n-tile 2np, then of 2np+1) loads while the softmax runs.
    uint32_t vb[2][4];
    ptx::ldmatrix_x4_trans(vb[0], v(0, 0));

    if (masked) {
        // Lane-derived origins come from a fresh %tid.x, not registers held across Q·Kᵀ.
        const int tid = ptx::tid_x();
        const int row0 = m_start + (tid / 32) * Tr::kWarpRows + (tid % 32) / 4;
        mask_fragment(s, row0, n_start + 2 * (tid % 4), seqlen_k, causal);
    }
    softmax_rescale_fragment<true>(s, o, m, l, scale_log2);

    uint32_t pa[Tr::kMTiles][Tr::kKStepsPV][4];
    convert_p_fragment<T>(s, pa);

    // O += P·V over (key step, d pair) units u = kk·kNPairsO + np, double buffered as above.
#pragma unroll
    for (int u = 0; u < Tr::kPVUnits; ++u) {
        const int kk = u / Tr::kNPairsO;
        const int np = u % Tr::kNPairsO;
        if (u + 1 < Tr::kPVUnits) {
            ptx::ldmatrix_x4_trans(vb[(u + 1) & 1], v((u + 1) / Tr::kNPairsO, (u + 1) % Tr::kNPairsO));
        }
        const uint32_t b_even[2] = {vb[u & 1][0], vb[u & 1][1]};
        const uint32_t b_odd[2] = {vb[u & 1][2], vb[u & 1][3]};
#pragma unroll
        for (int mt = 0; mt < Tr::kMTiles; ++mt) {
            ptx::mma_m16n8k16<T>(o[mt][2 * np], pa[mt][kk], b_even);
            ptx::mma_m16n8k16<T>(o[mt][2 * np + 1], pa[mt][kk], b_odd);
        }
    }
}

template <typename Tr>
__global__ void __launch_bounds__(Tr::kNThreads, 1) warp_specialized_fwd_kernel(const __grid_constant__ FwdParams p) {
    using T = typename Tr::T;
    extern __shared__ __align__(128) unsigned char smem_raw[];
    // Shared layout: Q | K slot 0..kStages-1 | V slot 0..kStages-1 | EMPTY mbarrier 0..kStages-1;
    // O reuses Q's rows.
    const uint32_t sQ = ptx::smem_u32(smem_raw);
    const uint32_t sK = sQ + Tr::kTileQBytes;
    const uint32_t sV = sK + Tr::kStages * Tr::kTileKVBytes;
    const uint32_t empty_bar = sQ + Tr::kEmptyBarOffset;  // EMPTY_s at empty_bar + 8·s

    // Causal: the last query tiles see the most keys; issuing them first shortens the tail.
    const int m_block = p.causal ? static_cast<int>(gridDim.x - 1 - blockIdx.x) : static_cast<int>(blockIdx.x);
    const int m_start = m_block * Tr::kBlockM;
    const int tid = threadIdx.x;
    const int warp = tid / 32;
    const int lane = tid % 32;
    // >= 1 whenever seqlen_k >= 1 (top-left causal: every query tile sees key 0). With no key at
    // all neither role touches a ring barrier and the consumers store zeros.
    const int n_tiles = num_key_tiles(p, m_start, Tr::kBlockM, Tr::kBlockN);

    // EMPTY_s: one arrival per consumer thread per phase. Initialised by one thread and published
    // by the kernel's only CTA-wide barrier; after it the producer returns early, and FULL named
    // barriers + EMPTY mbarriers carry all ordering between the roles.
    if (tid == 0) {
#pragma unroll
        for (int s = 0; s < Tr::kStages; ++s) ptx::mbarrier_init(empty_bar + 8 * s, Tr::kNConsumerWarps * 32);
    }
    __syncthreads();
    if (warp == Tr::kProducerWarp) {
        if (n_tiles > 0) producer_warp<Tr>(p, sQ, sK, sV, empty_bar, BlockInfo<T>(p), m_start, n_tiles, lane);
        return;
    }

    // Iteration i handles key tile n_tiles-1-i in slot i % kStages. Tiles needing a mask (causal
    // diagonal, partial tail) are a suffix of the key range and come first; under causal masking
    // those lying wholly above this warp's rows (every S entry -inf: the online softmax state
    // would not change) are skipped, the warp only taking part in their barriers.
    const int warp_row = warp * Tr::kWarpRows;

    float o[Tr::kMTiles][Tr::kNTilesO][4];
    float m[Tr::kMTiles][2];
    float l[Tr::kMTiles][2];
#pragma unroll
    for (int mt = 0; mt < Tr::kMTiles; ++mt) {
#pragma unroll
        for (int nt = 0; nt < Tr::kNTilesO; ++nt)
#pragma unroll
            for (int i = 0; i < 4; ++i) o[mt][nt][i] = 0.0f;
        m[mt][0] = m[mt][1] = -CUDART_INF_F;
        l[mt][0] = l[mt][1] = 0.0f;
    }

    LdsmAddr<Tr::kRowBytes> v_addr(sV, lane);  // slot 0; advanced around the ring
    const int32_t k_delta = static_cast<int32_t>(sK - sV) + ldsm_chunks_first_delta<Tr::kRowBytes>(lane);

    // This warp's Q rows relative to V slot 0, where v_addr points while Q is read.
    const int32_t q_delta = static_cast<int32_t>(sQ + warp_row * Tr::kRowBytes - sV);

    // Q's A fragments (kRowsFirst on this warp's rows: a0..a3 of m16n8k16), read once.
    // Q arrives with tile 0, so after FULL_0's first phase, which every consumer waits for here.
    uint32_t qf[Tr::kMTiles][Tr::kKStepsQK][4];
    if (n_tiles > 0) {
        bar_sync<Tr::kNThreads>(Tr::kBarFull);
#pragma unroll
        for (int mt = 0; mt < Tr::kMTiles; ++mt)
#pragma unroll
            for (int kk = 0; kk < Tr::kKStepsQK; ++kk) ptx::ldmatrix_x4(qf[mt][kk], v_addr(mt, kk, q_delta));
    }

    // One loop, one call site per barrier role: every consumer warp executes each FULL phase at
    // the same bar.sync instruction and each EMPTY release at the same mbarrier.arrive, whole
    // warp, whatever its skip / masked / unmasked split (both decisions and
    // n_tiles are warp-uniform; the math is a uniform branch around the call). Tile i's FULL was
    // synced before the body; after it the warp releases the slot on EMPTY (every tile: the
    // producer drains the last kStages releases before it exits), moves on, and waits for tile
    // i+1. The release follows the tile's last ldmatrix: no shared read of a slot (prefetches into
    // registers included) crosses a tile boundary. Each thread's arrive (release) follows its own
    // reads; the producer's wait (acquire) orders them all before its cp.async into the slot.
#pragma unroll 1
    for (int i = 0; i < n_tiles; ++i) {
        // Skip / mask decisions from n_start and launch constants, not from loop-carried counts
        // (registers: the 15-consumer row sits at its 128 cap). skip <=> the causal tile starts
        // past this warp's last row (then it also needs a mask); masked <=> tile_needs_mask.
        const int n_start = (n_tiles - 1 - i) * Tr::kBlockN;
        // (The warp's rows from a fresh %tid.x, as consumer_key_tile's mask origin.)
        if (!(p.causal && n_start > m_start + (ptx::tid_x() / 32 + 1) * Tr::kWarpRows - 1)) {
            consumer_key_tile<Tr>(v_addr, k_delta, qf, o, m, l, m_start, n_start,
                                  tile_needs_mask(m_start, n_start, Tr::kBlockN, p.seqlen_k, p.causal), p.seqlen_k,
                                  p.causal, p.scale_log2);
        }
        const int s = i % Tr::kStages;  // tile i's slot (no loop-carried slot register)
        // Every consumer thread arrives (count 352), each after its own last read of the slot:
        // with one elected lane per warp after __syncwarp, racecheck reported the other lanes'
        // ldmatrix reads as racing the producer's refill (H100, compute-sanitizer 2025.3).
        ptx::mbarrier_arrive(empty_bar + 8 * s);
        const int32_t step = s + 1 < Tr::kStages ? Tr::kTileKVBytes : -(Tr::kStages - 1) * Tr::kTileKVBytes;
        v_addr.advance(step);
        if (i + 1 < n_tiles) bar_sync<Tr::kNThreads>(Tr::kBarFull + (i + 1) % Tr::kStages);
    }

    normalize_fragment(o, l);

    // Epilogue: this warp's O rows -> its own rows of sQ (swizzled, 4-byte stores) -> global with
    // 16-byte stores. Only this warp ever read those rows (its Q fragments, before the loop), and
    // the producer's Q copy was ordered before them by FULL_0, so a warp barrier suffices.
    // Lane and rows from a fresh %tid.x: registers held across the loop spill the 128-cap row.
    const int e_tid = ptx::tid_x();
    const int e_lane = e_tid % 32;
    const int e_warp_row = (e_tid / 32) * Tr::kWarpRows;
    __syncwarp();
#pragma unroll
    for (int mt = 0; mt < Tr::kMTiles; ++mt) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int r = e_warp_row + 16 * mt + 8 * h + e_lane / 4;
#pragma unroll
            for (int nt = 0; nt < Tr::kNTilesO; ++nt) {
                const uint32_t off = static_cast<uint32_t>(swizzled_offset<Tr::kHeadDim>(r, nt) * sizeof(T));
                ptx::st_shared_b32(sQ + off + 4 * (e_lane % 4), ptx::pack2<T>(o[mt][nt][2 * h], o[mt][nt][2 * h + 1]));
            }
        }
    }
    __syncwarp();
    constexpr int kRowsPerStore = 32 / Tr::kChunksPerRow;  // rows one warp-wide 16-byte store covers
    static_assert(Tr::kWarpRows % kRowsPerStore == 0, "whole store sweeps per warp");
    const int st_chunk = e_lane % Tr::kChunksPerRow;
    const BlockInfo<T> bi(p);  // built here, not kept live through the main loop
#pragma unroll
    for (int it = 0; it < Tr::kWarpRows / kRowsPerStore; ++it) {
        const int r = e_warp_row + it * kRowsPerStore + e_lane / Tr::kChunksPerRow;
        const uint4 val =
            ptx::ld_shared_v4_b32(sQ + static_cast<uint32_t>(swizzled_offset<Tr::kHeadDim>(r, st_chunk) * sizeof(T)));
        if (m_start + r < p.seqlen_q) {
            *reinterpret_cast<uint4*>(bi.o + (m_start + r) * p.o_row_stride + st_chunk * kChunkElems) = val;
        }
    }
}

template <typename Tr>
cudaError_t launch_warp_specialized(const FwdParams& p, cudaStream_t stream) {
    const auto kernel = warp_specialized_fwd_kernel<Tr>;
    if (const cudaError_t e = prepare_smem(kernel, Tr::kSmemBytes, true); e != cudaSuccess) return e;
    kernel<<<fwd_grid(p, Tr::kBlockM), Tr::kNThreads, Tr::kSmemBytes, stream>>>(p);
    return cudaGetLastError();
}

template <typename Tr>
KernelInstance warp_specialized_instance() {
    // num_threads: the consumer threads (see the top of the file).
    return instance_of<Tr>(reinterpret_cast<const void*>(warp_specialized_fwd_kernel<Tr>), launch_warp_specialized<Tr>,
                           Tr::kNConsumerThreads);
}

}  // namespace

// First row per (dtype, head_dim) is the default: 11 consumers x 16 rows + 1 producer, 12 warps
// at <= 168 registers, one CTA per SM (see the top of the file). The last row is for the tile
// sweep: d=64 with 15 consumers + 1 producer (16 warps, <= 128 registers).
const std::vector<KernelInstance>& warp_specialized_instances() {
    static const std::vector<KernelInstance> instances = {
        warp_specialized_instance<WarpSpecializedTraits<__nv_bfloat16, 128, 176, 32, 11, 4>>(),
        warp_specialized_instance<WarpSpecializedTraits<__nv_bfloat16, 64, 176, 64, 11, 4>>(),
        warp_specialized_instance<WarpSpecializedTraits<__half, 128, 176, 32, 11, 4>>(),
        warp_specialized_instance<WarpSpecializedTraits<__half, 64, 176, 64, 11, 4>>(),
        warp_specialized_instance<WarpSpecializedTraits<__nv_bfloat16, 64, 240, 64, 15, 4>>(),
    };
    return instances;
}

}  // namespace fa
