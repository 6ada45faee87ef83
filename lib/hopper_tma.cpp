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

// A 4-D map over one of Q/K/V/O: dims (head_dim, seqlen, heads, batch), element strides from
// FwdParams (so bshd and bhsd are the same code), box (64 columns = 128 bytes, box_rows, 1, 1),
// 128-byte swizzle (what the wgmma descriptors in device/hopper.cuh expect), out-of-bounds
// elements read as zero (CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) and clipped on store.
bool encode_map(CUtensorMap* map, DType dtype, const void* base, int head_dim, int seqlen, int heads, int batch,
                int64_t row_stride, int64_t head_stride, int64_t batch_stride, int box_rows) {
    const auto encode = encode_tiled_fn();
    if (encode == nullptr) return false;
    const cuuint64_t elem = 2;
    cuuint64_t dims[4] = {cuuint64_t(head_dim), cuuint64_t(seqlen), cuuint64_t(heads), cuuint64_t(batch)};
    // Byte strides of dims 1..3 (TMA: multiples of 16, < 2^40; not required to grow with the
    // dimension index, which is what lets bshd's head stride be smaller than its row stride). A
    // size-1 dimension's stride is never applied: give it a valid value whatever the caller set.
    cuuint64_t strides[3] = {cuuint64_t(row_stride) * elem, cuuint64_t(head_stride) * elem,
                             cuuint64_t(batch_stride) * elem};
    for (int i = 0; i < 3; ++i)
        if (dims[i + 1] == 1) strides[i] = 16;
    cuuint32_t box[4] = {64, cuuint32_t(box_rows), 1, 1};
    cuuint32_t elem_strides[4] = {1, 1, 1, 1};
    const CUtensorMapDataType type =
        dtype == DType::BFloat16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    const CUresult r = encode(map, type, 4, const_cast<void*>(base), dims, strides, box, elem_strides,
                              CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                              CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r == CUDA_SUCCESS;
}

}  // namespace

bool encode_fwd_tensor_maps(const FwdParams& p, TmaBoxRows box_rows, FwdTensorMaps* maps) {
    return encode_map(&maps->q, p.dtype, p.q, p.head_dim, p.seqlen_q, p.heads, p.batch, p.q_row_stride,
                      p.q_head_stride, p.q_batch_stride, box_rows.q) &&
           encode_map(&maps->k, p.dtype, p.k, p.head_dim, p.seqlen_k, p.heads, p.batch, p.k_row_stride,
                      p.k_head_stride, p.k_batch_stride, box_rows.kv) &&
           encode_map(&maps->v, p.dtype, p.v, p.head_dim, p.seqlen_k, p.heads, p.batch, p.v_row_stride,
                      p.v_head_stride, p.v_batch_stride, box_rows.kv) &&
           encode_map(&maps->o, p.dtype, p.o, p.head_dim, p.seqlen_q, p.heads, p.batch, p.o_row_stride,
                      p.o_head_stride, p.o_batch_stride, box_rows.o);
}

}  // namespace fa
