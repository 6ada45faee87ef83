// The per-tile steps of the Hopper rungs (5 `wgmma_tma`, 6 `wgmma_ws`, 7 `wgmma_overlap`), one
// function each, so that a kernel reads as its schedule:
//   loads (one thread, TMA):     load_q, load_key_tile (K or V), load_kv_tile (both)
//   a consumer warpgroup:        issue_qk (S = Q·Kᵀ), softmax_tile (mask, online softmax, S -> P in
//                                fp32), rescale_o, pack_p (P -> wgmma A fragments), issue_pv (O += P·V)
//   its epilogue:                store_o_tile (O / l through shared memory, TMA store)
// and ConsumerThread (where a consumer thread sits in the fragment layout) and OperandDescs (its
// warpgroup's wgmma operand descriptors). Rung 5's design notes (05_wgmma_tma.cu) say why the steps are what they are.
//
// Every .cu that includes this header must be compiled for sm_90a (device/hopper.cuh).
#pragma once

#include <cuda.h>  // CUtensorMap (the maps are encoded on the host: lib/hopper_tma.cpp)

#include <cstdint>

#include "device/block_info.cuh"
#include "device/hopper.cuh"
#include "device/mask.cuh"
#include "device/online_softmax.cuh"
#include "device/ptx.cuh"
#include "device/wgmma_traits.cuh"
#include "fa/params.h"

namespace fa::wgmma {

// ---- Loads: issued by one thread; each completes a full mbarrier by its bytes ----

// Q tile of the CTA: kChunks boxes of 64 columns x kBlockM rows, on bar_q. The Q map is 5-D
// (lib/hopper_tma.cpp): a box starts at position m_start / g of head slot q_slot, g the rows per
// position (packed GQA), and holds the row space's rows in order. `half` >= 0 (rung 9 at head_dim
// 256, whose Q map has boxes of one warpgroup's 64 rows): only that warpgroup's rows.
template <class Tr>
__device__ __forceinline__ void load_q(const CtaSmem<Tr>& sm, const CUtensorMap* tm_q, const BlockCoords& blk,
                                       const FwdParams& p, int half = -1) {
    const int row0 = half < 0 ? 0 : half * Tr::kWarpgroupRows;
    const int first_pos = (blk.m_start + row0) / rows_per_position(p);
    hopper::mbarrier_arrive_expect_tx(sm.bar_q, half < 0 ? Tr::kQBytes : Tr::kQBytes / 2);
#pragma unroll
    for (int c = 0; c < Tr::kChunks; ++c)
        hopper::tma_load_5d(sm.q + c * Tr::kQChunkBytes + row0 * 128, tm_q, sm.bar_q, c * Tr::kAtomCols, 0, first_pos,
                            blk.q_slot, blk.batch);
}

// Keys [row, row + kBlockN) of the CTA's K/V head from the 4-D map `tm` (K or V) into the slot at
// `dst`: kChunks boxes of kAtomCols columns, kChunks · kKVChunkBytes bytes, all completing `bar`.
// Every Hopper rung's K and V loads are this (rung 8 also its raw V tiles).
template <class Tr>
__device__ __forceinline__ void load_key_rows(uint32_t dst, const CUtensorMap* tm, uint32_t bar, int row,
                                              const BlockCoords& blk) {
    hopper::mbarrier_arrive_expect_tx(bar, Tr::kChunks * Tr::kKVChunkBytes);
#pragma unroll
    for (int c = 0; c < Tr::kChunks; ++c)
        hopper::tma_load_4d(dst + c * Tr::kKVChunkBytes, tm, bar, c * Tr::kAtomCols, row, blk.head_kv, blk.batch);
}

// One operand (K or V: `ring` = sm.k or sm.v, `bar0` = its first full barrier) of key tile t of
// the CTA's tile (its t-th, counted from key_tile_begin) into ring slot s.
template <class Tr>
__device__ __forceinline__ void load_key_tile(uint32_t ring, uint32_t bar0, const CUtensorMap* tm, int t, int s,
                                              const BlockCoords& blk) {
    load_key_rows<Tr>(ring + s * Tr::kKVBytes, tm, bar0 + 8 * s, (blk.key_tile_begin + t) * Tr::kBlockN, blk);
}

// Key tile t into ring slot t % kStages: K and V, each on its own full barrier, so S = Q·Kᵀ can
// start before V has landed.
template <class Tr>
__device__ __forceinline__ void load_kv_tile(const CtaSmem<Tr>& sm, int t, const CUtensorMap* tm_k,
                                             const CUtensorMap* tm_v, const BlockCoords& blk) {
    load_key_tile<Tr>(sm.k, sm.bar_k0, tm_k, t, t % Tr::kStages, blk);
    load_key_tile<Tr>(sm.v, sm.bar_v0, tm_v, t, t % Tr::kStages, blk);
}

// ---- A consumer warpgroup ----
// Fragment convention (hopper.cuh, WgmmaM64): thread (warp w of its warpgroup, lane l) holds rows
// r0 = 16w + l/4 and r0 + 8 of the warpgroup's 64, element 4j + 2h + e at row r0 + 8h, column
// 8j + 2(l%4) + e.

// Consumer thread `ctid` (counted from the first consumer thread): its warpgroup, warp, lane and
// the rows and columns it holds.
template <class Tr>
struct ConsumerThread {
    int ctid;
    int wg;    // consumer warpgroup: query rows 64·wg .. 64·wg + 63 of the CTA tile
    int warp;  // warp in the warpgroup
    int lane;
    int r0;    // this thread's rows in the CTA tile: r0 and r0 + 8
    int c0;    // its column offset inside each 8-column group

