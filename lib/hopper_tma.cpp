#include "hopper_tma.h"

#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled_v12000
#include <cuda_runtime.h>  // cudaGetDriverEntryPointByVersion

#include <cstdint>

namespace fa {
namespace {

// cuTensorMapEncodeTiled, looked up once; nullptr if the driver does not have it.
PFN_cuTensorMapEncodeTiled_v12000 encode_tiled_fn() {
    static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
        void* ptr = nullptr;
        cudaDriverEntryPointQueryResult query = cudaDriverEntryPointSymbolNotFound;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &ptr, 12000, cudaEnableDefault, &query) !=
                cudaSuccess ||
            query != cudaDriverEntryPointSuccess)
            return static_cast<PFN_cuTensorMapEncodeTiled_v12000>(nullptr);
        return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(ptr);
    }();
    return fn;
}

// What TMA calls an element of `dtype`, and its size. e4m3 is moved as bytes (UINT8): TMA copies,
// it does not convert.
struct TmaElement {
    CUtensorMapDataType type;
    cuuint64_t bytes;
};
TmaElement tma_element(DType dtype) {
    switch (dtype) {
        case DType::BFloat16: return {CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2};
        case DType::Float16: return {CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2};
        case DType::Float32: return {CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4};
        case DType::Float8E4M3FN: return {CU_TENSOR_MAP_DATA_TYPE_UINT8, 1};
    }
    return {CU_TENSOR_MAP_DATA_TYPE_UINT8, 1};
}

// Columns of one box row: 128 bytes, the 128-byte swizzle span (64 16-bit, 128 8-bit elements).
cuuint32_t box_cols(DType dtype) { return static_cast<cuuint32_t>(128 / tma_element(dtype).bytes); }

// A map over Q, K, V or O as TMA sees it, innermost dimension first: `dims` elements and `strides`
// (elements) of dimensions 1.. (dimension 0, head_dim, is contiguous), a box of box_cols columns (128
// bytes) by `box` in the other dimensions, 128-byte swizzle (what the wgmma descriptors in
// device/hopper.cuh expect), out-of-bounds elements read as zero (CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
// and clipped on store.
bool encode_map(CUtensorMap* map, DType dtype, const void* base, int rank, const cuuint64_t* dims,
                const int64_t* strides, const cuuint32_t* box,
                CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_128B) {
    const auto encode = encode_tiled_fn();
    if (encode == nullptr) return false;
    const TmaElement element = tma_element(dtype);
    const cuuint64_t elem = element.bytes;
    // Byte strides of dims 1.. (TMA: multiples of 16, < 2^40; not required to grow with the
    // dimension index, which is what lets bshd's head stride be smaller than its row stride). A
    // size-1 dimension's stride is never applied: give it a valid value whatever the caller set.
    cuuint64_t byte_strides[4];
    for (int i = 0; i + 1 < rank; ++i) byte_strides[i] = dims[i + 1] == 1 ? 16 : cuuint64_t(strides[i]) * elem;
    cuuint32_t elem_strides[5] = {1, 1, 1, 1, 1};
    const CUresult r = encode(map, element.type, rank, const_cast<void*>(base), dims, byte_strides, box, elem_strides,
                              CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                              CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r == CUDA_SUCCESS;
}

// K or V: 4-D (head_dim, seqlen_k, K/V heads, batch), boxes of `rows` keys, in the input dtype.
bool encode_kv_map(CUtensorMap* map, const FwdParams& p, const void* base, int64_t row_stride, int64_t head_stride,
                   int64_t batch_stride, int rows) {
    const cuuint64_t dims[4] = {cuuint64_t(p.head_dim), cuuint64_t(p.seqlen_k), cuuint64_t(p.heads_kv),
                                cuuint64_t(p.batch)};
    const int64_t strides[3] = {row_stride, head_stride, batch_stride};
    const cuuint32_t box[4] = {box_cols(p.dtype), cuuint32_t(rows), 1, 1};
    return encode_map(map, p.dtype, base, 4, dims, strides, box);
}

// Q or O: 5-D (head_dim, g, seqlen_q, head slots, batch) with g = heads_per_kv when GQA heads are
// packed into the row blocks (device/block_info.cuh), else 1. A box of `rows` rows is rows / g
// positions of the g heads of one slot, position-major: row m of the box is position m / g of
// head m % g, exactly the packed row space, so one copy serves both cases (g = 1: the plain tile).
// `dtype`: the input dtype for Q, output_dtype for O (FP8: e4m3 Q, bf16 O).
bool encode_q_map(CUtensorMap* map, const FwdParams& p, DType dtype, const void* base, int64_t row_stride,
                  int64_t head_stride, int64_t batch_stride, int rows) {
    const int g = p.pack_gqa ? p.heads_per_kv : 1;
    if (rows % g != 0) return false;
    const cuuint64_t dims[5] = {cuuint64_t(p.head_dim), cuuint64_t(g), cuuint64_t(p.seqlen_q),
                                cuuint64_t(p.heads / g), cuuint64_t(p.batch)};
    const int64_t strides[4] = {head_stride, row_stride, g * head_stride, batch_stride};
    const cuuint32_t box[5] = {box_cols(dtype), cuuint32_t(g), cuuint32_t(rows / g), 1, 1};
    return encode_map(map, dtype, base, 5, dims, strides, box);
}

}  // namespace

bool encode_fp8_vt_map(const FwdParams& p, const void* vt, int keys_padded, int box_keys, int box_rows,
                       CUtensorMap* map) {
    if (box_keys != 64 && box_keys != 128) return false;
    const cuuint64_t dims[4] = {cuuint64_t(keys_padded), cuuint64_t(p.head_dim), cuuint64_t(p.heads_kv),
                                cuuint64_t(p.batch)};
    const int64_t strides[3] = {keys_padded, int64_t(p.head_dim) * keys_padded,
                                int64_t(p.heads_kv) * p.head_dim * keys_padded};
    const cuuint32_t box[4] = {cuuint32_t(box_keys), cuuint32_t(box_rows), 1, 1};
    return encode_map(map, DType::Float8E4M3FN, vt, 4, dims, strides, box,
                      box_keys == 64 ? CU_TENSOR_MAP_SWIZZLE_64B : CU_TENSOR_MAP_SWIZZLE_128B);
}

bool encode_fwd_tensor_maps(const FwdParams& p, TmaBoxRows box_rows, FwdTensorMaps* maps) {
    return encode_q_map(&maps->q, p, p.dtype, p.q, p.q_row_stride, p.q_head_stride, p.q_batch_stride, box_rows.q) &&
           encode_kv_map(&maps->k, p, p.k, p.k_row_stride, p.k_head_stride, p.k_batch_stride, box_rows.kv) &&
           encode_kv_map(&maps->v, p, p.v, p.v_row_stride, p.v_head_stride, p.v_batch_stride, box_rows.kv) &&
           encode_q_map(&maps->o, p, output_dtype(p.dtype), p.o, p.o_row_stride, p.o_head_stride, p.o_batch_stride,
                        box_rows.o);
}

}  // namespace fa
