// The kernel pieces shared by the Hopper rungs (05 `wgmma_tma`, 06 `wgmma_ws`, 07 `wgmma_overlap`):
// the tile traits and shared-memory layout, the per-tile steps of one consumer warpgroup (issue
// S = Q·Kᵀ, mask + online softmax, pack P, rescale O, issue O += P·V), and
// rung 05's producer-less kernel with the plain schedule. Rungs 06 and 07 have kernels of their
// own (a producer warpgroup) built from the same steps, on WgmmaWsTraits and CtaSmem from here. See 05_wgmma_tma.cu for the design notes.
//
// Every .cu that includes this header must be compiled for sm_90a (hopper.cuh: the device bodies
// compile to empty stubs elsewhere and the instances must not be registered there).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "device/block_info.cuh"
#include "device/hopper.cuh"
#include "device/launch.cuh"
#include "device/mask.cuh"
#include "device/online_softmax.cuh"
#include "device/ptx.cuh"
#include "fa/kernel_api.h"

namespace fa::wgmma {

template <typename T_, int kHeadDim_, int kNumWG_, int kBlockN_, int kStages_>
struct WgmmaTmaTraits {
    using T = T_;
    static constexpr int kHeadDim = kHeadDim_;  // D
    static constexpr int kNumWG = kNumWG_;      // consumer warpgroups; each owns 64 query rows
    static constexpr int kWarpgroupRows = 64;   // query rows per consumer warpgroup = wgmma's M
    static constexpr int kBlockM = kWarpgroupRows * kNumWG;  // query rows per CTA
    static constexpr int kBlockN = kBlockN_;    // keys per ring slot = N of S = Q·Kᵀ
    static constexpr int kStages = kStages_;    // K/V ring depth
    static constexpr int kNThreads = 128 * kNumWG;
    static constexpr int kNWarps = kNThreads / 32;  // arrivals that release a ring slot

    static constexpr int kElemBytes = 2;
    static constexpr int kAtomCols = 128 / kElemBytes;        // 64: columns per 128-byte swizzle row
    static constexpr int kChunks = kHeadDim / kAtomCols;      // 64-column blocks per row (TMA boxes per tile)
    static constexpr int kQChunkBytes = kBlockM * 128;        // one 64-column block of the Q tile
    static constexpr int kKVChunkBytes = kBlockN * 128;       // one 64-column block of a K or V tile
    static constexpr int kQBytes = kChunks * kQChunkBytes;    // Q tile (also O's staging buffer)
    static constexpr int kKVBytes = kChunks * kKVChunkBytes;  // one K (or one V) slot

    static constexpr int kAccS = kBlockN / 2;   // fp32 of S per thread (64 x kBlockN over 128 threads)
    static constexpr int kAccO = kHeadDim / 2;  // fp32 of O per thread
    static constexpr int kKStepsQK = kHeadDim / 16;  // wgmma k16 steps of Q·Kᵀ
    static constexpr int kKStepsPV = kBlockN / 16;   // wgmma k16 steps of P·V

    // Layout (offsets from the 1024-aligned base): Q | K slots | V slots | mbarriers | counters.
    // Every TMA destination is a multiple of 1024 bytes from the base: the 128-byte swizzle pattern
    // repeats every 1024 bytes and wgmma descriptors assume it starts on such a boundary.
    static constexpr int kOffQ = 0;
    static constexpr int kOffK = kOffQ + kQBytes;
    static constexpr int kOffV = kOffK + kStages * kKVBytes;
    static constexpr int kOffBar = kOffV + kStages * kKVBytes;   // q_full, k_full[kStages], v_full[kStages]
    static constexpr int kOffCount = kOffBar + 8 * (1 + 2 * kStages);  // release counter per slot (u32)
    static constexpr int kPayloadBytes = kOffCount + 4 * kStages;
    // + 1024: dynamic shared memory is only guaranteed 16-byte aligned; the kernel rounds its base up.
    static constexpr int kSmemBytes = kPayloadBytes + 1024;

