// Rung 4 — warp_specialized: producer warps keep a kStages-deep shared-memory K/V ring full with
// cp.async while consumer warps only compute (mma.sync, as rung 3), handed off through two rings
// of mbarriers (FULL: producer -> consumers, EMPTY: consumers -> producer).
//
// This file is compiled into both kernel libraries (lib/CMakeLists.txt): into fa_kernels for every
// architecture, where it defines the portable rows and warp_specialized_instances(), and into
// fa_kernels_sm90a with FA_BUILD_SM90A, where it defines warp_specialized_sm90a_instances(), the
// rows whose producer warpgroup hands its registers over with setmaxnreg, an instruction only the
// architecture-specific sm_90a target has. The portable build lists those rows first (the
// default on an sm_90 device; "Registers decide the shape" below says why there are two).
//
// What changed from rung 3 (mma), and why:
//   - Roles. In rung 3 every warp issues its share of each K/V copy and all warps of a CTA meet at
//     one __syncthreads per key tile. Here the warps after the consumers are producers: they copy
//     tile after tile into a ring of kStages K+V slots and never compute; consumers never touch
//     global memory until the epilogue. Per slot s there are two mbarriers (shared memory, after
//     the V slots):
//       FULL_s:  one arrival per producer thread: its cp.async.wait_group (its copies of that tile
//                have landed), then mbarrier.arrive (release); consumers wait on the phase parity
//                (acquire) before reading the slot.
//       EMPTY_s: one arrival per consumer thread, after its last ldmatrix of the slot (prefetches
//                into registers never cross a tile); the producer waits on the phase parity before
//                overwriting the slot, and after its last copy drains the releases of the last
//                min(n_tiles, kStages) tiles, so it exits with every phase complete.
//     (mbarrier.try_wait.parity on sm_90, test_wait on sm_80.) Tile j completes phase
//     j / kStages of both barriers of slot j % kStages. Thread 0 initialises them before the
//     kernel's only __syncthreads, ahead of the role split.
//     Consumers wait on FULL, they do not meet each other: each consumer warp runs ahead or behind
//     the others by up to the ring's depth, so one warp's softmax (MUFU, shuffles, no MMA) overlaps
//     another's MMAs — what rung 3 gets from two independent CTAs per SM. FULL was first a named
//     barrier (bar.arrive / bar.sync over every thread of the CTA), which locks all consumer warps
//     into step at every tile: the same kernel measured 313 -> 366 TFLOP/s (d=128, 4x16x8192,
//     H100) when FULL became an mbarrier, and nothing else changed.
//     racecheck (compute-sanitizer 2025.3) accepts mbarrier arrive -> wait as ordering in both
//     directions; it did not accept bar.arrive -> bar.sync for the write-after-read of slot reuse,
//     one elected lane's arrive per warp after __syncwarp for the other lanes' reads, or
//     cp.async.mbarrier.arrive.noinc (cp.async completion through an mbarrier) for FULL; hence
//     per-thread arrivals after wait_group.
//   - Eager loads (seed 004 step 3): the producer runs up to kStages tiles ahead of the slowest
//     consumer, not rung 3's one tile.
//   - Shared->register double buffering (step 5): each ldmatrix.x4 of K (per k-step, key pair)
//     and of V (per key step, head_dim pair) is issued one unit ahead of the MMAs it feeds; the
//     first V fragment is requested before the softmax, so the P·V loop starts on loaded data.
//   - Fewer integer instructions (steps 8-9): every consumer ldmatrix address is one of four
//     per-lane registers plus an immediate (LdsmAddr); the producer's swizzled cp.async
//     destinations, periodic in row & 7, are precomputed once.
//   - Heaviest-first causal scheduling, as rung 3; masking is a warp-uniform branch inside one
//     tile loop. Under causal masking a consumer warp skips the MMAs of key tiles that lie wholly
//     above its own rows (it still takes part in both barriers).
//
// Registers decide the shape. Each SM sub-partition (SMSP) has 16 K 32-bit registers and a CTA's
// warps are spread over the four SMSPs, so without reallocation every warp holds the same count,
// bounded by 16384 / (32 · warps on the fullest SMSP): 255 for 8 warps per SM, 168 for 9-12.
// Rung 3 fills the file with 2 x 4 warps of 32 query rows at up to 255 registers; one producer
// warp more breaks that. Hence two builds of this file (lib/CMakeLists.txt), one registry row:
//   sm_90a rows (the default on an H100): a producer warpgroup (4 warps, the unit of setmaxnreg)
//     drops to 24 registers with setmaxnreg.dec and the consumers raise theirs with
//     setmaxnreg.inc, so consumers keep rung 3's 32 rows per warp (two m16 tiles; Q re-read from
//     shared memory per tile) with 8 consumer warps per SM:
//       d=128: 256 x 64, 8 consumers + 4 producers, 1 CTA/SM: 168 at entry, 240 for consumers,
//              4-stage ring: 64 + 128 = 192 KB. (ptxas: 52 B spilled; the 256 x 32 tile spills
//              nothing but runs 8 % slower: half the keys per FULL/EMPTY round and softmax.)
//              Ring depth, measured in one call (4x16x8192, non-causal / causal TFLOP/s): 2
//              stages 337 / 309, 3: 371-374 / 343-346, 4: 381-387 / 354-356, 5 (224 KB, no
//              room left for L1): 372-374 / 354. Deeper rings let consumer warps drift further.
//       d=64:  128 x 128, 4 consumers + 4 producers, 2 CTAs/SM: 128 at entry, 232 for consumers,
//              3-stage ring: 16 + 96 = 112 KB. (ptxas: 128 B spilled when measured; CUDA 13.0's
//              ptxas now stores 168 B and loads 232 B, session 16; 128 x 64 spills nothing
//              but runs 5 % slower; 2 stages: 308 / 286 against 332-335 / 307-309 at
//              2x32x8192; 256 x 128 at one CTA/SM, 4 or 5 stages: 328-329 / 310-311.)
//   portable rows (sm_80+, selectable by tile on an H100): one producer warp and 11 consumer
//     warps of 16 rows (Q's A fragments held in registers), 12 warps at <= 168 registers, one CTA
//     per SM: d=128 176 x 32 (4 stages, 108 KB, 166 registers), d=64 176 x 64 (86 KB, 137).
//     16-row warps read each K/V fragment for two MMAs instead of four, so they need more
//     shared-memory bandwidth per FLOP than rung 3. On the H100 (one call, results/
//     nvidia-h100-80gb-hbm3/ws_portable_rows.csv, TFLOP/s, rung 3 in brackets): d=128 4x16x8192
//     369 (342) non-causal, 334 (323) causal; d=64 2x32x8192 309 (306), 280 (290).
//   the CuTe example's tile (issue #13), portable, after the defaults: 128 x 64 with 4 consumer
//     warps of 32 rows (as rung 3) + 1 producer warp, 4 stages, one CTA per SM (5 warps at 255
//     registers would need 2 x 5 x 32 x 255 > 64 K registers for two): d=64 80 KB, 214
//     registers, no spill; d=128 160 KB, 255 registers, 64 bytes spilled (88 loaded) a thread
//     (ptxas, CUDA 13.0, sm_80). Not measured yet.
// Tile rows report num_threads = the consumer (MMA) threads; the CTA launches kNProducerThreads
// more. The tile rule (2·m_block_size) % num_threads == 0 binds the consumers.
//
// Prediction for the sm_90a rows (H100 SXM, bf16, S=8192): rung 3's per-warp work and warp count
// plus decoupled consumers and a deeper ring, and at d=128 64-key tiles (rung 3 is held to 32 by
// its 255-register budget): 0-10 % above rung 3.
// Measured (results/nvidia-h100-80gb-hbm3/ladder.csv, H100 SXM, bf16, TFLOP/s, sm_90a rows, rung 3
// and FlashAttention-2 in the same sweep): d=128 4x16x8192 381 non-causal (mma 339, FA2 342: 111 %),
// 351 causal (322, 318: 110 %); d=64 2x32x8192 332 (308, 306: 108 %) / 307 (289, 280: 109 %).
// Every FA2-grid shape with seqlen >= 4096: 3-14 % above rung 3, 102-114 % of FA2. Short causal
// d=64 sequences (512-1024) stay 5-11 % below rung 3, probably because a 128-key diagonal tile
// computes twice the masked scores of rung 3's 64-key one, which weighs most when a row has few
// tiles (not measured separately).
// ncu (4x16x4096x128): tensor pipe 58.8 % busy against rung 3's 52.3 %.

