// Where a CTA's tiles live: base pointers for (batch, head) and the causal key bound, computed
// once outside the main loop (FlashAttention's block_info.h idea).
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

}  // namespace fa
