// The epilogue of the mma.sync rungs (3, 4): a warp's normalized O accumulators leave through
// shared memory so that global memory sees 16-byte coalesced stores.
//
// Storing the m16n8 C fragments straight to global memory would take 8x as many 4-byte stores,
// each warp instruction touching eight half-used 32-byte sectors. Instead the warp packs O to 16
// bits into its own rows of a swizzled tile (4-byte stores, bank-conflict free), then reads them
// back by 16-byte chunks, lanes along a row, and writes whole rows.
#pragma once

#include <cstdint>

#include "device/ptx.cuh"
#include "device/smem_swizzle.cuh"

namespace fa {

// o: the warp's kMTiles m16 tiles x kHeadDim columns (lane L holds rows L/4 and L/4 + 8 of each,
// columns 2(L%4)+{0,1} of each n8 tile). tile: shared address of a swizzled kHeadDim-wide tile;
// the warp uses its rows warp_row .. warp_row + 16·kMTiles - 1, which no other warp may touch
// meanwhile (so warp barriers suffice; the caller makes sure its own earlier reads of them are
// done). o_tile: global row of tile row 0; rows at or past valid_rows are not written.
template <typename T, int kHeadDim, int kMTiles>
__device__ __forceinline__ void store_o_fragment(const float (&o)[kMTiles][kHeadDim / 8][4], uint32_t tile,
                                                 int warp_row, int lane, T* o_tile, int64_t o_row_stride,
                                                 int valid_rows) {
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
#pragma unroll
    for (int it = 0; it < kWarpRows / kRowsPerStore; ++it) {
        const int r = warp_row + it * kRowsPerStore + lane / kChunksPerRow;
        const uint4 val =
            ptx::ld_shared_v4_b32(tile + static_cast<uint32_t>(swizzled_offset<kHeadDim>(r, chunk) * sizeof(T)));
        if (r < valid_rows) *reinterpret_cast<uint4*>(o_tile + r * o_row_stride + chunk * kChunkElems) = val;
    }
}

}  // namespace fa
