// Online softmax on mma.sync accumulator fragments (rungs 3-4), FlashAttention-2's softmax.h idea.
//
// A warp owns kMTiles m16 tiles of query rows. In an m16n8 accumulator (S = Q·Kᵀ or O), lane L
// holds c0,c1 at row L/4, columns 2(L%4)+{0,1} and c2,c3 at row L/4+8, same columns. Across the
// kNTiles n8 tiles of one m-tile, a lane thus holds 2·kNTiles values of each of two rows, and the
// other three lanes of its quad (same L/4) hold the rest of those rows. Hence:
//   - row statistics are reduced over the thread's own values, then across the quad with two
//     xor-shuffles (1, 2);
//   - every per-row quantity (max m, sum l, rescale factor) is indexed [mt][h], h = 0 for c0,c1
//     and h = 1 for c2,c3, i.e. row 16·mt + 8·h + L/4 of the warp's rows;
//   - the row sum l is kept per thread (its own columns only) and reduced across the quad once,
//     at the end (FlashAttention-2 does the same): the rescale factor is quad-uniform, so partial
//     sums rescale consistently, and 2 shuffles per row per key tile are saved.
// Softmax runs in base 2 with the scale folded in: p = 2^(s·scale_log2 - m), m = the running max
// of s·scale_log2 (online_softmax.cuh). The max is taken on raw s and scaled once per row, which
// assumes scale_log2 > 0 (softmax scales are positive).
#pragma once

#include <math_constants.h>

#include <cstdint>

#include "device/mask.cuh"
#include "device/online_softmax.cuh"
#include "device/ptx.cuh"

namespace fa {

__device__ __forceinline__ float quad_allreduce_max(float x) {
    x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
    return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}

__device__ __forceinline__ float quad_allreduce_sum(float x) {
    x += __shfl_xor_sync(0xffffffffu, x, 1);
    return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

// Sets S to -inf where the key is not visible: column >= seqlen_k, or, when causal, column > the
// row's query position (mask.cuh's key_visible rule as one bound per row, visible_key_bound:
// visible iff col < min(Sk, position + 1)). row0: row-space row of this lane's [0][0] row (m_start + warp's
// first row + lane/4); its position is row / rows_per_pos (packed GQA, block_info.cuh).
// col0: global key column of this lane's first value (n_start + 2·(lane%4)).
template <int kMTiles, int kNTiles>
__device__ __forceinline__ void mask_fragment(float (&s)[kMTiles][kNTiles][4], int row0, int col0,
                                              int seqlen_k, bool causal, int rows_per_pos = 1) {
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int row = row0 + 16 * mt + 8 * h;
            const int pos = rows_per_pos == 1 ? row : row / rows_per_pos;
            const int limit = visible_key_bound(pos, seqlen_k, causal);
#pragma unroll
            for (int nt = 0; nt < kNTiles; ++nt) {
#pragma unroll
                for (int e = 0; e < 2; ++e) {
                    if (col0 + 8 * nt + e >= limit) s[mt][nt][2 * h + e] = -CUDART_INF_F;
                }
            }
        }
    }
}

// One online-softmax step for a key tile: updates the running max m and thread-partial sum l,
// rescales the O accumulator by 2^(m_old - m_new), and overwrites S with p = 2^(s·scale_log2 - m).
// Per element: one FFMA and one MUFU.EX2; per row: 2 shuffles, 1 EX2 and kNTilesO·2 FMULs.
// kSkipUnitRescale: skip the O rescale when no row of the warp changed its max (the factor is
// then exactly 1 for every row, or 0 applied to a still-zero O for rows that saw no key yet), at
// the cost of one warp vote. Once the running max has settled this skips most key tiles'
// kNTilesO·4·kMTiles FMULs, the largest non-MMA item of a tile at head_dim 128.
// m starts at kRowMaxStart (init_fragment_state; online_softmax.cuh), so every max is finite and
// neither the factor nor the exponent offset needs an -inf guard. kBranchFreeRescale: the rescale
// factor without a branch (the comment in the body); false keeps the branch, which rung 4 measured
// faster (see its call).
// kLazyMax: the lazy running max (online_softmax.cuh) with max_slack_log2, so p may reach
// 2^max_slack_log2 and, with kSkipUnitRescale, O's rescale is skipped on nearly every tile.
template <bool kSkipUnitRescale = false, bool kBranchFreeRescale = true, bool kLazyMax = false, int kMTiles,
          int kNTiles, int kNTilesO>