// History: an 8 + 1 warp design (mbarrier FULL by cp.async.mbarrier.arrive.noinc, 16 rows per
// warp) measured 279 / 250 TFLOP/s at d=128 / d=64 (racecheck-dirty); the 11 + 1 design with a
// named-barrier FULL measured 311 / 260, 9-16 % below rung 3 (ncu: 16-row warps, 6x the bank
// conflicts). Both were slower than rung 3 for the lock-step and the 16-row warps above.

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "device/block_info.cuh"
#include "device/fragment_store.cuh"
#include "device/launch.cuh"
#include "device/mask.cuh"
#include "device/hopper.cuh"
#include "device/online_softmax.cuh"
#include "device/ptx.cuh"
#include "device/smem_swizzle.cuh"
#include "device/softmax_fragment.cuh"
#include "fa/kernel_api.h"
#include "kernels/kernels.h"

namespace fa {
namespace {

template <typename T_, int kHeadDim_, int kBlockM_, int kBlockN_, int kNConsumerWarps_, int kStages_,
          bool kRegRealloc_ = false>
struct WarpSpecializedTraits {
    using T = T_;
    static constexpr int kHeadDim = kHeadDim_;  // D: one Q/K/V/O row
    static constexpr int kBlockM = kBlockM_;    // query rows per CTA
    static constexpr int kBlockN = kBlockN_;    // key rows per ring slot (one consumer iteration)
    static constexpr int kNConsumerWarps = kNConsumerWarps_;
    static constexpr int kNConsumerThreads = kNConsumerWarps * 32;  // TileConfig::num_threads
    // kRegRealloc (sm_90a build only): the producer is a whole warpgroup that gives its registers
    // to the consumers with setmaxnreg; otherwise it is one warp and every warp keeps the launch
    // allocation. See the top of the file for the register arithmetic.
    static constexpr bool kRegRealloc = kRegRealloc_;
    static constexpr int kNProducerThreads = kRegRealloc ? 128 : 32;
    static constexpr int kNThreads = kNConsumerThreads + kNProducerThreads;  // launched
    static constexpr int kProducerWarp = kNConsumerWarps;  // the producer warp(s) follow the consumers
    static constexpr int kCtasPerSm = kRegRealloc ? 8 / kNConsumerWarps : 1;  // 8 consumer warps per SM
    // ptxas' cap under __launch_bounds__(kNThreads, kCtasPerSm), which is what each warp holds
    // at entry; setmaxnreg.dec / .inc move registers between the roles inside that budget.
    static constexpr int kEntryRegs = (65536 / (kNThreads * kCtasPerSm)) / 8 * 8;
    static constexpr int kProducerRegs = 24;  // the minimum; cp.async loops fit without spills
    static constexpr int kConsumerRegs =
        std::min(240, (kEntryRegs * kNThreads - kProducerRegs * kNProducerThreads) / kNConsumerThreads / 8 * 8);
    static constexpr int kStages = kStages_;  // K/V ring depth