    __device__ __forceinline__ explicit ConsumerThread(int consumer_tid)
        : ctid(consumer_tid),
          wg(hopper::warp_uniform(consumer_tid / 128)),
          warp((consumer_tid / 32) % 4),
          lane(consumer_tid % 32),
          r0(wg * Tr::kWarpgroupRows + warp * 16 + lane / 4),
          c0(2 * (lane % 4)) {}
};

// The wgmma descriptor bases of consumer warpgroup wg's operands (field derivations in
// hopper.cuh). Q: K-major, the warpgroup's 64 rows start 64·128 bytes into each 64-column block.
// K: K-major. V: MN-major, LBO = distance between its 64-column blocks (used at head_dim 128).
// ptxas rebuilds K's and V's from the shared base in every loop trip (masks and shifts of
// make_smem_desc_sw128). Held through a mov it cannot fold (ptx::opaque, as rung 8's since session
// 26), rung 7's trip at head_dim 64 went 551 -> 533 SASS instructions (128: 592 -> 571; rung 9:
// 562 -> 555) and measured level (session 32 call 2, H100 SXM, two rounds: head_dim 64 -0.1 to
// +1.4 %; at 128 and 256 rung 7 +0.1 to -4.6 %, rung 9 0 to +3.7 %, where single rounds spread 2-8 %;
// results/.../session32/opaque_descriptors.patch): not kept.
template <class Tr>
struct OperandDescs {
    uint64_t q, k, v;