    static_assert(sizeof(T) == 2, "wgmma here takes bf16 or fp16 operands");
    static_assert(kHeadDim % 64 == 0, "rows are whole 128-byte swizzle atoms (64 elements)");
    static_assert(kHeadDim == 64 || kHeadDim == 128, "O += P·V uses wgmma N = head_dim (hopper.cuh has N = 64, 128)");
    static_assert(kBlockN == 64 || kBlockN == 128, "S = Q·Kᵀ uses wgmma N = kBlockN (hopper.cuh has N = 64, 128)");
    static_assert(kBlockM <= 256 && kBlockN <= 256, "a TMA box spans at most 256 rows");
    static_assert(kNumWG >= 1 && kNThreads <= 1024, "1..8 consumer warpgroups");
    static_assert(kStages >= 2, "a ring of one slot would serialize copy and compute");
    static_assert(kOffK % 1024 == 0 && kKVBytes % 1024 == 0 && kQChunkBytes % 1024 == 0 &&
                      kKVChunkBytes % 1024 == 0,
                  "TMA destinations / wgmma operands start on 1024-byte swizzle-pattern boundaries");
    static_assert(kOffBar % 8 == 0, "mbarriers are 8-byte aligned");
    static_assert(kKVBytes < (1 << 20) && kQBytes < (1 << 20), "mbarrier tx-count limit (2^20 - 1 bytes)");
    static_assert(kSmemBytes <= 227 * 1024, "fits sm_90's 227 KiB opt-in shared memory per block");
    static_assert((2 * kBlockM) % kNThreads == 0, "fa-bench tile rule (registry.cpp)");
};

// Issues the TMA copies of key tile `tile` into ring slot tile % kStages (K and V, each on its own
// full barrier, so S = Q·Kᵀ can start before V has landed). One thread.
template <class Tr>
__device__ __forceinline__ void issue_kv_tile(int tile, uint32_t sK, uint32_t sV, uint32_t bar_k0, uint32_t bar_v0,
                                              const CUtensorMap* tm_k, const CUtensorMap* tm_v, int head, int batch) {
    const int s = tile % Tr::kStages;
    const int row = tile * Tr::kBlockN;
    const uint32_t bar_k = bar_k0 + 8 * s, bar_v = bar_v0 + 8 * s;
    hopper::mbarrier_arrive_expect_tx(bar_k, Tr::kKVBytes);
#pragma unroll
    for (int c = 0; c < Tr::kChunks; ++c)
        hopper::tma_load_4d(sK + s * Tr::kKVBytes + c * Tr::kKVChunkBytes, tm_k, bar_k, c * Tr::kAtomCols, row, head,
                            batch);
    hopper::mbarrier_arrive_expect_tx(bar_v, Tr::kKVBytes);
#pragma unroll
    for (int c = 0; c < Tr::kChunks; ++c)
        hopper::tma_load_4d(sV + s * Tr::kKVBytes + c * Tr::kKVChunkBytes, tm_v, bar_v, c * Tr::kAtomCols, row, head,
                            batch);
}

// Per-warpgroup pieces of the main loop. Fragment convention (hopper.cuh, WgmmaM64): thread
// (warp w of its warpgroup, lane l) holds rows r0 = 16w + l/4 and r0 + 8 of the warpgroup's 64,
// element 4j + 2h + e at row r0 + 8h, column 8j + 2(l%4) + e.

// Issues S = Q·Kᵀ for ring slot `stage` (no fence / commit: the caller brackets the batch).
template <class Tr>
__device__ __forceinline__ void issue_qk(float (&s)[Tr::kAccS], uint64_t desc_q, uint64_t desc_k, int stage) {
#pragma unroll
    for (int kk = 0; kk < Tr::kKStepsQK; ++kk) {
        // k16 step kk: 64-column block kk/4, 32 bytes per step inside the 128-byte atom row.
        const uint32_t off_q = (kk / 4) * Tr::kQChunkBytes + (kk % 4) * 32;
        const uint32_t off_k = stage * Tr::kKVBytes + (kk / 4) * Tr::kKVChunkBytes + (kk % 4) * 32;
        hopper::WgmmaM64<Tr::kBlockN>::template ss<typename Tr::T>(s, desc_q + (off_q >> 4), desc_k + (off_k >> 4),
                                                                    kk > 0 ? 1u : 0u);
    }
}

// Issues O += P·V for ring slot `stage`, P from registers (pa[4kk..4kk+3] = A fragment of k16 step kk).
template <class Tr>
__device__ __forceinline__ void issue_pv(float (&o)[Tr::kAccO], const uint32_t (&pa)[Tr::kKStepsPV * 4], uint64_t desc_v,
                                         int stage) {
#pragma unroll
    for (int kk = 0; kk < Tr::kKStepsPV; ++kk) {
        // 16 keys = two 1024-byte atoms of V's MN-major layout.
        const uint32_t off_v = stage * Tr::kKVBytes + kk * 2048;
        const uint32_t(&a)[4] = *reinterpret_cast<const uint32_t(*)[4]>(&pa[4 * kk]);
        hopper::WgmmaM64<Tr::kHeadDim>::template rs<typename Tr::T, 1>(o, a, desc_v + (off_v >> 4), 1u);
    }
}

// Mask, online-softmax update and exponentiation of one S tile, in place (s becomes P in fp32).
// Returns through `rescale` the factor the caller must apply to O for each of its two rows.
template <class Tr>
__device__ __forceinline__ void softmax_tile(float (&s)[Tr::kAccS], float (&row_max)[2], float (&row_sum)[2],
                                             float (&rescale)[2], const FwdParams& p, int m_start, int n_start,
                                             int r0, int c0) {
    constexpr int kBlockN = Tr::kBlockN;
    // Keys >= seqlen_k (zero-filled by TMA) and, causal, keys past the diagonal.
    if (tile_needs_mask(m_start, n_start, kBlockN, p.seqlen_k, p.causal)) {
#pragma unroll
        for (int j = 0; j < kBlockN / 8; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const int row = m_start + r0 + 8 * (e >> 1);
                const int col = n_start + 8 * j + c0 + (e & 1);
                if (!key_visible(row, col, p.seqlen_k, p.causal)) s[4 * j + e] = -CUDART_INF_F;
            }
    }
    float tile_max[2] = {-CUDART_INF_F, -CUDART_INF_F};
#pragma unroll
    for (int j = 0; j < kBlockN / 8; ++j) {
        tile_max[0] = fmaxf(tile_max[0], fmaxf(s[4 * j + 0], s[4 * j + 1]));
        tile_max[1] = fmaxf(tile_max[1], fmaxf(s[4 * j + 2], s[4 * j + 3]));
    }
    const float scale_log2 = p.scale_log2;
    float offset[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        // The 4 lanes sharing a row (lane / 4 equal) hold its kBlockN columns between them.
        tile_max[h] = fmaxf(tile_max[h], __shfl_xor_sync(0xffffffffu, tile_max[h], 1));
        tile_max[h] = fmaxf(tile_max[h], __shfl_xor_sync(0xffffffffu, tile_max[h], 2));
        const float m_new = fmaxf(row_max[h], tile_max[h] * scale_log2);
        // online_softmax_rescale / _offset (online_softmax.cuh), computed without branches (the
        // helper's ?: around an inline-asm ex2 becomes a branch): the softmax stays one basic
        // block, which ptxas schedules freely between the two wgmma waits.
        const float ex = ptx::ex2_approx(row_max[h] - m_new);  // NaN only if both are -inf
        rescale[h] = row_max[h] == -CUDART_INF_F ? 0.0f : ex;
        offset[h] = m_new == -CUDART_INF_F ? 0.0f : m_new;
        row_max[h] = m_new;
        row_sum[h] *= rescale[h];
    }
#pragma unroll
    for (int j = 0; j < kBlockN / 8; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const float pv = ptx::ex2_approx(fmaf(s[4 * j + e], scale_log2, -offset[e >> 1]));
            s[4 * j + e] = pv;
            row_sum[e >> 1] += pv;
        }
}

// P (fp32, accumulator layout) -> wgmma A fragments. k16 step kk covers accumulator groups 2kk and
// 2kk+1; the A layout {a0,a1} = (row r0, k 2(l%4)..), {a2,a3} = (row r0+8), {a4,a5} = (row r0, k+8),
// {a6,a7} = (row r0+8, k+8) is exactly s[8kk+0..1], s[8kk+2..3], s[8kk+4..5], s[8kk+6..7].
template <class Tr>
__device__ __forceinline__ void pack_p(uint32_t (&pa)[Tr::kKStepsPV * 4], const float (&s)[Tr::kAccS]) {
#pragma unroll
    for (int i = 0; i < Tr::kKStepsPV * 4; ++i) pa[i] = ptx::pack2<typename Tr::T>(s[2 * i], s[2 * i + 1]);
}

template <class Tr>
__device__ __forceinline__ void rescale_o(float (&o)[Tr::kAccO], const float (&rescale)[2]) {
#pragma unroll
    for (int j = 0; j < Tr::kAccO / 4; ++j) {
        o[4 * j + 0] *= rescale[0];
        o[4 * j + 1] *= rescale[0];
        o[4 * j + 2] *= rescale[1];
        o[4 * j + 3] *= rescale[1];
    }
}

// Epilogue of consumer warpgroup `wg` (64 rows of the CTA tile): O / l into the warpgroup's own Q
// rows of shared memory, in the 128-byte swizzled layout TMA reads, then one thread (`leader`)
// TMA-stores them; rows >= seqlen_q are clipped by the copy engine, and a warpgroup whose first
// row is past seqlen_q stores nothing. Precondition: every wgmma of this warpgroup that reads its
// Q rows has completed, and no other warpgroup reads them. `bar_id`: a named barrier for this
// warpgroup's 128 threads. r0 = this thread's first row in the CTA tile (wg·64 + 16·warp + lane/4).
// Element (r, col): 64-column block col / 64, 16-byte chunk (col % 64) / 8 stored at
// chunk ^ (r % 8), 4 bytes per thread (bank-conflict free: the 8 rows of a warp's store hit 8
// different chunks).
template <class Tr>
__device__ __forceinline__ void store_o_tile(const float (&o)[Tr::kAccO], float (&row_sum)[2], uint32_t sQ, int wg,
                                             int r0, int c0, bool leader, uint32_t bar_id, const CUtensorMap* tm_o,
                                             int m_start, int head, int batch, int seqlen_q) {
    float inv[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        row_sum[h] += __shfl_xor_sync(0xffffffffu, row_sum[h], 1);
        row_sum[h] += __shfl_xor_sync(0xffffffffu, row_sum[h], 2);
        inv[h] = online_softmax_inv_sum(row_sum[h]);
    }
#pragma unroll
    for (int j = 0; j < Tr::kAccO / 4; ++j) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int r = r0 + 8 * h;
            const uint32_t addr = sQ + (j / 8) * Tr::kQChunkBytes + r * 128 + (((j % 8) ^ (r % 8)) << 4) + c0 * 2;
            ptx::st_shared_b32(addr,
                               ptx::pack2<typename Tr::T>(o[4 * j + 2 * h] * inv[h], o[4 * j + 2 * h + 1] * inv[h]));
        }
    }
    hopper::fence_proxy_async_shared_cta();
    hopper::named_barrier_sync(bar_id, 128);
    if (leader && m_start + wg * 64 < seqlen_q) {
#pragma unroll
        for (int c = 0; c < Tr::kChunks; ++c)
            hopper::tma_store_4d(tm_o, sQ + c * Tr::kQChunkBytes + wg * 64 * 128, c * Tr::kAtomCols, m_start + wg * 64,
                                 head, batch);
        hopper::bulk_commit_group();
        hopper::bulk_wait_group_read<0>();  // shared memory must outlive the store's reads
    }
}