    static constexpr int kWarpRows = kBlockM / kNConsumerWarps;  // query rows owned by one consumer
    static constexpr int kMTiles = kWarpRows / 16;               // m16 tiles per consumer
    // 16-row consumers keep Q's A fragments in registers for the whole kernel (registers, not
    // shared bandwidth, bind them); 32-row consumers re-read them from shared memory per tile.
    static constexpr bool kQInRegisters = kMTiles == 1;
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
    static constexpr int kCopyRowsPerIt = kNProducerThreads / kChunksPerRow;  // rows one producer sweep covers
    static constexpr int kSwizzlePeriod = kCopyRowsPerIt >= 8 ? 1 : 8 / kCopyRowsPerIt;  // sweeps until row & 7 repeats

    static constexpr int kTileQBytes = kBlockM * kRowBytes;
    static constexpr int kTileKVBytes = kBlockN * kRowBytes;  // one K or V slot
    // Q | K slots | V slots | EMPTY mbarriers | FULL mbarriers (8 B per slot each); O reuses Q's
    // rows in the epilogue.
    static constexpr int kEmptyBarOffset = kTileQBytes + 2 * kStages * kTileKVBytes;
    static constexpr int kFullBarOffset = kEmptyBarOffset + 8 * kStages;
    static constexpr int kSmemBytes = kFullBarOffset + 8 * kStages;