    __device__ __forceinline__ OperandDescs(const CtaSmem<Tr>& sm, int wg)
        : q(hopper::make_smem_desc_sw128(sm.q + wg * Tr::kWarpgroupRows * 128, 16, 1024)),
          k(hopper::make_smem_desc_sw128(sm.k, 16, 1024)),
          v(hopper::make_smem_desc_sw128(sm.v, Tr::kKVChunkBytes, 1024)) {}
};

// ---- Per key tile ----

// Issues S = Q·Kᵀ for ring slot `stage` (no fence / commit: the caller brackets the batch).
template <class Tr>
__device__ __forceinline__ void issue_qk(float (&s)[Tr::kAccS], uint64_t desc_q, uint64_t desc_k, int stage) {
    // The slot's K descriptor once per batch, then a compile-time offset per k16 step (every
    // offset is a multiple of 16 bytes, so the sum is the same): rung 7's instructions between
    // the issue token's bar.sync and its last wgmma went 140 -> 107 (with position_of_row, 89).
    const uint64_t desc_k_slot = desc_k + static_cast<uint32_t>(stage * (Tr::kKVBytes >> 4));
#pragma unroll
    for (int kk = 0; kk < Tr::kKStepsQK; ++kk) {
        // k16 step kk: 64-column block kk/4, 32 bytes per step inside the 128-byte atom row.
        const uint32_t off_q = (kk / 4) * Tr::kQChunkBytes + (kk % 4) * 32;
        const uint32_t off_k = (kk / 4) * Tr::kKVChunkBytes + (kk % 4) * 32;
        hopper::WgmmaM64<Tr::kBlockN>::template ss<typename Tr::T>(s, desc_q + (off_q >> 4),
                                                                    desc_k_slot + (off_k >> 4), kk > 0 ? 1u : 0u);
    }
}

// Issues O += P·V for ring slot `stage`, P from registers (pa[4kk..4kk+3] = A fragment of k16 step kk).
template <class Tr>
__device__ __forceinline__ void issue_pv(float (&o)[Tr::kAccO], const uint32_t (&pa)[Tr::kKStepsPV * 4],
                                         uint64_t desc_v, int stage) {
    const uint64_t desc_v_slot = desc_v + static_cast<uint32_t>(stage * (Tr::kKVBytes >> 4));
#pragma unroll
    for (int kk = 0; kk < Tr::kKStepsPV; ++kk) {
        // 16 keys = two 1024-byte atoms of V's MN-major layout.
        const uint32_t(&a)[4] = *reinterpret_cast<const uint32_t(*)[4]>(&pa[4 * kk]);
        hopper::WgmmaM64<Tr::kHeadDim>::template rs<typename Tr::T, 1>(o, a, desc_v_slot + (kk * 2048 >> 4), 1u);
    }
}

// Sets S to -inf where a key is not visible: keys >= seqlen_k (zero-filled by TMA) and, causal,
// keys past the diagonal of the row's query position. pos0 / pos1: the query positions of this
// thread's two rows (r0, r0 + 8); n_start: the tile's first key; c0: this thread's first column.
// mask.cuh's key_visible rule folded into one bound per row, counted from this thread's first
// column: element (j, e) is visible iff 8j + (e & 1) < bound, one compare with an immediate and
// one select per element. key_visible per element (col < seqlen_k && (!causal || col <= row),
// col rebuilt each time) compiled to ~3 ISETP, ~2 IMAD and 1 FSEL per element (ncu, rung 9 at
// 32x32x512x64 causal, session 16 call 3: 6.2 M ISETP, 6.0 M IMAD against cuDNN's 1.4 M, 1.2 M).
// With rung 9's decoded work slots (09_wgmma_persistent.cu) it took rung 9 from 221 to 266 TFLOP/s
// there (session 16 call 4); rung 7 +1 to +3 % on short causal rows. Rung 8 keeps the old form.
template <int kBlockN, int kAccS>
__device__ __forceinline__ void mask_tile(float (&s)[kAccS], int pos0, int pos1, int n_start, int c0,
                                          const FwdParams& p) {
    const int first_col = n_start + c0;
    const int bound0 = visible_keys(p, pos0) - first_col;
    const int bound1 = visible_keys(p, pos1) - first_col;
#pragma unroll
    for (int j = 0; j < kBlockN / 8; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            if (8 * j + (e & 1) >= (e >> 1 ? bound1 : bound0)) s[4 * j + e] = -CUDART_INF_F;
        }
}

// The raw (unscaled) max of each of this thread's two rows over its columns of an S tile in the
// accumulator layout; the row's max is that over the 4 lanes sharing it (lane / 4 equal):
// quad_max, which online_softmax_tile issues per row beside what it does with it (moving both
// rows' shuffles ahead of its per-row work changed the SASS of every Hopper rung).
// One chain a row: the same loop with two or four independent chains a row (FA4's has three) left
// rung 7's 160-key loop and the head_dim-64 tiles' unmasked loop byte-identical (session 37: ptxas
// re-forms the reduction), so it was not timed.
// Each row's chain starts at its first pair, not at -inf: fmaxf(-inf, x) is not folded (x may be
// NaN), so a -inf start cost one FMNMX per row and tile. kNegInfStart: the -inf start (the
// schedule rung 8 and rung 9's 128-key head_dim-128 tile were measured with; online_softmax_tile).
template <int kBlockN, int kAccS, bool kNegInfStart = false>
__device__ __forceinline__ void thread_row_max(const float (&s)[kAccS], float (&tile_max)[2]) {
    tile_max[0] = kNegInfStart ? fmaxf(-CUDART_INF_F, fmaxf(s[0], s[1])) : fmaxf(s[0], s[1]);
    tile_max[1] = kNegInfStart ? fmaxf(-CUDART_INF_F, fmaxf(s[2], s[3])) : fmaxf(s[2], s[3]);
#pragma unroll
    for (int j = 1; j < kBlockN / 8; ++j) {
        tile_max[0] = fmaxf(tile_max[0], fmaxf(s[4 * j + 0], s[4 * j + 1]));
        tile_max[1] = fmaxf(tile_max[1], fmaxf(s[4 * j + 2], s[4 * j + 3]));
    }
}

__device__ __forceinline__ float quad_max(float x) {
    x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
    return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}

// The online-softmax update and exponentiation of one (masked) S tile, in place: s becomes
// 2^p_shift_log2 · P in fp32 (the shift is 0 for bf16/fp16; rung 8 scales P into e4m3's range).
// scale_log2 maps raw S to base-2 logits. Returns through `rescale` the factor the caller must
// apply to O for each of the thread's two rows.
// `midpoint`: called once, between the exponentials of key columns < kMidpointColumn and the rest
// (at kMidpointColumn = kBlockN, after them all). Rungs 7 and 9 wait there for the running P·V
// (overlap_schedule.cuh); the default does nothing.
struct NoMidpoint {
    __device__ __forceinline__ void operator()() const {}
};

// kLazyMax: the lazy running max (online_softmax.cuh) with max_slack_log2, so P may reach
// 2^(p_shift_log2 + max_slack_log2) and O's rescale (a factor of exactly 1) is skipped more often.
// kNegInfStart: row_max started at -inf (row_max_start), so the factor and the offset guard it, as
// every Hopper rung did before session 31. Without the guards (from kRowMaxStart, online_softmax.cuh:
// 2 FSETP + 2 FSEL and, in thread_row_max, 2 FMNMX fewer per tile) rungs 7 and 9 measured +0.4 to
// +2.2 % at head_dim 64 (all five points), +1.1 to +1.6 % at head_dim 128 non-causal and level at
// 256; but where ptxas scheduled the loop anew to its loss, the old start stays: rung 8 (-0.7 to
// -1.9 % at three of issue #11's four points) and rung 9's 128-key head_dim-128 tile (causal -1.2 %,
// twice). Session 31 calls 1-2 (H100 SXM, default timing rule, two rounds each).
// kArgsFirst: every exponent's argument (s·scale_log2 - offset, one FFMA) computed in place before the
// first exponential, as FA4's sm90 loop has them (session 36), so all the FFMAs precede the midpoint's
// P·V wait and only the exponentials, the row sum, O's rescale and the packing follow it. Where
// ptxas schedules the tile better that way: rung 9's 128-key head_dim-128 tile (09_wgmma_persistent.cu).
template <int kBlockN, int kAccS, int kMidpointColumn = kBlockN, class Midpoint = NoMidpoint, bool kLazyMax = false,
          bool kNegInfStart = false, bool kArgsFirst = false>
__device__ __forceinline__ void online_softmax_tile(float (&s)[kAccS], float (&row_max)[2], float (&row_sum)[2],
                                                    float (&rescale)[2], float scale_log2, float p_shift_log2,
                                                    const Midpoint& midpoint = {}, float max_slack_log2 = 0.0f) {
    static_assert(kMidpointColumn % 8 == 0 && kMidpointColumn >= 0 && kMidpointColumn <= kBlockN, "8-column groups");
    float tile_max[2];
    thread_row_max<kBlockN, kAccS, kNegInfStart>(s, tile_max);
    float offset[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        tile_max[h] = quad_max(tile_max[h]);
        float m_new = fmaxf(row_max[h], tile_max[h] * scale_log2);
        // The lazy max (online_softmax.cuh, kLazyMaxSlackLog2's comment).
        if constexpr (kLazyMax) m_new = m_new - row_max[h] <= max_slack_log2 ? row_max[h] : m_new;
        // From kRowMaxStart both maxima are finite: the factor is 0 at a row's first visible key
        // and exactly 1 when the max stays (what rescale_o's lazy skip tests), and a masked s =
        // -inf still gives p = 0. From -inf (kNegInfStart) the factor is guarded (ex2(-inf - -inf)
        // is NaN) and a row with no visible key yet keeps offset 0, so its P is 0: online_softmax_
        // rescale / _offset (online_softmax.cuh) without branches (the helper's ?: around an
        // inline-asm ex2 becomes one), so the softmax stays one basic block, which ptxas schedules
        // freely between the two wgmma waits.
        const float ex = ptx::ex2_approx(row_max[h] - m_new);
        rescale[h] = kNegInfStart && row_max[h] == -CUDART_INF_F ? 0.0f : ex;
        offset[h] = kNegInfStart && m_new == -CUDART_INF_F ? 0.0f : m_new - p_shift_log2;
        row_max[h] = m_new;
        row_sum[h] *= rescale[h];
    }
    if constexpr (kArgsFirst) {
#pragma unroll
        for (int i = 0; i < kAccS; ++i) s[i] = fmaf(s[i], scale_log2, -offset[(i >> 1) & 1]);  // element i: row (i % 4) / 2
    }
#pragma unroll
    for (int j = 0; j < kBlockN / 8; ++j) {
        if (j == kMidpointColumn / 8) midpoint();
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const float pv = ptx::ex2_approx(kArgsFirst ? s[4 * j + e] : fmaf(s[4 * j + e], scale_log2, -offset[e >> 1]));
            s[4 * j + e] = pv;
            row_sum[e >> 1] += pv;
        }
    }
    if constexpr (kMidpointColumn == kBlockN) midpoint();
}