__device__ __forceinline__ void softmax_rescale_fragment(float (&s)[kMTiles][kNTiles][4],
                                                         float (&o)[kMTiles][kNTilesO][4],
                                                         float (&m)[kMTiles][2], float (&l)[kMTiles][2],
                                                         float scale_log2, float max_slack_log2 = 0.0f) {
    float alpha[kMTiles][2];
    bool max_changed = false;
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            // Two independent chains (even and odd n-tiles) for the max and, below, the sum: a
            // single chain is kNTiles dependent FMNMX and 2·kNTiles dependent FADDs per row, and
            // with two warps per scheduler nothing else hides their latency.
            float mx2[2] = {s[mt][0][2 * h], s[mt][kNTiles > 1 ? 1 : 0][2 * h]};
#pragma unroll
            for (int nt = 0; nt < kNTiles; ++nt) {
                mx2[nt & 1] = fmaxf(mx2[nt & 1], fmaxf(s[mt][nt][2 * h], s[mt][nt][2 * h + 1]));
            }
            const float mx = quad_allreduce_max(fmaxf(mx2[0], mx2[1]));
            float m_new = fmaxf(m[mt][h], mx * scale_log2);
            // The lazy max (online_softmax.cuh, kLazyMaxSlackLog2's comment).
            if constexpr (kLazyMax) m_new = m_new - m[mt][h] <= max_slack_log2 ? m[mt][h] : m_new;
            const bool changed = m_new != m[mt][h];
            max_changed |= changed;
            // The factor without a branch: ptxas turns a ?: around the inline-asm ex2 into a
            // divergent branch (BSSY/BSYNC, one per row and tile: 8.7 M BSSY and 15 M BRA in ncu
            // at 2x32x8192x64, where the CuTe DSL example has none). Here ex2 always runs; where an
            // unchanged max may skip O's multiply (kSkipUnitRescale) a select makes its factor
            // exactly 1 (not ex2.approx(0)), so that O and l stay consistent; where O is always
            // rescaled the factor is ex2's (0 when a row's first visible key arrives).
            if constexpr (kBranchFreeRescale) {
                const float ex = ptx::ex2_approx(m[mt][h] - m_new);
                alpha[mt][h] = kSkipUnitRescale ? (changed ? ex : 1.0f) : ex;
            } else {
                alpha[mt][h] = changed ? ptx::ex2_approx(m[mt][h] - m_new) : 1.0f;
            }
            m[mt][h] = m_new;
            // Each chain starts at its first p, not at 0: 0 + p is not folded (it would turn -0
            // into +0), so a zero start cost 2 FADDs per row and key tile. Session 16 call 2 (H100
            // SXM, three rounds): mma 2x32x8192x64 333.8 -> 336.8 TFLOP/s, the rest level.
            float sum2[2];
#pragma unroll
            for (int nt = 0; nt < kNTiles; ++nt) {
#pragma unroll
                for (int e = 0; e < 2; ++e) {
                    const float p = ptx::ex2_approx(fmaf(s[mt][nt][2 * h + e], scale_log2, -m_new));
                    s[mt][nt][2 * h + e] = p;
                    sum2[e] = nt == 0 ? p : sum2[e] + p;
                }
            }
            l[mt][h] = l[mt][h] * alpha[mt][h] + (sum2[0] + sum2[1]);
        }
    }
    if (!kSkipUnitRescale || __any_sync(0xffffffffu, max_changed)) {
#pragma unroll
        for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
            for (int nt = 0; nt < kNTilesO; ++nt) {
#pragma unroll
                for (int i = 0; i < 4; ++i) o[mt][nt][i] *= alpha[mt][i / 2];
            }
        }
    }
}

// P (fp32 in the S accumulator) -> 16-bit A fragments of O += P·V. The k16 step kk of the second
// GEMM covers keys 16kk..16kk+15, i.e. S n-tiles 2kk and 2kk+1, and the A layout (a0: row g,
// k 2t..; a1: row g+8; a2: row g, k 8+2t..; a3: row g+8, k 8+2t..) is exactly
// (S[2kk].c0c1, S[2kk].c2c3, S[2kk+1].c0c1, S[2kk+1].c2c3): a register-only conversion.
template <typename T, int kMTiles, int kNTiles>
__device__ __forceinline__ void convert_p_fragment(const float (&s)[kMTiles][kNTiles][4],
                                                   uint32_t (&p)[kMTiles][kNTiles / 2][4]) {
    static_assert(kNTiles % 2 == 0, "a k16 step of P·V consumes two n8 tiles of S");
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
        for (int kk = 0; kk < kNTiles / 2; ++kk) {
            p[mt][kk][0] = ptx::pack2<T>(s[mt][2 * kk][0], s[mt][2 * kk][1]);
            p[mt][kk][1] = ptx::pack2<T>(s[mt][2 * kk][2], s[mt][2 * kk][3]);
            p[mt][kk][2] = ptx::pack2<T>(s[mt][2 * kk + 1][0], s[mt][2 * kk + 1][1]);
            p[mt][kk][3] = ptx::pack2<T>(s[mt][2 * kk + 1][2], s[mt][2 * kk + 1][3]);
        }
    }
}

// Final o = acc / l: completes the quad reduction of the thread-partial sums, then scales.
// The state before the first key tile: O = 0, m = kRowMaxStart (no key seen), l = 0.
template <int kMTiles, int kNTilesO>
__device__ __forceinline__ void init_fragment_state(float (&o)[kMTiles][kNTilesO][4], float (&m)[kMTiles][2],
                                                    float (&l)[kMTiles][2]) {
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
        for (int nt = 0; nt < kNTilesO; ++nt)
#pragma unroll
            for (int i = 0; i < 4; ++i) o[mt][nt][i] = 0.0f;
        m[mt][0] = m[mt][1] = kRowMaxStart;
        l[mt][0] = l[mt][1] = 0.0f;
    }
}

// Rows that saw no visible key (l = 0) get zeros through online_softmax_inv_sum. Afterwards l
// holds each row's whole sum (quad-reduced), so that online_softmax_lse(m, l) is the row's LSE.
template <int kMTiles, int kNTilesO>
__device__ __forceinline__ void normalize_fragment(float (&o)[kMTiles][kNTilesO][4], float (&l)[kMTiles][2]) {
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            l[mt][h] = quad_allreduce_sum(l[mt][h]);
            const float inv = online_softmax_inv_sum(l[mt][h]);
#pragma unroll
            for (int nt = 0; nt < kNTilesO; ++nt) {
                o[mt][nt][2 * h] *= inv;
                o[mt][nt][2 * h + 1] *= inv;
            }
        }
    }
}

}  // namespace fa
