// The epilogue of the mma.sync rungs (3, 4): a warp's normalized O accumulators leave through
// shared memory so that global memory sees 16-byte coalesced stores; the row log-sum-exp goes to
// FwdParams::lse when asked; a split-KV CTA writes its fp32 partials instead (fa/splitkv.h).
//
// Storing the m16n8 C fragments straight to global memory would take 8x as many 4-byte stores,
// each warp instruction touching eight half-used 32-byte sectors. Instead the warp packs O to 16
// bits into its own rows of a swizzled tile (4-byte stores, bank-conflict free), then reads them
// back by 16-byte chunks, lanes along a row, and writes whole rows. The fp32 partials of a split
// are written from the fragments directly: a quad's float2 stores cover 32 contiguous bytes of a
// row, so every sector a warp store touches is full, and the partials are a few hundred KB at the
// decode shapes split-KV is for.
#pragma once

#include <cstdint>

#include "device/block_info.cuh"
#include "device/online_softmax.cuh"
#include "device/ptx.cuh"
#include "device/smem_swizzle.cuh"

namespace fa {

// o: the warp's kMTiles m16 tiles x kHeadDim columns (lane L holds rows L/4 and L/4 + 8 of each,
// columns 2(L%4)+{0,1} of each n8 tile). tile: shared address of a swizzled kHeadDim-wide tile;
// the warp uses its rows warp_row .. warp_row + 16·kMTiles - 1, which no other warp may touch
// meanwhile (so warp barriers suffice; the caller makes sure its own earlier reads of them are
// done). Tile row r is row-space row m_start + r of the CTA (bi: where it lives in O); rows at
// or past bi.rows are not written.
template <typename T, int kHeadDim, int kMTiles>
__device__ __forceinline__ void store_o_fragment(const float (&o)[kMTiles][kHeadDim / 8][4], uint32_t tile,
                                                 int warp_row, int lane, const BlockInfo<T>& bi, int m_start,
                                                 const FwdParams& p) {
    constexpr int kWarpRows = 16 * kMTiles;
    constexpr int kChunksPerRow = kHeadDim / kChunkElems;
    constexpr int kRowsPerStore = 32 / kChunksPerRow;  // rows one warp-wide 16-byte store covers
    static_assert(kWarpRows % kRowsPerStore == 0, "whole store sweeps per warp");

    __syncwarp();
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int r = warp_row + 16 * mt + 8 * h + lane / 4;
#pragma unroll
            for (int nt = 0; nt < kHeadDim / 8; ++nt) {
                const uint32_t off = static_cast<uint32_t>(swizzled_offset<kHeadDim>(r, nt) * sizeof(T));
                ptx::st_shared_b32(tile + off + 4 * (lane % 4), ptx::pack2<T>(o[mt][nt][2 * h], o[mt][nt][2 * h + 1]));
            }
        }
    }
    __syncwarp();
    const int chunk = lane % kChunksPerRow;
    const int valid_rows = bi.rows - m_start;
#pragma unroll
    for (int it = 0; it < kWarpRows / kRowsPerStore; ++it) {
        const int r = warp_row + it * kRowsPerStore + lane / kChunksPerRow;
        const uint4 val =
            ptx::ld_shared_v4_b32(tile + static_cast<uint32_t>(swizzled_offset<kHeadDim>(r, chunk) * sizeof(T)));
        if (r < valid_rows)
            *reinterpret_cast<uint4*>(bi.o + bi.row_offset(m_start + r, p.o_row_stride, p.o_head_stride) +
                                      chunk * kChunkElems) = val;
    }
}

// Per-row log-sum-exp of the warp's rows (m: running max, l: whole row sum after
// normalize_fragment) into `dst` at each row's [batch][heads][seqlen_q] index plus `base` (a
// split's offset into lse_partial, else 0); one lane of each quad writes. row0: row-space row of
// this lane's [0][0] row.
template <typename T, int kMTiles>
__device__ __forceinline__ void store_lse_fragment(const float (&m)[kMTiles][2], const float (&l)[kMTiles][2],
                                                   float* dst, int64_t base, const BlockInfo<T>& bi,
                                                   const FwdParams& p, int row0, int lane) {
    if (lane % 4 != 0) return;
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int row = row0 + 16 * mt + 8 * h;
            if (row < bi.rows) dst[base + bi.lse_index(p, row)] = online_softmax_lse(m[mt][h], l[mt][h]);
        }
}

// A split-KV CTA's output: its normalized O (fp32) and LSE into the partials of its split.
template <typename T, int kHeadDim, int kMTiles>
__device__ __forceinline__ void store_split_fragment(const float (&o)[kMTiles][kHeadDim / 8][4],
                                                     const float (&m)[kMTiles][2], const float (&l)[kMTiles][2],
                                                     const BlockInfo<T>& bi, const FwdParams& p, int row0, int lane) {
    const int64_t base = static_cast<int64_t>(bi.split) * p.batch * p.heads * p.seqlen_q;
    store_lse_fragment(m, l, p.lse_partial, base, bi, p, row0, lane);
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int row = row0 + 16 * mt + 8 * h;
            if (row >= bi.rows) continue;
            float* dst = p.o_partial + (base + bi.lse_index(p, row)) * kHeadDim + 2 * (lane % 4);
#pragma unroll
            for (int nt = 0; nt < kHeadDim / 8; ++nt)
                *reinterpret_cast<float2*>(dst + 8 * nt) = make_float2(o[mt][nt][2 * h], o[mt][nt][2 * h + 1]);
        }
}

// Everything a mma.sync CTA writes at the end, after normalize_fragment: with split-KV the
// partials; otherwise O through `tile` (store_o_fragment's contract) and, if p.lse is set, the
// rows' LSE.
template <typename T, int kHeadDim, int kMTiles>
__device__ __forceinline__ void write_fragment_output(const float (&o)[kMTiles][kHeadDim / 8][4],
                                                      const float (&m)[kMTiles][2], const float (&l)[kMTiles][2],
                                                      uint32_t tile, int warp_row, int lane, const BlockInfo<T>& bi,
                                                      int m_start, const FwdParams& p) {
    const int row0 = m_start + warp_row + lane / 4;
    if (p.num_splits > 1) {
        store_split_fragment<T, kHeadDim, kMTiles>(o, m, l, bi, p, row0, lane);
        return;
    }
    store_o_fragment<T, kHeadDim, kMTiles>(o, tile, warp_row, lane, bi, m_start, p);
    if (p.lse != nullptr) store_lse_fragment(m, l, p.lse, 0, bi, p, row0, lane);
}

}  // namespace fa