// The running max before a warpgroup's first key tile (online_softmax_tile's kNegInfStart).
template <class Tr>
__device__ __forceinline__ float row_max_start() {
    return Tr::kNegInfStart ? -CUDART_INF_F : kRowMaxStart;
}

// Mask, online-softmax update and exponentiation of one S tile, in place (s becomes P in fp32).
// Returns through `rescale` the factor the caller must apply to O for each of its two rows.
// `t`: the tile's index among the CTA's key tiles (its keys start at key tile key_tile_begin + t).
// `midpoint`: as online_softmax_tile's, at Tr::kPvWaitColumn. kMayMask = false: the caller knows the
// tile needs no mask (mask.cuh's unmasked_key_tiles), and the test is not compiled.
template <class Tr, bool kMayMask = true, class Midpoint = NoMidpoint>
__device__ __forceinline__ void softmax_tile(float (&s)[Tr::kAccS], float (&row_max)[2], float (&row_sum)[2],
                                             float (&rescale)[2], const FwdParams& p, const BlockCoords& blk, int t,
                                             const ConsumerThread<Tr>& c, const Midpoint& midpoint = {}) {
    constexpr int kBlockN = Tr::kBlockN;
    const int m_start = blk.m_start, n_start = (blk.key_tile_begin + t) * kBlockN, r0 = c.r0;
    // Packed GQA: a row's query position is row / g (position_of_row), g read from the
    // parameters (no register in the loop).
    if (kMayMask && tile_needs_mask(position_of_row(p, m_start), n_start, kBlockN, p.seqlen_k, p.causal))
        mask_tile<kBlockN>(s, position_of_row(p, m_start + r0), position_of_row(p, m_start + r0 + 8), n_start, c.c0,
                           p);
    online_softmax_tile<kBlockN, Tr::kAccS, Tr::kPvWaitColumn, Midpoint, Tr::kLazyMax, Tr::kNegInfStart,
                        Tr::kExpArgsFirst>(
        s, row_max, row_sum, rescale, p.scale_log2, 0.0f, midpoint, kLazyMaxSlackLog2);
}

