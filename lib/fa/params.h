// FwdParams: the one struct every forward kernel receives.
//
// Strides are in elements, so one kernel body serves both tensor layouts:
//   bshd (batch, seqlen, heads, head_dim) — the CuTe DSL example's layout, fa-bench's default;
//   bhsd (batch, heads, seqlen, head_dim) — PyTorch's and seed 002's layout.
// The innermost (head_dim) stride is always 1: 16-byte vector copies depend on it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace fa {

// The problem's element type, named as the CuTe DSL names it. Float8E4M3FN is an input type only:
// Q, K and V in e4m3 (fa/fp8.h) with a per-tensor FP32 descale each, O in bf16 (what FA3 and
// cuDNN's FP8 forward write: an 8-bit O would throw away the precision FP32 accumulation kept).
enum class DType : int { Float16 = 0, BFloat16 = 1, Float32 = 2, Float8E4M3FN = 3 };

// The element type of O for inputs of type t.
inline constexpr DType output_dtype(DType t) { return t == DType::Float8E4M3FN ? DType::BFloat16 : t; }

// Bytes of one element of Q, K and V (input_bytes) and of O (output_bytes).
inline constexpr std::size_t input_bytes(DType t) {
    return t == DType::Float32 ? 4 : t == DType::Float8E4M3FN ? 1 : 2;
}
inline constexpr std::size_t output_bytes(DType t) { return input_bytes(output_dtype(t)); }
// The input element size (Q, K, V): what index arithmetic and copy widths of the kernels go by.
inline constexpr std::size_t dtype_bytes(DType t) { return input_bytes(t); }

struct FwdParams {
    const void* q;  // [batch, seqlen_q, heads, head_dim] in bshd (strides below say where)
    const void* k;  // [batch, seqlen_k, heads, head_dim]
    const void* v;  // [batch, seqlen_k, heads, head_dim]
    void* o;        // [batch, seqlen_q, heads, head_dim], of output_dtype(dtype)

    // Element strides of each tensor: between batches, between sequence rows, between heads.
    int64_t q_batch_stride, q_row_stride, q_head_stride;
    int64_t k_batch_stride, k_row_stride, k_head_stride;
    int64_t v_batch_stride, v_row_stride, v_head_stride;
    int64_t o_batch_stride, o_row_stride, o_head_stride;

    int batch;         // B
    int heads;         // H, query heads
    int heads_kv;      // K/V heads (GQA; 1 = MQA, = heads for plain multi-head attention)
    int heads_per_kv;  // heads / heads_kv: query head h reads K/V head h / heads_per_kv
    int seqlen_q;      // Sq
    int seqlen_k;  // Sk
    int head_dim;  // D

    float scale;       // softmax scale applied to Q·Kᵀ (default 1/sqrt(D))
    float scale_log2;  // scale * log2(e): kernels use exp2(x * scale_log2 - m * scale_log2)
    bool causal;       // top-left aligned: query row i sees key j iff j <= i (the example's rule)
    DType dtype;       // element type of q, k and v; o is output_dtype(dtype)

    // FP8 inputs: the stored value times its tensor's descale is the input (fa/fp8.h: a power of
    // two from the tensor's amax). S = Q·Kᵀ of the stored values is scaled by q_descale·k_descale,
    // O by v_descale. 1 for the other dtypes.
    float q_descale, k_descale, v_descale;

    // Optional: the natural-log log-sum-exp of every query row's scaled scores, fp32,
    // [batch, heads, seqlen_q] contiguous; -inf for a row that sees no key. Null: not written.
    float* lse;

    // Split-KV (flash-decoding). With num_splits > 1 the key blocks of each row block are cut into
    // num_splits contiguous chunks run by separate CTAs; each writes its O normalized by its own
    // row sum, in fp32, to o_partial[split][batch][heads][seqlen_q][head_dim], and its LSE to
    // lse_partial[split][batch][heads][seqlen_q]; splitkv_combine() merges them into o (and lse).
    int num_splits;     // 1: off
    float* o_partial;   // num_splits > 1 only (carved from the workspace)
    float* lse_partial;

    // Packed GQA: the heads_per_kv query heads of one K/V head share a CTA's row block (row m =
    // query position m / heads_per_kv of head kv_head · heads_per_kv + m % heads_per_kv), so a
    // decode step fills the M dimension of a tile and reads each K/V tile once per group
    // (device/block_info.cuh). Set only for rungs whose KernelInfo says they can.
    bool pack_gqa;

    // Causal tile order (device/block_info.cuh; LPT: longest processing time first): the row
    // blocks of lpt_group consecutive head slots (of batch · head slots) interleave, heaviest
    // first across the group, instead of one head slot's blocks after the other's. 1: one head
    // slot after the other (non-causal problems; causal ones below 2,048 keys on rungs that launch
    // a CTA per tile; a head slot whose K, V, Q and O take over half the L2). Set by a LaunchPlan
    // (fa/launch_plan.h, causal_lpt_group).
    int lpt_group;

    void* workspace;              // per-kernel scratch (`naive`: S and P)
    std::size_t workspace_bytes;  // size of workspace

    // Tail split (fa/splitkv.h, KernelCaps::tail_split): the grid's last tail_tiles tiles, a last
    // wave less than half full, each run as tail_splits CTAs over contiguous chunks of its key
    // tiles by a launch of their own after the other tiles' (rung 8: its kernel built for chunks).
    // Each writes its unnormalized O and row statistics to its slot of tail_partial ([tile][split],
    // tail_slot_floats(block_m, head_dim) floats, in the kernel's register order); the last of a
    // tile's CTAs to finish merges the others' into its own and writes O. 0 / 1 / null: off.
    // Last in the struct, so the fields before keep the offsets the kernels were tuned with.
    int tail_tiles;
    int tail_splits;
    float* tail_partial;
};

}  // namespace fa
