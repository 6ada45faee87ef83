// Where a CTA's tiles live — its row block, heads, batch, split and key range — computed once
// outside the main loop (FlashAttention's block_info.h idea), for every fused rung.
//
// Grid convention (launch.cuh: fwd_grid):
//   blockIdx.x = m_block + m_blocks · (head_slot + head_slots · batch)   (lpt_group 1)
//   blockIdx.y = split                                   (0 when split-KV is off)
// Batch and heads are folded into x, whose limit is 2^31 − 1, so no problem size runs into the
// 65535 limit of grid.y / grid.z. With lpt_group 1 consecutive x are the row blocks of one
// (batch, head), as with the old 3-D grid; causal problems interleave the row blocks of
// lpt_group head slots (fa/grid_order.h, grid_tile).
//
// Rows. Without packing a head slot is a query head and row m of the row space is query position
// m. With packed GQA (FwdParams::pack_gqa) a head slot is a K/V head and its heads_per_kv query
// heads share the row space, position-major: row m is query position m / heads_per_kv of query
// head kv_head · heads_per_kv + m % heads_per_kv. A decode step (seqlen_q = 1) with 8 query heads
// per K/V head then fills 8 rows of a tile instead of 1, and each K/V tile is read once per group.
#pragma once

#include "device/mask.cuh"
#include "device/ptx.cuh"
#include "fa/grid_order.h"
#include "fa/params.h"

namespace fa {

// Rows of one head slot's row space: seqlen_q, or seqlen_q · heads_per_kv when packed.
__host__ __device__ __forceinline__ int fwd_rows(const FwdParams& p) {
    return p.pack_gqa ? p.seqlen_q * p.heads_per_kv : p.seqlen_q;
}
// Head slots per batch entry: query heads, or K/V heads when packed.
__host__ __device__ __forceinline__ int fwd_head_slots(const FwdParams& p) {
    return p.pack_gqa ? p.heads_kv : p.heads;
}
__host__ __device__ __forceinline__ int fwd_row_blocks(const FwdParams& p, int block_m) {
    return (fwd_rows(p) + block_m - 1) / block_m;
}
// Tiles of fwd_grid's x: row blocks · head slots · batch (the host's fwd_grid counts them in 64 bits
// to refuse a grid past 2^31 − 1 before any kernel computes this).
__host__ __device__ __forceinline__ int fwd_grid_tiles(const FwdParams& p, int block_m) {
    return fwd_row_blocks(p, block_m) * fwd_head_slots(p) * p.batch;
}

template <typename T>
struct BlockInfo {
    const T* q;  // row space row 0 in Q: (batch, first query head of the slot, position 0)
    const T* k;  // (batch, K/V head, key 0)
    const T* v;
    T* o;        // as q, in O
    int m_block;      // row block: rows [m_block · block_m, (m_block + 1) · block_m)
    int split;        // split-KV chunk (0 when off)
    int batch;
    int head;         // query head of row space row 0 (the group's first when packed)
    int rows_per_pos;  // rows per query position: heads_per_kv when packed, else 1
    int rows;          // rows of the row space (fwd_rows)

    // reverse_m: launch the last row blocks first (causal: they see the most keys, so the tail
    // wave is shorter), interleaved over p.lpt_group head slots (fa/grid_order.h). fresh: read
    // the block index with a volatile mov (ptx::ctaid_x) so that a BlockInfo built again in an
    // epilogue is recomputed there rather than kept in registers across the main loop from an
    // earlier one.
    __device__ __forceinline__ BlockInfo(const FwdParams& p, int block_m, bool reverse_m, bool fresh = false)
        : BlockInfo(p, block_m, reverse_m, fresh ? ptx::ctaid_x() : static_cast<int>(blockIdx.x),
                    fresh ? ptx::ctaid_y() : static_cast<int>(blockIdx.y)) {}