// P (fp32, accumulator layout) -> wgmma A fragments. k16 step kk covers accumulator groups 2kk and
// 2kk+1; the A layout {a0,a1} = (row r0, k 2(l%4)..), {a2,a3} = (row r0+8), {a4,a5} = (row r0, k+8),
// {a6,a7} = (row r0+8, k+8) is exactly s[8kk+0..1], s[8kk+2..3], s[8kk+4..5], s[8kk+6..7].
template <class Tr>
__device__ __forceinline__ void pack_p(uint32_t (&pa)[Tr::kKStepsPV * 4], const float (&s)[Tr::kAccS]) {
#pragma unroll
    for (int i = 0; i < Tr::kKStepsPV * 4; ++i) pa[i] = ptx::pack2<typename Tr::T>(s[2 * i], s[2 * i + 1]);
}

// O's rows scaled by the factors softmax_tile returned (the running max moved). With the lazy max
// (Tr::kLazyMax) a warp whose rows all kept their max skips it (the factors are exactly 1).
template <class Tr>
__device__ __forceinline__ void rescale_o(float (&o)[Tr::kAccO], const float (&rescale)[2]) {
    if constexpr (Tr::kLazyMax)
        if (__all_sync(0xffffffffu, rescale[0] == 1.0f && rescale[1] == 1.0f)) return;
#pragma unroll
    for (int j = 0; j < Tr::kAccO / 4; ++j) {
        o[4 * j + 0] *= rescale[0];
        o[4 * j + 1] *= rescale[0];
        o[4 * j + 2] *= rescale[1];
        o[4 * j + 3] *= rescale[1];
    }
}