// The warp-specialized rungs (06 `wgmma_ws`, 07 `wgmma_overlap`): rung 05's tile and layout plus an
// "empty" mbarrier per ring slot (where rung 05 keeps its release counters) and the setmaxnreg
// split between the producer warpgroup and the consumers.
template <typename T_, int kHeadDim_, int kNumWG_, int kBlockN_, int kStages_, int kProducerRegs_,
          int kConsumerRegs_>
struct WgmmaWsTraits : WgmmaTmaTraits<T_, kHeadDim_, kNumWG_, kBlockN_, kStages_> {
    using Base = WgmmaTmaTraits<T_, kHeadDim_, kNumWG_, kBlockN_, kStages_>;
    static constexpr int kLaunchThreads = Base::kNThreads + 128;  // + the producer warpgroup
    static constexpr int kProducerRegs = kProducerRegs_;
    static constexpr int kConsumerRegs = kConsumerRegs_;
    static constexpr int kOffEmpty = Base::kOffCount;  // empty[kStages] (8 bytes each)
    static constexpr int kPayloadBytes = kOffEmpty + 8 * kStages_;
    static constexpr int kSmemBytes = kPayloadBytes + 1024;
    // Named barriers: 1 + w = warpgroup w's epilogue, kSchedBar + w = warpgroup w's turn to issue.
    static constexpr int kSchedBar = 1 + kNumWG_;

