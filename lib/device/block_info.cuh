// Where a CTA's tiles live, computed once outside the main loop (FlashAttention's block_info.h
// idea): base pointers for (batch, head) for the rungs that load through pointers (1-4), tensor
// coordinates for the ones that load through TMA (5-7), and the causal key bound.
#pragma once

#include "fa/params.h"

namespace fa {

// Grid convention of every tiled rung: blockIdx.x = query tile, blockIdx.y = head, blockIdx.z = batch.
template <typename T>
struct BlockInfo {
    const T* q;  // row 0 of this (batch, head) in Q; row r is at q + r * q_row_stride
    const T* k;
    const T* v;
    T* o;

    __device__ __forceinline__ explicit BlockInfo(const FwdParams& p) {
        const int64_t b = blockIdx.z, h = blockIdx.y;
        q = static_cast<const T*>(p.q) + b * p.q_batch_stride + h * p.q_head_stride;
        k = static_cast<const T*>(p.k) + b * p.k_batch_stride + h * p.k_head_stride;
        v = static_cast<const T*>(p.v) + b * p.v_batch_stride + h * p.v_head_stride;
        o = static_cast<T*>(p.o) + b * p.o_batch_stride + h * p.o_head_stride;
    }
};

// Number of key tiles a query tile must visit. Causal, top-left: the last query row of the tile,
// m_start + kBlockM - 1, sees keys up to that index, so tiles past it are skipped entirely.
__device__ __forceinline__ int num_key_tiles(const FwdParams& p, int m_start, int block_m, int block_n) {
    int keys = p.seqlen_k;
    if (p.causal) keys = min(keys, m_start + block_m);
    return (keys + block_n - 1) / block_n;
}

// The CTA's work in tensor coordinates (what TMA addresses), decoded from the grid in this one
// place: x = query tile, reversed so that the heaviest causal tiles start first; y = query head;
// z = batch. Every coordinate a Hopper kernel uses comes from here, so a kernel that maps heads
// or key ranges differently changes this struct, not the kernels.
struct BlockCoords {
    int m_start;         // first query row of the CTA's tile
    int head;            // query head: the Q rows it reads and the O rows it writes
    int head_kv;         // the K/V head it reads: `head` (FwdParams has a K/V head per query head)
    int batch;
    int key_tile_begin;  // key tiles [key_tile_begin, key_tile_end) of block_n keys: all the
    int key_tile_end;    // tiles the causal mask leaves visible (num_key_tiles)

    __device__ __forceinline__ BlockCoords(const FwdParams& p, int block_m, int block_n)
        : m_start((gridDim.x - 1 - blockIdx.x) * block_m),
          head(blockIdx.y),
          head_kv(blockIdx.y),
          batch(blockIdx.z),
          key_tile_begin(0),
          key_tile_end(num_key_tiles(p, m_start, block_m, block_n)) {}

    // How many key tiles the CTA visits; kernels count them t = 0 .. key_tiles() - 1.
    __device__ __forceinline__ int key_tiles() const { return key_tile_end - key_tile_begin; }
};

}  // namespace fa
