// XOR swizzle of 16-byte chunks in shared-memory tiles (seed 004, "Swizzling"), shared by rungs 3-4.
//
// A Q/K/V/O tile is stored row-major in shared memory with a pitch of kHeadDim 16-bit elements
// (128 B at head_dim 64, 256 B at head_dim 128). Without a swizzle, the eight row addresses one
// ldmatrix phase reads (rows r..r+7, same 16-byte column chunk) all start a multiple of 128 B apart
// and land in the same four banks: an 8-way conflict. Storing chunk c of row r at chunk
// c ^ (r & 7) spreads those eight reads over all 32 banks. The same permutation keeps the
// cp.async writes (eight lanes covering chunks 0..7 of one row) and the epilogue's 4-byte
// fragment stores and 16-byte reads conflict-free, so every access to a tile uses it.
//
// Only the low three bits of the chunk index are permuted, i.e. within each 128-byte segment of
// a row; bit 3 and above (head_dim 128's second segment) pass through unchanged.
#pragma once

#include <cstdint>

namespace fa {

// 16-bit elements per 16-byte chunk: the unit of cp.async, ldmatrix rows and vector stores.
inline constexpr int kChunkElems = 8;

// Physical chunk of logical chunk `chunk` in row `row`.
__device__ __forceinline__ int swizzle_chunk(int row, int chunk) { return chunk ^ (row & 7); }

// Element offset of (row, first element of logical chunk `chunk`) in a tile of pitch kRowElems.
template <int kRowElems>
__device__ __forceinline__ int swizzled_offset(int row, int chunk) {
    static_assert(kRowElems % 64 == 0, "the 8-chunk XOR needs rows that are whole 128-byte segments");
    return row * kRowElems + swizzle_chunk(row, chunk) * kChunkElems;
}

// Per-lane ldmatrix.x4 addresses on a swizzled tile (seed 004's "reducing IADD3/LOP3/SHF" step).
// An ldmatrix.x4 here always reads a 16-row band (starting at a multiple of 16) and one chunk
// pair (chunks 2p, 2p+1); lanes 8i..8i+7 give the row addresses of matrix i. Two matrix orders
// are needed, and both keep row & 7 = L & 7:
//   kRowsFirst:   matrices (rows 0-7, 2p), (rows 8-15, 2p), (rows 0-7, 2p+1), (rows 8-15, 2p+1);
//                 lane L: row L%16, chunk 2p + L/16. Gives a0..a3 of an A operand (Q), and, with
//                 .trans, {b0,b1} of n-tile 2p then of 2p+1 for a row-major B (V).
//   kChunksFirst: matrices (rows 0-7, 2p), (rows 0-7, 2p+1), (rows 8-15, 2p), (rows 8-15, 2p+1);
//                 lane L: row (L&7) + 8·(L/16), chunk 2p + (L/8)%2. Gives {b0,b1} of the n-tile of
//                 rows 0-7, then of rows 8-15, for a B operand stored n-major (K). The other order
//                 would leave each n-tile's b0,b1 in non-adjacent registers, and mma.sync needs an
//                 aligned register pair: ptxas then pays a MOV per operand (measured: ~250 extra
//                 MOV/IMAD.MOV per key tile at d=128).
// With chunk bit 0 = c0 (L/16 or (L/8)%2) and x = L & 7, the physical chunk is
//   (2p + c0) ^ x = 8·(p >> 2) + ((2·(p & 3)) ^ (x & 6)) + (c0 ^ (x & 1)),
// because bit 0 of 2p is free (so + c0 is an OR) and the XOR cannot reach bit 3. Two consequences:
//   - only p & 3 needs a runtime XOR: four addresses per lane, computed once, turn every ldmatrix
//     address into register + compile-time immediate (band and p >> 2 fold into the immediate);
//   - the two orders differ per lane by a constant that does not depend on p (only the row and
//     the c0 term differ), so one set of four addresses serves Q, K and V tiles alike, offset by
//     one register each (ldsm_chunks_first_delta). At 255 registers per thread that matters:
//     twelve loop-carried addresses would be live through the softmax, where pressure peaks.
enum class LdsmOrder { kRowsFirst, kChunksFirst };

// Row (within the 16-row band) and chunk bit 0 that lane L addresses in each order.
template <LdsmOrder kOrder>
__device__ __forceinline__ int ldsm_lane_row(int lane) {
    return kOrder == LdsmOrder::kRowsFirst ? lane % 16 : (lane & 7) + 8 * (lane / 16);
}

template <LdsmOrder kOrder>
__device__ __forceinline__ int ldsm_lane_c0(int lane) {
    return kOrder == LdsmOrder::kRowsFirst ? lane / 16 : (lane / 8) % 2;
}

// The four kRowsFirst addresses of one tile (q = pair & 3). advance() moves them to another stage
// of a multi-buffered tile: a ring of stages costs one IADD per address per key tile.
template <int kRowBytes>
struct LdsmAddr {
    static_assert(kRowBytes % 128 == 0, "the 8-chunk XOR needs rows that are whole 128-byte segments");

    uint32_t a[4];  // tile + (L % 16) * kRowBytes + ((2q + L/16) ^ (L & 7)) * 16, in bytes

    // tile: 32-bit shared address of the tile's row 0 (16-row aligned).
    __device__ __forceinline__ LdsmAddr(uint32_t tile, int lane) {
        const int r = ldsm_lane_row<LdsmOrder::kRowsFirst>(lane);
        const int c0 = ldsm_lane_c0<LdsmOrder::kRowsFirst>(lane);
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            a[q] = tile + static_cast<uint32_t>(r * kRowBytes + (((2 * q + c0) ^ (lane & 7)) * 16));
        }
    }

    // Address for the 16-row band `band` (rows 16·band..) and chunk pair `pair` (chunks 2·pair,
    // 2·pair+1), plus `delta` (another tile, or the kChunksFirst order). band and pair are
    // compile-time constants in the unrolled loops and fold into the ldmatrix immediate.
    __device__ __forceinline__ uint32_t operator()(int band, int pair, int32_t delta = 0) const {
        return a[pair & 3] + static_cast<uint32_t>(delta) +
               static_cast<uint32_t>(band * 16 * kRowBytes + (pair >> 2) * 128);
    }

    __device__ __forceinline__ void advance(int32_t bytes) {
#pragma unroll
        for (int q = 0; q < 4; ++q) a[q] += static_cast<uint32_t>(bytes);
    }
};

// kChunksFirst address minus kRowsFirst address of the same lane, band and pair (see above).
template <int kRowBytes>
__device__ __forceinline__ int32_t ldsm_chunks_first_delta(int lane) {
    const int x0 = lane & 1;
    const int dr = ldsm_lane_row<LdsmOrder::kChunksFirst>(lane) -
                   ldsm_lane_row<LdsmOrder::kRowsFirst>(lane);
    const int dc = (ldsm_lane_c0<LdsmOrder::kChunksFirst>(lane) ^ x0) - (ldsm_lane_c0<LdsmOrder::kRowsFirst>(lane) ^ x0);
    return dr * kRowBytes + dc * 16;
}

}  // namespace fa