    static_assert(kOffEmpty % 8 == 0, "mbarriers are 8-byte aligned");
    static_assert(kSmemBytes <= 227 * 1024, "fits sm_90's 227 KiB opt-in shared memory per block");
    static_assert(kNumWG_ >= 2, "ping-pong needs two consumer warpgroups or more");
    static_assert(kSchedBar + kNumWG_ <= 16, "16 hardware named barriers");
    static_assert(kLaunchThreads <= 1024, "block size");
    // The CTA starts with kLaunchThreads x (65536 / kLaunchThreads rounded down to 8) registers
    // (ptxas' cap under __launch_bounds__(kLaunchThreads, 1)); setmaxnreg must stay inside it.
    static constexpr int kEntryRegs = (65536 / kLaunchThreads) / 8 * 8;
    static_assert(kProducerRegs <= kEntryRegs && kConsumerRegs >= kEntryRegs, "dec / inc directions");
    static_assert(128 * kProducerRegs + Base::kNThreads * kConsumerRegs <= kLaunchThreads * kEntryRegs,
                  "setmaxnreg.inc must be satisfiable from what setmaxnreg.dec released");
};

// One CTA's shared memory in Tr's layout: the base rounded up to 1024 bytes (128-byte-swizzled TMA
// destinations and wgmma operands need it), Q, the K and V rings, and the full barriers of Q and of
// each ring slot (one arrival each: the TMA-issuing thread's expect_tx, completed by the bytes).
// Shared by the kernels of rungs 05, 06 and 07; each adds its own release mechanism.
template <class Tr>
struct CtaSmem {
    uint32_t base, q, k, v, bar_q, bar_k0, bar_v0;