// ---- The epilogue of a consumer warpgroup ----
// After the last wgmma of the warpgroup: the quad-reduced row sums and, per thread, its two rows'
// log-sum-exp. row_sum becomes the whole row's sum.
template <class Tr>
__device__ __forceinline__ void finish_rows(float (&row_sum)[2], const float (&row_max)[2], float (&inv)[2],
                                            float (&lse)[2]) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        row_sum[h] += __shfl_xor_sync(0xffffffffu, row_sum[h], 1);
        row_sum[h] += __shfl_xor_sync(0xffffffffu, row_sum[h], 2);
        inv[h] = online_softmax_inv_sum(row_sum[h]);
        lse[h] = online_softmax_lse(row_max[h], row_sum[h]);
    }
}

// The [batch][heads][seqlen_q] index of row-space row m (the LSE and split-partial layouts).
__device__ __forceinline__ int64_t row_index(const FwdParams& p, const BlockCoords& blk, int m) {
    const int g = rows_per_position(p);
    const int pos = m / g;
    return (static_cast<int64_t>(blk.batch) * p.heads + blk.head + (m - pos * g)) * p.seqlen_q + pos;
}

// O / l of warpgroup c.wg (64 rows of the CTA tile) into the warpgroup's own Q rows of shared
// memory, in the 128-byte swizzled layout TMA reads, then its first thread TMA-stores them (5-D O
// map as the Q map: rows of positions >= seqlen_q are clipped by the copy engine, and a warpgroup
// whose first row is past the row space stores nothing); the rows' LSE to p.lse when it is set.
// Precondition: every wgmma of this warpgroup that reads its Q rows has completed, and no other
// warpgroup reads them. Named barrier kEpilogueBar + wg orders the warpgroup's 128 threads'
// stores before the TMA store. Element (r, col): 64-column block col / 64, 16-byte chunk
// (col % 64) / 8 stored at chunk ^ (r % 8), 4 bytes per thread (bank-conflict free: the 8 rows of
// a warp's store hit 8 different chunks).
// kStaged (rung 9's head_dim-256 64-key tile): the rows go to `o_stage` instead, a buffer of one
// warpgroup's 64 rows (64-column blocks of 64 x 128 bytes), so that Q could be handed back first.
template <class Tr, bool kStaged = false>
__device__ __forceinline__ void store_o_tile(const float (&o)[Tr::kAccO], float (&row_sum)[2],
                                             const float (&row_max)[2], const ConsumerThread<Tr>& c,
                                             const CtaSmem<Tr>& sm, const CUtensorMap* tm_o, const BlockCoords& blk,
                                             const FwdParams& p, uint32_t o_stage = 0) {
    // Read first, as when the callers passed them by value: ptxas then schedules this as before.
    const int rows = p.seqlen_q * rows_per_position(p);
    const bool leader = c.ctid % 128 == 0;
    constexpr int kChunkBytes = kStaged ? Tr::kWarpgroupRows * 128 : Tr::kQChunkBytes;
    const int wg = c.wg, r0 = c.r0, c0 = c.c0, m_start = blk.m_start;
    const int rb = kStaged ? r0 - wg * Tr::kWarpgroupRows : r0;  // this thread's first row in the buffer
    const uint32_t sQ = kStaged ? o_stage : sm.q;
    float inv[2], lse[2];
    finish_rows<Tr>(row_sum, row_max, inv, lse);
#pragma unroll
    for (int j = 0; j < Tr::kAccO / 4; ++j) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int r = rb + 8 * h;
            const uint32_t addr = sQ + (j / 8) * kChunkBytes + r * 128 + (((j % 8) ^ (r % 8)) << 4) + c0 * 2;
            ptx::st_shared_b32(addr,
                               ptx::pack2<typename Tr::T>(o[4 * j + 2 * h] * inv[h], o[4 * j + 2 * h + 1] * inv[h]));
        }
    }
    hopper::fence_proxy_async_shared_cta();
    hopper::named_barrier_sync(Tr::kEpilogueBar + wg, 128);
    if (leader && m_start + wg * 64 < rows) {
        const int first_pos = (m_start + wg * 64) / rows_per_position(p);
#pragma unroll
        for (int ch = 0; ch < Tr::kChunks; ++ch)
            hopper::tma_store_5d(tm_o, sQ + ch * kChunkBytes + (kStaged ? 0 : wg * 64 * 128), ch * Tr::kAtomCols, 0,
                                 first_pos, blk.q_slot, blk.batch);
        hopper::bulk_commit_group();
    }
    if (p.lse != nullptr && c0 == 0) {
#pragma unroll
        for (int h = 0; h < 2; ++h)
            if (m_start + r0 + 8 * h < rows) p.lse[row_index(p, blk, m_start + r0 + 8 * h)] = lse[h];
    }
    if (leader && m_start + wg * 64 < rows) hopper::bulk_wait_group_read<0>();  // smem outlives the store's reads
}

