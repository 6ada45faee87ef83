// Host side of the Hopper rungs' TMA (rungs 5-7): the tensor maps that describe Q, K, V and O to
// the copy engine. Plain C++, compiled by the host compiler. libcuda is not linked, so fa-bench
// starts on machines with no driver: the encoder is taken from the driver at run time, the first
// time a Hopper kernel is launched.
#pragma once

#include <cuda.h>  // CUtensorMap and the cuTensorMapEncodeTiled enums only

#include "fa/params.h"

namespace fa {

// The four maps one launch receives, each as a __grid_constant__ kernel parameter.
struct FwdTensorMaps {
    CUtensorMap q, k, v, o;
};

// Rows of one TMA box per tensor (every box is 128 bytes wide, 128-byte swizzled: 64 columns of a
// 16-bit type, 128 of e4m3; FP8 problems have e4m3 Q, K, V maps and a bf16 O map).
struct TmaBoxRows {
    int q;   // the CTA's query tile
    int kv;  // one key tile (K and V alike)
    int o;   // what one consumer warpgroup stores
};

// Fills `maps` for the tensors of `p`. false if the driver has no cuTensorMapEncodeTiled or TMA
// cannot take the pointers or strides. Four ~µs driver calls: negligible next to any kernel worth
// measuring, so they are made on every launch.
bool encode_fwd_tensor_maps(const FwdParams& p, TmaBoxRows box_rows, FwdTensorMaps* maps);

// Rung 8's Vᵀ (FP8, its V pre-pass's copy): the e4m3 bytes at `vt`, laid out [batch][K/V heads]
// [head_dim][keys_padded] (rows of keys_padded bytes, a multiple of 16), as a 4-D map (keys,
// head_dim, K/V heads, batch) with boxes of `box_keys` keys (64: 64-byte swizzle, 128: 128-byte)
// by `box_rows` head_dim rows; keys past keys_padded read as zero.
bool encode_fp8_vt_map(const FwdParams& p, const void* vt, int keys_padded, int box_keys, int box_rows,
                       CUtensorMap* map);

}  // namespace fa
