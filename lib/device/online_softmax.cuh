// The online-softmax state of one query row (seed 002's derivation), in the base-2 form the
// kernels use: with s' = s·scale·log2(e), p = 2^(s' - m'), which is e^(scale·(s - m)).
//
// After visiting key tiles T1..Tt a row keeps
//   m = max over seen keys of s·scale_log2      (running max, already scaled)
//   l = sum over seen keys of 2^(s·scale_log2 - m)
//   acc = sum over seen keys of 2^(s·scale_log2 - m) · v_j
// A new tile with larger max m_new multiplies l and acc by 2^(m - m_new) before adding its own
// terms; at the end o = acc / l. Rows that saw no key (l = 0) output zeros.
#pragma once

#include <math_constants.h>

#include "device/ptx.cuh"

namespace fa {

// The running max before any key on the mma.sync and wgmma rungs (softmax_fragment.cuh,
// wgmma_steps.cuh; since session 31): the most negative finite float, not -inf. With it every max
// stays finite, even over keys that are all masked (max(start, -inf) = start), so a tile's update
// needs no -inf guard: the factor 2^(m_old - m_new) is 0 (underflow) when a row's first visible
// key arrives and 1 when nothing moved, and a masked s = -inf still gives p = 2^(-inf) = 0. From
// -inf each row paid two compare-and-selects a tile (the factor's and the exponent offset's)
// between its max and its exponentials; FlashAttention-4 pays one (check_inf). What it measured,
// and the two kernels that keep -inf (rung 8, rung 9's 128-key head_dim-128 tile): wgmma_steps.cuh's
// online_softmax_tile. The scalar rungs keep -inf and the guarded helpers below. A row that saw no
// visible key ends with l = 0, so its output is 0 and its LSE -inf whatever its max.
inline constexpr float kRowMaxStart = -3.402823466e+38f;

// Factor that moves state kept relative to m_old onto m_new. m_old = -inf (no key seen yet)
// gives 0, which also clears any garbage in the accumulator.
__device__ __forceinline__ float online_softmax_rescale(float m_old, float m_new) {
    return m_old == -CUDART_INF_F ? 0.0f : ptx::ex2_approx(m_old - m_new);
}

// Max used as the exponent offset. A row whose keys are all masked so far has m_new = -inf;
// offsetting by 0 instead keeps 2^(-inf - 0) = 0 rather than 2^(-inf + inf) = NaN.
__device__ __forceinline__ float online_softmax_offset(float m_new) {
    return m_new == -CUDART_INF_F ? 0.0f : m_new;
}

// The lazy running max (FlashAttention-4's conditional rescale; softmax_rescale_fragment's and
// wgmma::online_softmax_tile's kLazyMax): a row keeps its max m while a tile's candidate
// max(m, tile max) exceeds it by at most a slack, so p = 2^(s' - m) may reach 2^slack and the
// factor moving l and acc is exactly 1 on most tiles (the caller then skips acc's rescale). l and
// acc stay relative to the same m, so acc / l and the LSE (m + log2 l) are unchanged. Both call
// sites write the select out (m_cand - m <= slack ? m : m_cand; m = -inf takes m_cand, inf or NaN
// comparing false): as a function call ptxas ordered the mma rung's selects differently.
// The 16-bit rungs' slack: p <= 2^8 = 256, which bf16 and fp16 hold as exactly as p <= 1 (FA4's
// choice too). The FP8 rung's is fa::kFp8MaxSlackLog2 (fa/fp8.h): e4m3 tops out at 448.
inline constexpr float kLazyMaxSlackLog2 = 8.0f;

// 1/l for the final normalization; l = 0 (row saw no visible key) gives zeros, not NaN.
__device__ __forceinline__ float online_softmax_inv_sum(float l) {
    return l > 0.0f ? 1.0f / l : 0.0f;
}

// The row's natural-log log-sum-exp of the scaled scores from the base-2 state: the sum over
// seen keys of e^(scale·s) is 2^m · l, so lse = ln 2 · (m + log2 l); -inf for a row with no key.
__device__ __forceinline__ float online_softmax_lse(float m, float l) {
    constexpr float kLn2 = 0.69314718055994531f;
    return l > 0.0f ? kLn2 * (m + __log2f(l)) : -CUDART_INF_F;
}

}  // namespace fa