// A split-KV CTA's output (fa/splitkv.h): O / l in fp32 and the rows' LSE into the partials of its
// split, straight from the accumulators (a quad's float2 stores cover 32 contiguous bytes of a row).
template <class Tr>
__device__ __forceinline__ void store_split_tile(const float (&o)[Tr::kAccO], float (&row_sum)[2],
                                                 const float (&row_max)[2], const ConsumerThread<Tr>& c,
                                                 const BlockCoords& blk, const FwdParams& p) {
    const int rows = p.seqlen_q * rows_per_position(p);
    const int64_t split_base = static_cast<int64_t>(blk.split) * p.batch * p.heads * p.seqlen_q;
    float inv[2], lse[2];
    finish_rows<Tr>(row_sum, row_max, inv, lse);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const int m = blk.m_start + c.r0 + 8 * h;
        if (m >= rows) continue;
        const int64_t idx = split_base + row_index(p, blk, m);
        if (c.c0 == 0) p.lse_partial[idx] = lse[h];
        float* dst = p.o_partial + idx * Tr::kHeadDim + c.c0;
#pragma unroll
        for (int j = 0; j < Tr::kAccO / 4; ++j)
            *reinterpret_cast<float2*>(dst + 8 * j) = make_float2(o[4 * j + 2 * h] * inv[h], o[4 * j + 2 * h + 1] * inv[h]);
    }
}

// Everything a consumer warpgroup writes at the end: the split partials, or O (and the LSE), for
// the tile at `blk`. Without `blk` the coordinates are derived afresh (BlockCoords' `fresh`): kept
// from the kernel's start they would hold registers through the main loop.
template <class Tr, bool kStaged = false>
__device__ __forceinline__ void write_output(const float (&o)[Tr::kAccO], float (&row_sum)[2],
                                             const float (&row_max)[2], const ConsumerThread<Tr>& c,
                                             const CtaSmem<Tr>& sm, const CUtensorMap* tm_o, const FwdParams& p,
                                             const BlockCoords& blk, uint32_t o_stage = 0) {
    if (p.num_splits > 1) store_split_tile<Tr>(o, row_sum, row_max, c, blk, p);
    else store_o_tile<Tr, kStaged>(o, row_sum, row_max, c, sm, tm_o, blk, p, o_stage);
}
template <class Tr>
__device__ __forceinline__ void write_output(const float (&o)[Tr::kAccO], float (&row_sum)[2],
                                             const float (&row_max)[2], const ConsumerThread<Tr>& c,
                                             const CtaSmem<Tr>& sm, const CUtensorMap* tm_o, const FwdParams& p) {
    write_output<Tr>(o, row_sum, row_max, c, sm, tm_o, p, BlockCoords(p, Tr::kBlockM, Tr::kBlockN, true));
}

}  // namespace fa::wgmma