    // The tile at grid position (x, y) of fwd_grid: a persistent kernel's work item (rung 9).
    __device__ __forceinline__ BlockInfo(const FwdParams& p, int block_m, bool reverse_m, int x, int y) {
        const int m_blocks = fwd_row_blocks(p, block_m);
        const int slots = fwd_head_slots(p);
        const GridTile g = grid_tile(x, m_blocks, slots * p.batch, reverse_m ? p.lpt_group : 1);
        const int mb = g.m_block;
        const int slot_batch = g.slot_batch;
        const int slot = slot_batch % slots;
        batch = slot_batch / slots;
        m_block = reverse_m ? m_blocks - 1 - mb : mb;
        split = y;
        rows_per_pos = p.pack_gqa ? p.heads_per_kv : 1;
        rows = fwd_rows(p);
        head = p.pack_gqa ? slot * p.heads_per_kv : slot;
        const int64_t b = batch, h = head, h_kv = head / p.heads_per_kv;
        q = static_cast<const T*>(p.q) + b * p.q_batch_stride + h * p.q_head_stride;
        k = static_cast<const T*>(p.k) + b * p.k_batch_stride + h_kv * p.k_head_stride;
        v = static_cast<const T*>(p.v) + b * p.v_batch_stride + h_kv * p.v_head_stride;
        o = static_cast<T*>(p.o) + b * p.o_batch_stride + h * p.o_head_stride;
    }

    // Query position of row m (m / heads_per_kv when packed).
    __device__ __forceinline__ int position(int m) const { return rows_per_pos == 1 ? m : m / rows_per_pos; }

    // Element offset of row m from q (q_rows) or o (o_rows): its position's row, its head's column.
    __device__ __forceinline__ int64_t row_offset(int m, int64_t row_stride, int64_t head_stride) const {
        if (rows_per_pos == 1) return m * row_stride;
        const int pos = m / rows_per_pos;
        return pos * row_stride + (m - pos * rows_per_pos) * head_stride;
    }

    // Index of row m in the [batch][heads][seqlen_q] arrays (lse) and, plus split·batch·heads·seqlen_q,
    // in the split partials.
    __device__ __forceinline__ int64_t lse_index(const FwdParams& p, int m) const {
        const int pos = position(m);
        const int h = head + (m - pos * rows_per_pos);
        return (static_cast<int64_t>(batch) * p.heads + h) * p.seqlen_q + pos;
    }
};

// Keys a row block can see: all seqlen_k, or with the top-left causal mask up to its last row's
// position (keys beyond it are masked for every row of the block, so their tiles are skipped).
// mask.cuh's visible_key_bound, for a launch's parameters.
__device__ __forceinline__ int visible_keys(const FwdParams& p, int last_position) {
    return visible_key_bound(last_position, p.seqlen_k, p.causal);
}

// The key tiles [begin, end) one CTA visits. Split-KV cuts the seqlen_k / block_n key tiles of a
// row block into num_splits chunks of ceil(tiles / num_splits) (the host heuristic counts in the
// same units, fa/splitkv.h), then the causal bound cuts the chunk; a chunk may end up empty
// (begin >= end), and the CTA must still write its partial (zeros, lse = -inf).
struct KeyRange {
    int begin, end;
};

// First key tile of split `split` (0 without split-KV).
__device__ __forceinline__ int split_first_tile(const FwdParams& p, int split, int block_n) {
    if (p.num_splits <= 1) return 0;
    const int all_tiles = (p.seqlen_k + block_n - 1) / block_n;
    return split * ((all_tiles + p.num_splits - 1) / p.num_splits);
}

template <typename T>
__device__ __forceinline__ KeyRange key_tile_range(const FwdParams& p, const BlockInfo<T>& bi, int block_m,
                                                   int block_n) {
    const int last_row = min((bi.m_block + 1) * block_m, bi.rows) - 1;
    const int tiles = (visible_keys(p, bi.position(last_row)) + block_n - 1) / block_n;
    if (p.num_splits <= 1) return {0, tiles};
    const int all_tiles = (p.seqlen_k + block_n - 1) / block_n;
    const int begin = split_first_tile(p, bi.split, block_n);
    return {begin, min(tiles, begin + (all_tiles + p.num_splits - 1) / p.num_splits)};
}

// The CTA's work in tensor coordinates (what TMA addresses), for the Hopper rungs: the same grid
// decode as BlockInfo, without pointers. Every coordinate a Hopper kernel uses comes from here.
struct BlockCoords {
    int m_start;         // first row-space row of the CTA's tile (row blocks in reverse: heaviest causal first)
    int head;            // query head of row-space row 0 (the group's first when packed)
    int head_kv;         // the K/V head it reads
    int q_slot;          // Q/O tensor-map head coordinate: head, or head_kv when packed (lib/hopper_tma.cpp)
    int batch;
    int split;           // split-KV chunk (0 when off)
    int key_tile_begin;  // key tiles [key_tile_begin, key_tile_end) of block_n keys this CTA visits
    int key_tile_end;