    __device__ __forceinline__ explicit CtaSmem(unsigned char* raw)
        : base((ptx::smem_u32(raw) + 1023u) & ~1023u),
          q(base + Tr::kOffQ),
          k(base + Tr::kOffK),
          v(base + Tr::kOffV),
          bar_q(base + Tr::kOffBar),
          bar_k0(bar_q + 8),
          bar_v0(bar_q + 8 + 8 * Tr::kStages) {}

    // Thread 0, before the CTA barrier that publishes them (with hopper::fence_mbarrier_init).
    __device__ __forceinline__ void init_full_barriers() const {
        ptx::mbarrier_init(bar_q, 1);
#pragma unroll
        for (int s = 0; s < Tr::kStages; ++s) {
            ptx::mbarrier_init(bar_k0 + 8 * s, 1);
            ptx::mbarrier_init(bar_v0 + 8 * s, 1);
        }
    }
};

// The loads of the producer warpgroup of rungs 06 and 07, run by its thread 0: Q once, then key
// tiles 0..n_tiles-1 into the ring, refilling a slot only after every consumer warp released the
// tile before (empty[slot], parity of use t / kStages - 1; the first pass waits for nothing).
template <class Tr>
__device__ __forceinline__ void produce_q_and_kv(const CtaSmem<Tr>& sm, uint32_t bar_e0, const CUtensorMap* tm_q,
                                                 const CUtensorMap* tm_k, const CUtensorMap* tm_v, int m_start,
                                                 int head, int batch, int n_tiles) {
    hopper::mbarrier_arrive_expect_tx(sm.bar_q, Tr::kQBytes);
#pragma unroll
    for (int c = 0; c < Tr::kChunks; ++c)
        hopper::tma_load_4d(sm.q + c * Tr::kQChunkBytes, tm_q, sm.bar_q, c * Tr::kAtomCols, m_start, head, batch);
    int stage = 0;
    uint32_t phase = 0;
#pragma unroll 1
    for (int t = 0; t < n_tiles; ++t) {
        if (t >= Tr::kStages) ptx::mbarrier_wait_parity(bar_e0 + 8 * stage, phase);
        issue_kv_tile<Tr>(t, sm.k, sm.v, sm.bar_k0, sm.bar_v0, tm_k, tm_v, head, batch);
        if (++stage == Tr::kStages) {
            stage = 0;
            if (t >= Tr::kStages) phase ^= 1u;
        }
    }
}

