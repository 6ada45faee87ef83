// The mma.sync key-tile steps of rungs 3 (03_mma.cu) and 10 (10_mma_decode.cu): the cp.async
// sweeps that fill Q, K and V tiles and one key tile's S = Q·Kᵀ, online softmax and O += P·V on a
// warp's 16-row bands. A traits type supplies the tile constants (MmaTraits' names); kKeySplitWarps
// says whether a CTA's warps own different rows of every key (rung 3) or share the rows and take
// different keys of every tile (rung 10: decode, one 16-row band).
#pragma once

#include <cstdint>

#include "device/block_info.cuh"
#include "device/mask.cuh"
#include "device/online_softmax.cuh"
#include "device/ptx.cuh"
#include "device/smem_swizzle.cuh"
#include "device/softmax_fragment.cuh"
#include "fa/params.h"

namespace fa {

// Hides a pointer's derivation from the optimizer (an empty asm, no instruction). Without it,
// loop strength reduction turns each of the 2·kBlockN/kCopyRowsPerPass per-sweep source addresses
// of the K/V loads into its own 64-bit induction variable (2 registers per sweep and tensor) and ptxas, at
// the 255-register ceiling, spills them; with it, one pointer per tensor is carried and the
// sweeps add uniform offsets.
template <typename P>
__device__ __forceinline__ P* opaque_ptr(P* ptr) {
    asm("" : "+l"(ptr));
    return ptr;
}

// Shared address of a thread's chunk in sweep `pass` of a tile copy, from its sweep-0 address
// smem_dst (its row cp_row < kCopyRowsPerPass, its chunk swizzled for that row). A sweep of a
// multiple of 8 rows lands on rows with the same row % 8, so the swizzled column is sweep 0's and
// the sweeps differ by compile-time offsets (rung 3, rung 10 at head_dim 64 and 128). A sweep of
// fewer rows, a power of two (rung 10 at head_dim 256: 64 threads, 32 chunks a row, 2 rows a
// sweep), lands on row % 8 = cp_row ^ (pass · kCopyRowsPerPass % 8), so its column is sweep 0's
// with those bits flipped: an XOR of the address's chunk bits (4-6), valid because every tile
// starts on a 128-byte boundary (the extern smem array is __align__(128), tiles are whole rows of
// 128-byte segments); one LOP3 for each of the at most four patterns, hoisted out of the loop.
template <typename Tr>
__device__ __forceinline__ uint32_t sweep_dst(uint32_t smem_dst, int pass) {
    static_assert(Tr::kCopyRowsPerPass % 8 == 0 || 8 % Tr::kCopyRowsPerPass == 0,
                  "a sweep covers a multiple of 8 rows or a power of two below 8");
    const uint32_t flip = static_cast<uint32_t>((pass * Tr::kCopyRowsPerPass) % 8) * 16;
    return (smem_dst ^ flip) + static_cast<uint32_t>(pass * Tr::kCopyRowsPerPass * Tr::kRowBytes);
}

// The Q tile of a packed-GQA row block (block_info.cuh): row r of the tile is not r rows after row
// 0 but position (m_start + r) / heads_per_kv of head m % heads_per_kv, so each sweep computes its
// own source row (one integer division per sweep, in the prologue only). Rows at or past bi.rows
// are zero-filled from bi.q.
template <typename Tr>
__device__ __forceinline__ void cp_async_q_packed(uint32_t smem_dst, const BlockInfo<typename Tr::T>& bi,
                                                  const FwdParams& p, int m_start, int cp_row, int cp_chunk) {
#pragma unroll
    for (int pass = 0; pass < Tr::kBlockM / Tr::kCopyRowsPerPass; ++pass) {
        const int row = m_start + cp_row + pass * Tr::kCopyRowsPerPass;
        const uint32_t d = sweep_dst<Tr>(smem_dst, pass);
        const bool in_bounds = row < bi.rows;
        const typename Tr::T* g = bi.q + (in_bounds ? bi.row_offset(row, p.q_row_stride, p.q_head_stride) : 0);
        ptx::cp_async_cg_16(d, g + cp_chunk * kChunkElems, in_bounds ? 16 : 0);
    }
}

// This thread's share of a kRows-row tile copy: chunk tid % kChunksPerRow of rows
// tid / kChunksPerRow + kCopyRowsPerPass·pass, by 16-byte cp.async. smem_dst and gmem_src point at
// the thread's first chunk; sweeps differ by a uniform global stride and, in shared memory, by
// sweep_dst's compile-time offset (and column flip where a sweep is under 8 rows).
// With kCheckBounds, rows at or past valid_rows are zero-filled (src_bytes = 0) from `fallback`,
// row 0 of the tensor slice, which always exists. Only the Q tile and the first (highest) key
// tile can be partial; every key tile loaded inside the main loop lies below it and is full, so
// those loads skip the check.
template <typename Tr, int kRows, bool kCheckBounds>
__device__ __forceinline__ void cp_async_rows(uint32_t smem_dst, const typename Tr::T* gmem_src, int64_t row_stride,
                                              int first_row, int valid_rows, const typename Tr::T* fallback) {
    static_assert(kRows % Tr::kCopyRowsPerPass == 0, "whole sweeps");
#pragma unroll
    for (int pass = 0; pass < kRows / Tr::kCopyRowsPerPass; ++pass) {
        const uint32_t d = sweep_dst<Tr>(smem_dst, pass);
        const typename Tr::T* g = gmem_src + pass * Tr::kCopyRowsPerPass * row_stride;
        if constexpr (kCheckBounds) {
            const bool in_bounds = first_row + pass * Tr::kCopyRowsPerPass < valid_rows;
            ptx::cp_async_cg_16(d, in_bounds ? g : fallback, in_bounds ? 16 : 0);
        } else {
            ptx::cp_async_cg_16(d, g);
        }
    }
}

// One key tile: S = Q·Kᵀ, after_qk(), mask (kMasked only), online softmax, after_softmax(), O += P·V
// (the two hooks issue the next tile's copies; see the main loop). v: kRowsFirst addresses
// of the current V stage; q_delta moves them to this warp's Q rows, k_delta to the current K
// stage in kChunksFirst order (smem_swizzle.cuh). The register order each ldmatrix.x4 yields is
// documented at its use.
template <typename Tr, bool kMasked, typename AfterQK, typename AfterSoftmax>
__device__ __forceinline__ void mma_key_tile(const LdsmAddr<Tr::kRowBytes>& v, int32_t q_delta, int32_t k_delta,
                                             float (&o)[Tr::kMTiles][Tr::kNTilesO][4], float (&m)[Tr::kMTiles][2],
                                             float (&l)[Tr::kMTiles][2], int m_start, int n_start,
                                             const FwdParams& p, AfterQK after_qk, AfterSoftmax after_softmax) {
    using T = typename Tr::T;

    float s[Tr::kMTiles][Tr::kNTilesS][4];
#pragma unroll
    for (int mt = 0; mt < Tr::kMTiles; ++mt)
#pragma unroll
        for (int nt = 0; nt < Tr::kNTilesS; ++nt)
#pragma unroll
            for (int i = 0; i < 4; ++i) s[mt][nt][i] = 0.0f;

#pragma unroll
    for (int kk = 0; kk < Tr::kKStepsQK; ++kk) {
        // Q, kRowsFirst: matrices (rows +0..7, k lo), (+8..15, k lo), (+0..7, k hi),
        // (+8..15, k hi) are exactly a0..a3 of m16n8k16.
        uint32_t qa[Tr::kMTiles][4];
#pragma unroll
        for (int mt = 0; mt < Tr::kMTiles; ++mt) ptx::ldmatrix_x4(qa[mt], v(mt, kk, q_delta));
#pragma unroll
        for (int np = 0; np < Tr::kNTilesS / 2; ++np) {
            // K rows are S columns. kChunksFirst: matrices (keys +0..7, k lo), (+0..7, k hi),
            // (+8..15, k lo), (+8..15, k hi) give b0, b1 of n-tile 2np, then b0, b1 of 2np+1.
            uint32_t kb[4];
            ptx::ldmatrix_x4(kb, v(np, kk, k_delta));
            const uint32_t b_even[2] = {kb[0], kb[1]};
            const uint32_t b_odd[2] = {kb[2], kb[3]};
#pragma unroll
            for (int mt = 0; mt < Tr::kMTiles; ++mt) {
                ptx::mma_m16n8k16<T>(s[mt][2 * np], qa[mt], b_even);
                ptx::mma_m16n8k16<T>(s[mt][2 * np + 1], qa[mt], b_odd);
            }
        }
    }

    after_qk();
    if constexpr (kMasked) {
        // Lane-dependent row/column origins are re-derived here from a fresh %tid.x rather than
        // kept live across the Q·Kᵀ loop, where register pressure peaks (3 registers there).
        // n_start counts from the CTA's first key tile; a split's offset is derived here too
        // (carrying it through the loop cost 10 registers at d=128, 245 -> 255).
        // Tr::kKeySplitWarps (rung 10): the warps share the tile's rows and split its keys, warp w
        // taking keys kWarpKeys·w.. of it; otherwise (rung 3) warp w owns rows kWarpRows·w.. and
        // every key.
        const int tid = ptx::tid_x();
        const int warp = tid / 32;
        const int row0 = m_start + (Tr::kKeySplitWarps ? 0 : warp * Tr::kWarpRows) + (tid % 32) / 4;
        const int col0 = split_first_tile(p, ptx::ctaid_y(), Tr::kBlockN) * Tr::kBlockN + n_start +
                         (Tr::kKeySplitWarps ? warp * Tr::kWarpKeys : 0) + 2 * (tid % 4);
        mask_fragment(s, row0, col0, p.seqlen_k, p.causal, p.pack_gqa ? p.heads_per_kv : 1);
    }
    // The rescale factor without a per-row branch (the function's default): +5-6 % at head_dim 64; at
    // 128 +0-2 % (session 6, call 2), taken since the running K/V pointers left room for it (255
    // registers, no spill; with the old address math it spilled 80 bytes).
    softmax_rescale_fragment<Tr::kSkipUnitRescale, true, Tr::kLazyMax>(s, o, m, l, p.scale_log2, kLazyMaxSlackLog2);

    uint32_t pa[Tr::kMTiles][Tr::kKStepsPV][4];
    convert_p_fragment<T>(s, pa);
    after_softmax();

#pragma unroll
    for (int kk = 0; kk < Tr::kKStepsPV; ++kk) {
#pragma unroll
        for (int np = 0; np < Tr::kNTilesO / 2; ++np) {
            // V rows are keys (the k of P·V). kRowsFirst + .trans: matrices (keys +0..7, d lo),
            // (+8..15, d lo), (+0..7, d hi), (+8..15, d hi) give b0, b1 of n-tile 2np, then b0, b1
            // of n-tile 2np+1.
            uint32_t vb[4];
            ptx::ldmatrix_x4_trans(vb, v(kk, np));
            const uint32_t b_even[2] = {vb[0], vb[1]};
            const uint32_t b_odd[2] = {vb[2], vb[3]};
#pragma unroll
            for (int mt = 0; mt < Tr::kMTiles; ++mt) {
                ptx::mma_m16n8k16<T>(o[mt][2 * np], pa[mt][kk], b_even);
                ptx::mma_m16n8k16<T>(o[mt][2 * np + 1], pa[mt][kk], b_odd);
            }
        }
    }
}

// A CTA's key tiles [begin, end) (all of them, or one split-KV chunk), visited from the last one
// down; those needing a mask (causal diagonal, partial tail) are a suffix of the range, so they come
// first and the rest run unmasked. count <= 0: an empty split-KV chunk.
struct MmaKeyTiles {
    KeyRange range;
    int count;
    int masked;
};
template <typename Tr>
__device__ __forceinline__ MmaKeyTiles mma_key_tiles(const FwdParams& p, const BlockInfo<typename Tr::T>& bi,
                                                     int m_start) {
    const KeyRange range = key_tile_range(p, bi, Tr::kBlockM, Tr::kBlockN);
    const int count = range.end - range.begin;
    return {range, count,
            count - unmasked_key_tiles(bi.position(m_start), range.begin, count, Tr::kBlockN, p.seqlen_k, p.causal)};
}

// A CTA's whole key loop: the prologue (Q and the highest key tile, the only partial ones, one
// commit group), then one mma_key_tile per key tile from the last one down, the masked ones
// first, with tile i+1's copies issued inside tile i (tiles.count > 0). Leaves this warp's unnormalized o, m, l.
// sQ: the shared layout Q | K stage 0 | K stage 1 | V stage 0 | V stage 1 (Tr::kStages = 2).
template <typename Tr>
__device__ __forceinline__ void mma_key_loop(uint32_t sQ, const BlockInfo<typename Tr::T>& bi, const MmaKeyTiles& tiles,
                                             int m_start, int tid,
                                             float (&o)[Tr::kMTiles][Tr::kNTilesO][4], float (&m)[Tr::kMTiles][2],
                                             float (&l)[Tr::kMTiles][2], const FwdParams& p) {
    using T = typename Tr::T;
    static_assert(Tr::kStages == 2, "the stage bookkeeping below flips between two stages");
    const uint32_t sK = sQ + Tr::kTileQBytes;
    const uint32_t sV = sK + Tr::kStages * Tr::kTileKVBytes;
    const int warp = tid / 32;
    const int lane = tid % 32;
    const KeyRange& keys = tiles.range;
    const int n_tiles = tiles.count;
    const int n_masked = tiles.masked;
    const int cp_row = tid / Tr::kChunksPerRow;
    const int cp_chunk = tid % Tr::kChunksPerRow;
    const uint32_t cp_off = static_cast<uint32_t>(swizzled_offset<Tr::kHeadDim>(cp_row, cp_chunk) * sizeof(T));
    if (bi.rows_per_pos == 1)
        cp_async_rows<Tr, Tr::kBlockM, true>(sQ + cp_off,
                                             bi.q + (m_start + cp_row) * p.q_row_stride + cp_chunk * kChunkElems,
                                             p.q_row_stride, cp_row, bi.rows - m_start, bi.q);
    else
        cp_async_q_packed<Tr>(sQ + cp_off, bi, p, m_start, cp_row, cp_chunk);
    // K and V from the CTA's first key tile on: inside the loop tiles count from keys.begin, so
    // that only n_tiles is carried (see mma_key_tile's mask).
    const T* k_base = bi.k + static_cast<int64_t>(keys.begin) * Tr::kBlockN * p.k_row_stride;
    const T* v_base = bi.v + static_cast<int64_t>(keys.begin) * Tr::kBlockN * p.v_row_stride;
    const int n_last = (n_tiles - 1) * Tr::kBlockN;
    const int keys_left = p.seqlen_k - keys.begin * Tr::kBlockN;  // keys from k_base on
    // The K/V source of a sweep is tile pointer (uniform: lives in uniform registers) + this
    // thread's 32-bit offset (cp_row < kCopyRowsPerPass, so it is small) + a uniform sweep stride.
    const int k_thread_off = cp_row * static_cast<int>(p.k_row_stride) + cp_chunk * kChunkElems;
    const int v_thread_off = cp_row * static_cast<int>(p.v_row_stride) + cp_chunk * kChunkElems;
    cp_async_rows<Tr, Tr::kBlockN, true>(sK + cp_off, k_base + n_last * p.k_row_stride + k_thread_off, p.k_row_stride,
                                         cp_row, keys_left - n_last, bi.k);
    cp_async_rows<Tr, Tr::kBlockN, true>(sV + cp_off, v_base + n_last * p.v_row_stride + v_thread_off, p.v_row_stride,
                                         cp_row, keys_left - n_last, bi.v);
    ptx::cp_async_commit_group();

    // Stage bookkeeping without per-iteration address math: v_addr points at the current V
    // stage, kv_dst at the other stage's K slot; both move by ±kTileKVBytes each iteration. K
    // and Q addresses are v_addr plus one register each (smem_swizzle.cuh).
    // Rung 10's warps read their own band of kWarpKeys keys of every K and V tile and all of Q's
    // rows; the band's offset is the same in both tiles, so k_delta does not change with it.
    const uint32_t warp_q = static_cast<uint32_t>((Tr::kKeySplitWarps ? 0 : warp * Tr::kWarpRows) * Tr::kRowBytes);
    const uint32_t warp_keys = static_cast<uint32_t>((Tr::kKeySplitWarps ? warp * Tr::kWarpKeys : 0) * Tr::kRowBytes);
    LdsmAddr<Tr::kRowBytes> v_addr(sV + warp_keys, lane);
    const int32_t k_delta = static_cast<int32_t>(sK - sV) + ldsm_chunks_first_delta<Tr::kRowBytes>(lane);
    int32_t q_delta = static_cast<int32_t>(sQ + warp_q - (sV + warp_keys));
    uint32_t kv_dst = sK + Tr::kTileKVBytes + cp_off;  // V's is kv_dst + (sV - sK)

    // This thread's first source chunk of the next K/V tile to load, stepped down one tile per
    // iteration: two 64-bit subtractions, where deriving it from the tile index cost ~37 integer
    // instructions per warp and tile (ncu source view, session 5); it also freed the registers
    // that made the 128x64 tile at d=128 spill (255 registers, 36 bytes -> 0).
    const T* k_next = k_base + (n_last - Tr::kBlockN) * p.k_row_stride + k_thread_off;
    const T* v_next = v_base + (n_last - Tr::kBlockN) * p.v_row_stride + v_thread_off;
    const int64_t k_tile_step = static_cast<int64_t>(Tr::kBlockN) * p.k_row_stride;
    const int64_t v_tile_step = static_cast<int64_t>(Tr::kBlockN) * p.v_row_stride;
    // Iteration i handles key tile keys.end-1-i, i.e. n_tiles-1-i counted from k_base.
    auto iteration = [&](int i, auto masked) {
        ptx::cp_async_wait_group<0>();
        // Publishes tile i to every warp and proves all warps are done with tile i-1, whose
        // stages the next loads overwrite.
        __syncthreads();
        const bool more = i + 1 < n_tiles;
        // Tile i+1's copies leave where this warp's shared-memory pipe is otherwise idle: K after
        // Q·Kᵀ's ldmatrix burst (right after the barrier every warp of the CTA issues it at once),
        // V after the softmax (MUFU and FMA work), one commit group for both.
        auto load_k = [&] {
            if (more) cp_async_rows<Tr, Tr::kBlockN, false>(kv_dst, opaque_ptr(k_next), p.k_row_stride, 0, 0, nullptr);
        };
        auto load_v = [&] {
            if (more) {
                cp_async_rows<Tr, Tr::kBlockN, false>(kv_dst + (sV - sK), opaque_ptr(v_next), p.v_row_stride, 0, 0,
                                                      nullptr);
                ptx::cp_async_commit_group();
            }
        };
        mma_key_tile<Tr, decltype(masked)::value>(v_addr, q_delta, k_delta, o, m, l, m_start,
                                                  (n_tiles - 1 - i) * Tr::kBlockN, p, load_k, load_v);
        k_next -= k_tile_step;
        v_next -= v_tile_step;
        const int32_t stage_step = (i & 1) ? -Tr::kTileKVBytes : Tr::kTileKVBytes;  // to the other stage
        v_addr.advance(stage_step);
        q_delta -= stage_step;
        kv_dst -= stage_step;
    };
    int i = 0;
    for (; i < n_masked; ++i) iteration(i, std::true_type{});
    for (; i < n_tiles; ++i) iteration(i, std::false_type{});

}

}  // namespace fa