    // Zeros, for a copy the caller fills in (rung 9's consumers read the producer's decode).
    __device__ __forceinline__ BlockCoords()
        : m_start(0), head(0), head_kv(0), q_slot(0), batch(0), split(0), key_tile_begin(0), key_tile_end(0) {}
    // fresh: as BlockInfo's, for an epilogue that derives the coordinates again rather than keeping
    // them in registers through the main loop.
    __device__ __forceinline__ BlockCoords(const FwdParams& p, int block_m, int block_n, bool fresh = false)
        : BlockCoords(p, block_n, BlockInfo<char>(p, block_m, true, fresh), block_m) {}
    // Grid position (x, y) of fwd_grid: a persistent kernel's work item (rung 9).
    __device__ __forceinline__ BlockCoords(const FwdParams& p, int block_m, int block_n, int x, int y)
        : BlockCoords(p, block_n, BlockInfo<char>(p, block_m, true, x, y), block_m) {}

  private:
    __device__ __forceinline__ BlockCoords(const FwdParams& p, int block_n, const BlockInfo<char>& bi, int block_m) {
        m_start = bi.m_block * block_m;
        head = bi.head;
        head_kv = bi.head / p.heads_per_kv;
        q_slot = p.pack_gqa ? head_kv : head;
        batch = bi.batch;
        split = bi.split;
        const KeyRange keys = key_tile_range(p, bi, block_m, block_n);
        key_tile_begin = keys.begin;
        key_tile_end = keys.end;
    }

  public:
    // How many key tiles the CTA visits (<= 0 for an empty split); kernels count them t = 0 .. key_tiles() - 1.
    __device__ __forceinline__ int key_tiles() const { return key_tile_end - key_tile_begin; }
};

// The tail split (FwdParams::tail_tiles, fa/splitkv.h): a kernel launched for the split tiles alone
// (rung 8 builds its kernel for that too) runs, at grid x, key chunk x % tail_splits of split tile
// x / tail_splits, whose fwd_grid x follows the grid's unsplit tiles.
struct TailChunk {
    int tile_x;      // the tile, as fwd_grid's x
    int split;       // its key chunk
    int tail_index;  // which split tile, 0 .. tail_tiles - 1
};
__device__ __forceinline__ TailChunk tail_chunk(const FwdParams& p, int block_m, int x) {
    const int i = x / p.tail_splits;
    return {fwd_grid_tiles(p, block_m) - p.tail_tiles + i, x - i * p.tail_splits, i};
}

// Work items of a persistent kernel's list with a tail split (rung 9): fwd_grid's unsplit tiles,
// then each split tile's tail_splits chunks (the host sizes its grid with it too).
__host__ __device__ __forceinline__ int tail_work_items(const FwdParams& p, int block_m) {
    return fwd_grid_tiles(p, block_m) - p.tail_tiles + p.tail_tiles * p.tail_splits;
}

// A chunk's coordinates: its tile's, the key range cut to chunk `split` of ceil(tiles / tail_splits)
// key tiles (the last may be shorter; a causal one could be empty).
__device__ __forceinline__ BlockCoords tail_chunk_coords(const FwdParams& p, int block_m, int block_n,
                                                         const TailChunk& g) {
    BlockCoords blk(p, block_m, block_n, g.tile_x, 0);
    const int tiles = max(blk.key_tiles(), 0), chunk = (tiles + p.tail_splits - 1) / p.tail_splits;
    const int end = blk.key_tile_end;
    blk.key_tile_begin += min(g.split * chunk, tiles);
    blk.key_tile_end = min(blk.key_tile_begin + chunk, end);
    blk.split = g.split;
    return blk;
}

// Rows of the row space per query position: heads_per_kv with packed GQA, else 1. Read from the
// kernel parameters where it is used, so it costs no register through a main loop.
__device__ __forceinline__ int rows_per_position(const FwdParams& p) { return p.pack_gqa ? p.heads_per_kv : 1; }

// The query position of row-space row m, by a shift: packing needs heads_per_kv to divide 64
// (launch_plan.cpp, packs_gqa), so it is a power of two. A division here compiled to ~20
// instructions with an I2F / MUFU.RCP / F2I chain that ptxas scheduled into the Hopper rungs'
// issue window, between the token's bar.sync and the last wgmma of a batch (session 10).
__device__ __forceinline__ int position_of_row(const FwdParams& p, int m) {
    return p.pack_gqa ? m >> (__ffs(p.heads_per_kv) - 1) : m;
}

}  // namespace fa