    static_assert(sizeof(T) == 2, "mma.sync.m16n8k16 here takes bf16 or fp16 operands");
    static_assert(kHeadDim % 64 == 0, "the 8-chunk XOR swizzle needs rows of whole 128-byte segments");
    static_assert(kWarpRows * kNConsumerWarps == kBlockM, "consumers split the query rows evenly");
    static_assert(kWarpRows % 16 == 0, "each consumer owns whole m16 tiles");
    static_assert(kBlockN % 16 == 0, "P·V consumes keys in k16 steps");
    static_assert(kNProducerThreads % kChunksPerRow == 0 && (8 % kCopyRowsPerIt == 0 || kCopyRowsPerIt % 8 == 0),
                  "producer threads cover whole rows, with a periodic swizzle column");
    static_assert(kBlockM % kCopyRowsPerIt == 0 && kBlockN % kCopyRowsPerIt == 0, "whole producer sweeps");
    static_assert(kStages >= 2, "a ring of one slot would serialize copy and compute");
    static_assert(kEmptyBarOffset % 8 == 0, "mbarriers are 8-byte aligned");
    static_assert(kNThreads <= 1024, "CTA size");
    static_assert(!kRegRealloc || kNConsumerWarps % 4 == 0, "the producer warpgroup starts at a multiple of 4 warps");
    static_assert(!kRegRealloc || kProducerRegs * kNProducerThreads + kConsumerRegs * kNConsumerThreads <=
                                      kEntryRegs * kNThreads, "setmaxnreg.inc satisfiable");
    static_assert((kBlockM * 2) % kNConsumerThreads == 0, "fa-bench tile rule, on the consumer threads");
    static_assert(kSmemBytes <= 227 * 1024, "must fit the H100/A100 per-block shared-memory opt-in");
};

// Producer: this thread's share of a kRows-row tile, 16-byte cp.async per chunk. Producer thread L
// copies chunk L % kChunksPerRow of rows kCopyRowsPerIt·it + L / kChunksPerRow. Its swizzled destination column
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

// The producer: warp kProducerWarp alone (portable rows) or the four warps of the producer
// warpgroup (sm_90a rows), each thread `ptid` of them copying its share of every tile. Key tiles are produced in consumer order, n_tiles-1 down to 0, tile i into
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
__device__ __forceinline__ void producer(const FwdParams& p, uint32_t sQ, uint32_t sK, uint32_t sV, uint32_t full_bar,
                                         uint32_t empty_bar, const BlockInfo<typename Tr::T>& bi, int m_start, int n_tiles,
                                         int ptid) {
    const int lane_row = ptid / Tr::kChunksPerRow;
    const int lane_chunk = ptid % Tr::kChunksPerRow;
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
                                              p.q_row_stride, col, lane_row, bi.rows - m_start, bi.q);
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
        ptx::mbarrier_arrive(full_bar + 8 * s);
        s = s_next;
    }
    ptx::cp_async_wait_group<0>();
    ptx::mbarrier_arrive(full_bar + 8 * s);  // the last tile
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
__device__ __forceinline__ void consumer_key_tile(const LdsmAddr<Tr::kRowBytes>& v, int32_t k_delta, int32_t q_delta,
                                                  const uint32_t (&qf)[Tr::kQInRegisters ? Tr::kMTiles : 1]
                                                                      [Tr::kQInRegisters ? Tr::kKStepsQK : 1][4],
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
    uint32_t qa[Tr::kMTiles][4];
    ptx::ldmatrix_x4(kb[0], v(0, 0, k_delta));
#pragma unroll
    for (int u = 0; u < Tr::kQKUnits; ++u) {
        const int kk = u / kNP;
        const int np = u % kNP;
        if constexpr (!Tr::kQInRegisters) {
            if (np == 0) {
#pragma unroll
                for (int mt = 0; mt < Tr::kMTiles; ++mt) ptx::ldmatrix_x4(qa[mt], v(mt, kk, q_delta));
            }
        }
        if (u + 1 < Tr::kQKUnits) ptx::ldmatrix_x4(kb[(u + 1) & 1], v((u + 1) % kNP, (u + 1) / kNP, k_delta));
        const uint32_t b_even[2] = {kb[u & 1][0], kb[u & 1][1]};
        const uint32_t b_odd[2] = {kb[u & 1][2], kb[u & 1][3]};
#pragma unroll
        for (int mt = 0; mt < Tr::kMTiles; ++mt) {
            if constexpr (Tr::kQInRegisters) {
                ptx::mma_m16n8k16<T>(s[mt][2 * np], qf[0][kk], b_even);
                ptx::mma_m16n8k16<T>(s[mt][2 * np + 1], qf[0][kk], b_odd);
            } else {
                ptx::mma_m16n8k16<T>(s[mt][2 * np], qa[mt], b_even);
                ptx::mma_m16n8k16<T>(s[mt][2 * np + 1], qa[mt], b_odd);
            }
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
    // The branch-free rescale factor that gained rung 3 5-6 % at head_dim 64 costs this rung 3 %
    // there (H100, one call, 2x32x8192x64: 328 -> 318 TFLOP/s non-causal, 301 -> 290 causal;
    // ptxas spills 192 bytes at 128x128x128), and d=128 is level: the branch stays.
    softmax_rescale_fragment<true, false>(s, o, m, l, scale_log2);

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
__global__ void __launch_bounds__(Tr::kNThreads, Tr::kCtasPerSm) warp_specialized_fwd_kernel(const __grid_constant__ FwdParams p) {
    using T = typename Tr::T;
#if defined(__CUDA_ARCH__) && !FA_HOPPER_ENABLED
    static_assert(!Tr::kRegRealloc, "setmaxnreg rows belong in the sm_90a build (FA_BUILD_SM90A)");
#endif
    extern __shared__ __align__(128) unsigned char smem_raw[];
    // Shared layout: Q | K slot 0..kStages-1 | V slot 0..kStages-1 | EMPTY mbarrier 0..kStages-1;
    // O reuses Q's rows.
    const uint32_t sQ = ptx::smem_u32(smem_raw);
    const uint32_t sK = sQ + Tr::kTileQBytes;
    const uint32_t sV = sK + Tr::kStages * Tr::kTileKVBytes;
    const uint32_t empty_bar = sQ + Tr::kEmptyBarOffset;  // EMPTY_s at empty_bar + 8·s
    const uint32_t full_bar = sQ + Tr::kFullBarOffset;    // FULL_s at full_bar + 8·s

    // Causal: the last query tiles see the most keys; issuing them first shortens the tail. (No
    // split-KV or packed GQA on this rung: its registry row says so, so the key range is [0, end).)
    const int m_start = BlockInfo<T>(p, Tr::kBlockM, p.causal).m_block * Tr::kBlockM;
    const int tid = threadIdx.x;
    const int warp = tid / 32;
    const int lane = tid % 32;
    // >= 1 whenever seqlen_k >= 1 (top-left causal: every query tile sees key 0). With no key at
    // all neither role touches a ring barrier and the consumers store zeros.
    const int n_tiles = key_tile_range(p, BlockInfo<T>(p, Tr::kBlockM, p.causal), Tr::kBlockM, Tr::kBlockN).end;

    // EMPTY_s: one arrival per consumer thread per phase; FULL_s: one per producer thread.
    // Initialised by one thread and published by the kernel's only CTA-wide barrier; after it the
    // producer threads leave for their branch, and the two mbarrier rings carry all ordering
    // between the roles. On sm_90a the producer warpgroup hands registers to the consumers here.
    if (tid == 0) {
#pragma unroll
        for (int s = 0; s < Tr::kStages; ++s) {
            ptx::mbarrier_init(empty_bar + 8 * s, Tr::kNConsumerThreads);
            ptx::mbarrier_init(full_bar + 8 * s, Tr::kNProducerThreads);
        }
    }
    __syncthreads();
    if (warp >= Tr::kProducerWarp) {
        if constexpr (Tr::kRegRealloc) hopper::setmaxnreg_dec<Tr::kProducerRegs>();
        if (n_tiles > 0)
            producer<Tr>(p, sQ, sK, sV, full_bar, empty_bar, BlockInfo<T>(p, Tr::kBlockM, p.causal), m_start, n_tiles,
                         tid - Tr::kNConsumerThreads);
        return;
    }
    if constexpr (Tr::kRegRealloc) hopper::setmaxnreg_inc<Tr::kConsumerRegs>();

    // Iteration i handles key tile n_tiles-1-i in slot i % kStages. Tiles needing a mask (causal
    // diagonal, partial tail) are a suffix of the key range and come first; under causal masking
    // those lying wholly above this warp's rows (every S entry -inf: the online softmax state
    // would not change) are skipped, the warp only taking part in their barriers.
    const int warp_row = warp * Tr::kWarpRows;

    float o[Tr::kMTiles][Tr::kNTilesO][4];
    float m[Tr::kMTiles][2];
    float l[Tr::kMTiles][2];
    init_fragment_state(o, m, l);

    LdsmAddr<Tr::kRowBytes> v_addr(sV, lane);  // slot 0; advanced around the ring
    const int32_t k_delta = static_cast<int32_t>(sK - sV) + ldsm_chunks_first_delta<Tr::kRowBytes>(lane);

    // This warp's Q rows relative to V slot 0, where v_addr points while Q is read.
    int32_t q_delta = static_cast<int32_t>(sQ + warp_row * Tr::kRowBytes - sV);

    // Q's A fragments (kRowsFirst on this warp's rows: a0..a3 of m16n8k16), read once.
    // Q arrives with tile 0, so after FULL_0's first phase, which every consumer waits for here.
    uint32_t qf[Tr::kQInRegisters ? Tr::kMTiles : 1][Tr::kQInRegisters ? Tr::kKStepsQK : 1][4];
    if (n_tiles > 0) {
        ptx::mbarrier_wait_parity(full_bar, 0);
        if constexpr (Tr::kQInRegisters) {
#pragma unroll
            for (int kk = 0; kk < Tr::kKStepsQK; ++kk) ptx::ldmatrix_x4(qf[0][kk], v_addr(0, kk, q_delta));
        }
    }

    // One loop, one call site per barrier role: every consumer warp waits for each FULL phase at
    // the same mbarrier wait and makes each EMPTY release at the same mbarrier.arrive, whole
    // warp, whatever its skip / masked / unmasked split (both decisions and n_tiles are
    // warp-uniform; the math is a uniform branch around the call). Tile i's FULL was waited for
    // before the body; after it the warp releases the slot on EMPTY (every tile: the
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
            consumer_key_tile<Tr>(v_addr, k_delta, q_delta, qf, o, m, l, m_start, n_start,
                                  tile_needs_mask(m_start, n_start, Tr::kBlockN, p.seqlen_k, p.causal), p.seqlen_k,
                                  p.causal, p.scale_log2);
        }
        const int s = i % Tr::kStages;  // tile i's slot (no loop-carried slot register)
        // Every consumer thread arrives (count kNConsumerThreads), after its own last read of the slot:
        // with one elected lane per warp after __syncwarp, racecheck reported the other lanes'
        // ldmatrix reads as racing the producer's refill (H100, compute-sanitizer 2025.3).
        ptx::mbarrier_arrive(empty_bar + 8 * s);
        const int32_t step = s + 1 < Tr::kStages ? Tr::kTileKVBytes : -(Tr::kStages - 1) * Tr::kTileKVBytes;
        v_addr.advance(step);
        q_delta -= step;
        if (i + 1 < n_tiles) ptx::mbarrier_wait_parity(full_bar + 8 * ((i + 1) % Tr::kStages), ((i + 1) / Tr::kStages) & 1);
    }

    normalize_fragment(o, l);

    // Epilogue (fragment_store.cuh) through this warp's own rows of sQ: only this warp ever read
    // them (its Q fragments), and the producer's Q copy was ordered before that by FULL_0. Lane and
    // rows come from a fresh %tid.x and BlockInfo is built here: values held across the loop cost
    // registers where the 16-row rows sit at their cap.
    const int e_tid = ptx::tid_x();
    write_fragment_output<T, Tr::kHeadDim, Tr::kMTiles>(o, m, l, sQ, (e_tid / 32) * Tr::kWarpRows, e_tid % 32,
                                                        BlockInfo<T>(p, Tr::kBlockM, p.causal, true), m_start, p);
}

template <typename Tr>
KernelInstance warp_specialized_instance() {
    // num_threads: the consumer threads (see the top of the file); the largest carveout as rung 3.
    KernelInstance row = fwd_instance<Tr, &warp_specialized_fwd_kernel<Tr>, true>(Tr::kNConsumerThreads);
    row.only_sm = Tr::kRegRealloc ? 90 : 0;  // setmaxnreg: the sm_90a build, sm_90 devices only
    return row;
}

}  // namespace

#if defined(FA_BUILD_SM90A)
// This file is compiled twice: here for sm_90a (lib/CMakeLists.txt), where setmaxnreg exists.
// Producer warpgroup + 8 consumer warps of 32 rows per SM (see the top of the file); the first
// row per (dtype, head_dim) is the default on an sm_90 device.
const std::vector<KernelInstance>& warp_specialized_sm90a_instances() {
    static const std::vector<KernelInstance> instances = {
        warp_specialized_instance<WarpSpecializedTraits<__nv_bfloat16, 128, 256, 64, 8, 4, true>>(),
        warp_specialized_instance<WarpSpecializedTraits<__nv_bfloat16, 64, 128, 128, 4, 3, true>>(),
        warp_specialized_instance<WarpSpecializedTraits<__half, 128, 256, 64, 8, 4, true>>(),
        warp_specialized_instance<WarpSpecializedTraits<__half, 64, 128, 128, 4, 3, true>>(),
    };
    return instances;
}
#else
// The portable rows (sm_80+): 11 consumers x 16 rows + 1 producer warp, 12 warps at <= 168
// registers, one CTA per SM. On an sm_90 device the sm_90a rows come first and are the default;
// these stay selectable by tile.
const std::vector<KernelInstance>& warp_specialized_instances() {
    static const std::vector<KernelInstance> instances = [] {
        std::vector<KernelInstance> rows = warp_specialized_sm90a_instances();
        for (const KernelInstance& r : {
                 warp_specialized_instance<WarpSpecializedTraits<__nv_bfloat16, 128, 176, 32, 11, 4>>(),
                 warp_specialized_instance<WarpSpecializedTraits<__nv_bfloat16, 64, 176, 64, 11, 4>>(),
                 warp_specialized_instance<WarpSpecializedTraits<__half, 128, 176, 32, 11, 4>>(),
                 warp_specialized_instance<WarpSpecializedTraits<__half, 64, 176, 64, 11, 4>>(),
                 warp_specialized_instance<WarpSpecializedTraits<__nv_bfloat16, 128, 128, 64, 4, 4>>(),
                 warp_specialized_instance<WarpSpecializedTraits<__nv_bfloat16, 64, 128, 64, 4, 4>>(),
                 warp_specialized_instance<WarpSpecializedTraits<__half, 128, 128, 64, 4, 4>>(),
                 warp_specialized_instance<WarpSpecializedTraits<__half, 64, 128, 64, 4, 4>>(),
             })
            rows.push_back(r);
        return rows;
    }();
    return instances;
}
#endif

}  // namespace fa
