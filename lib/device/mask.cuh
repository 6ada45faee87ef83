// Causal masking, one rule for every rung: top-left alignment as in the CuTe DSL example and
// PyTorch's is_causal — query row i sees key j iff j <= i. Keys at or past seqlen_k are never
// visible (the tail of the last key tile).
#pragma once

#include <algorithm>

#include "fa/host_device.h"

namespace fa {

FA_HOST_DEVICE inline bool key_visible(int row, int col, int seqlen_k, bool causal) {
    return col < seqlen_k && (!causal || col <= row);
}

// The same rule as one bound per query position: the keys it sees are a prefix, key col visible iff
// col < visible_key_bound(pos, ...). The fragment masks (softmax_fragment.cuh, mask_fragment;
// wgmma_steps.cuh, mask_tile) compare each element against it instead of evaluating key_visible,
// and block_info.cuh's visible_keys cuts a row block's key range with it (tests/unit/test_mask.cpp
// holds it equal to key_visible).
FA_HOST_DEVICE inline int visible_key_bound(int pos, int seqlen_k, bool causal) {
    return causal ? std::min(seqlen_k, pos + 1) : seqlen_k;
}

// A key tile [n_start, n_start + block_n) needs per-element masking for a row block whose first
// row is query position first_pos (m_start, or m_start / heads_per_kv with packed GQA) only if it
// reaches past seqlen_k or, when causal, past that row's diagonal. Other tiles take the unmasked
// path (FlashAttention keeps the two loops apart).
FA_HOST_DEVICE inline bool tile_needs_mask(int first_pos, int n_start, int block_n, int seqlen_k, bool causal) {
    return n_start + block_n > seqlen_k || (causal && n_start + block_n - 1 > first_pos);
}

// How many of the key tiles [tile_begin, tile_begin + n_tiles) of block_n keys, from the first, need
// no mask: tile_needs_mask is false exactly for the tiles ending at or before visible_key_bound
// (first_pos, ...), a prefix of the key order (tests/unit/test_mask.cpp holds the two equal). Rungs 7
// and 9 (and rung 8's 192 x 64 tile) run those tiles in a loop whose softmax has no mask test
// (overlap_schedule.cuh); rung 3 (03_mma.cu) takes its masked suffix as n_tiles minus this (session
// 34 call 6: level against the tile-by-tile count it replaced).
FA_HOST_DEVICE inline int unmasked_key_tiles(int first_pos, int tile_begin, int n_tiles, int block_n, int seqlen_k,
                                             bool causal) {
    const int tiles = visible_key_bound(first_pos, seqlen_k, causal) / block_n - tile_begin;
    return std::max(0, std::min(n_tiles, tiles));
}

}  // namespace fa
