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