// Grid: x = query tile (reversed: the heaviest causal tiles start first), y = head, z = batch.
// Synchronization, all of it (each wait is satisfied by construction):
//   bar_q      (count 1): thread 0's arrive.expect_tx + the Q bytes. Waited once, parity 0, by all.
//   k_full[s], v_full[s] (count 1 each): arm = arrive.expect_tx by the thread issuing tile t into
//              slot s = t % kStages, complete = its bytes. Use r = t / kStages of the slot is
//              waited with parity r & 1. Tiles 0..min(kStages, n_tiles)-1 are issued by thread 0
//              before the loop; tile t >= kStages is issued when every warp has released tile
//              t - kStages. Overlapped schedule: a warp releases tile u at the end of iteration
//              u + 1 (tile n-1 after the loop); in iteration i it waits for V(i - 1) and, before
//              its release of tile i - 1, for K(i + 1), whose loads need the releases of tiles
//              i - 1 - kStages and i + 1 - kStages <= i - 2 (kStages >= 3, asserted), done in
//              iterations <= i - 1. Plain schedule: tile u released in iteration u, iteration i
//              waits for K(i), V(i), needing releases of tile i - kStages <= i - 2. Either way
//              iteration i of any warp depends only on iterations < i of all warps: no cycle,
//              no deadlock, for any n_tiles (0 included: then only Q is loaded, and it is still
//              waited for, so no TMA is in flight when the CTA ends).
//   counter[s] (u32): one atom.add per warp per use of slot s; the warp that sees old value
//              ≡ kNWarps - 1 (mod kNWarps) is the last releaser of that use and refills the slot.
//              Uses of a slot cannot interleave: use r+1's tile is loaded only after use r's last
//              arrival. acq_rel orders every warp's completed wgmma reads of the slot (wait_group
//              returned before its arrival) before the refill's TMA writes.
//   named barrier 1 + wg (128 threads): a warpgroup's O rows are in shared memory (and fenced for
//              the async proxy) before its elected thread TMA-stores them.
template <class Tr>
__global__ void __launch_bounds__(Tr::kNThreads, 1)
    wgmma_tma_fwd_kernel(const FwdParams p, const __grid_constant__ CUtensorMap tm_q,
                         const __grid_constant__ CUtensorMap tm_k, const __grid_constant__ CUtensorMap tm_v,
                         const __grid_constant__ CUtensorMap tm_o) {
#if FA_HOPPER_ENABLED
    constexpr int kBlockM = Tr::kBlockM;
    constexpr int kBlockN = Tr::kBlockN;
    constexpr int kStages = Tr::kStages;

    extern __shared__ unsigned char smem_raw[];
    const CtaSmem<Tr> sm(smem_raw);
    const uint32_t sQ = sm.q, sK = sm.k, sV = sm.v, bar_q = sm.bar_q, bar_k0 = sm.bar_k0, bar_v0 = sm.bar_v0;
    const uint32_t count0 = sm.base + Tr::kOffCount;

    const int m_start = (gridDim.x - 1 - blockIdx.x) * kBlockM;
    const int head = blockIdx.y, batch = blockIdx.z;
    const int n_tiles = num_key_tiles(p, m_start, kBlockM, kBlockN);
    const int tid = threadIdx.x;

    if (tid == 0) {
        sm.init_full_barriers();
#pragma unroll
        for (int s = 0; s < kStages; ++s) ptx::st_shared_b32(count0 + 4 * s, 0u);
        hopper::fence_mbarrier_init();
    }
    __syncthreads();

    if (tid == 0) {
        hopper::mbarrier_arrive_expect_tx(bar_q, Tr::kQBytes);
#pragma unroll
        for (int c = 0; c < Tr::kChunks; ++c)
            hopper::tma_load_4d(sQ + c * Tr::kQChunkBytes, &tm_q, bar_q, c * Tr::kAtomCols, m_start, head, batch);
        const int prologue = n_tiles < kStages ? n_tiles : kStages;
        for (int t = 0; t < prologue; ++t)
            issue_kv_tile<Tr>(t, sK, sV, bar_k0, bar_v0, &tm_k, &tm_v, head, batch);
    }

    // ---- Consumers: every warpgroup, 64 query rows each ----
    const int wg = tid / 128;
    const int warp = (tid / 32) % 4;
    const int lane = tid % 32;
    const int r0 = wg * 64 + warp * 16 + lane / 4;  // this thread's rows (in the CTA tile): r0, r0 + 8
    const int c0 = 2 * (lane % 4);                  // its column offset inside each 8-column group

    // Descriptor bases (see hopper.cuh for the field derivations). Q: K-major, this warpgroup's 64
    // rows start 64·128 bytes into each 64-column block. K: K-major. V: MN-major, LBO = distance
    // between its 64-column blocks (used at head_dim 128).
    const uint64_t desc_q = hopper::make_smem_desc_sw128(sQ + wg * 64 * 128, 16, 1024);
    const uint64_t desc_k = hopper::make_smem_desc_sw128(sK, 16, 1024);
    const uint64_t desc_v = hopper::make_smem_desc_sw128(sV, Tr::kKVChunkBytes, 1024);

    float o[Tr::kAccO];
#pragma unroll
    for (int i = 0; i < Tr::kAccO; ++i) o[i] = 0.0f;
    float row_max[2] = {-CUDART_INF_F, -CUDART_INF_F};  // running max of s·scale_log2
    float row_sum[2] = {0.0f, 0.0f};                    // this thread's partial sums (4 lanes per row)
    float s[Tr::kAccS];                                 // S of the newest tile, then its P (fp32)
    uint32_t pa[Tr::kKStepsPV * 4];                     // P as wgmma A fragments
    float rescale[2];

    // Releases ring slot `slot` after tile `tile` (its K and V reads by this warp are complete);
    // the last warp to release refills it with tile + kStages.
    auto release = [&](int slot, int tile) {
        __syncwarp();
        if (lane == 0) {
            const uint32_t old = hopper::atom_add_acq_rel_cta_shared(count0 + 4 * slot, 1u);
            if (old % Tr::kNWarps == Tr::kNWarps - 1 && tile + kStages < n_tiles)
                issue_kv_tile<Tr>(tile + kStages, sK, sV, bar_k0, bar_v0, &tm_k, &tm_v, head, batch);
        }
    };

    ptx::mbarrier_wait_parity(bar_q, 0);

    int stage = 0;
    uint32_t phase = 0;
    // Plain schedule: S(t), softmax(t), O += P(t)·V(t), each waited before the next.
#pragma unroll 1
    for (int t = 0; t < n_tiles; ++t) {
        ptx::mbarrier_wait_parity(bar_k0 + 8 * stage, phase);
        hopper::warpgroup_fence_operand(s);
        hopper::wgmma_fence();
        issue_qk<Tr>(s, desc_q, desc_k, stage);
        hopper::wgmma_commit_group();
        hopper::warpgroup_fence_operand(s);
        hopper::wgmma_wait_group<0>();
        hopper::warpgroup_fence_operand(s);
        softmax_tile<Tr>(s, row_max, row_sum, rescale, p, m_start, t * kBlockN, r0, c0);
        rescale_o<Tr>(o, rescale);
        pack_p<Tr>(pa, s);
        ptx::mbarrier_wait_parity(bar_v0 + 8 * stage, phase);
        hopper::warpgroup_fence_operand(o);
        hopper::warpgroup_fence_operand(pa);
        hopper::wgmma_fence();
        issue_pv<Tr>(o, pa, desc_v, stage);
        hopper::wgmma_commit_group();
        hopper::warpgroup_fence_operand(o);
        hopper::wgmma_wait_group<0>();
        hopper::warpgroup_fence_operand(o);
        hopper::warpgroup_fence_operand(pa);
        release(stage, t);
        if (++stage == kStages) {
            stage = 0;
            phase ^= 1u;
        }
    }

    // ---- Epilogue: O / l, into this warpgroup's Q rows (swizzled as TMA reads it), TMA store ----
    // This warpgroup's last wgmma reading its Q rows has completed (wait_group 0 above), and no
    // other warpgroup reads them.
    store_o_tile<Tr>(o, row_sum, sQ, wg, r0, c0, tid % 128 == 0, 1 + wg, &tm_o, m_start, head, batch, p.seqlen_q);
#endif  // FA_HOPPER_ENABLED
}

template <class Tr>
cudaError_t launch_wgmma_tma(const FwdParams& p, cudaStream_t stream) {
    return launch_tma_fwd<Tr, Tr::kNThreads>(wgmma_tma_fwd_kernel<Tr>, p, stream);
}

// Registry entry of the producer-less kernel (rungs 05 and 07): num_threads = threads launched.
template <class Tr>
KernelInstance make_instance() {
    return instance_of<Tr>(reinterpret_cast<const void*>(&wgmma_tma_fwd_kernel<Tr>), &launch_wgmma_tma<Tr>);
}

}  // namespace fa::wgmma
