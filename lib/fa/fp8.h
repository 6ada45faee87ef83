// FP8 E4M3FN (OCP "e4m3", the CuTe DSL's Float8E4M3FN): the encoding, its scale and its unit
// roundoff, in one place that the host (tests, --save_tensors) and the device (the input
// generator, lib/reference_gpu.cu) both compile, so the quantizer the tests check is the one
// that fills the tensors.
//
// Format: 1 sign, 4 exponent bits (bias 7), 3 mantissa bits. No infinities; S.1111.111 is NaN
// (0x7F / 0xFF). Largest finite 0x7E = 1.75 * 2^8 = 448; smallest normal 0x08 = 2^-6; subnormals
// k * 2^-9, k = 1..7. Three mantissa bits give a unit roundoff of 2^-4 = 0.0625: a normal value
// rounds to nearest with relative error at most 2^-4 (half the spacing 2^-3 at mantissa 1.0).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "fa/host_device.h"

namespace fa {

inline constexpr float kE4M3Max = 448.0f;           // largest finite e4m3
inline constexpr double kE4M3UnitRoundoff = 0.0625;  // 2^-4: relative error of one rounding (normals)

// The FP8 rung's P (08_wgmma_fp8.cu; modelled in tests/unit/test_fp8.cpp): p = 2^(s - m + 5) with
// m the row's running max, which lags the true max by at most kFp8MaxSlackLog2 (the lazy max), so
// P <= 2^8.75 = 430.5 < 448 never saturates and stays normal down to 2^-11 of the row max. The
// offset is a whole power of two so that the max's own P (32) is exact in e4m3: at 2^7.25 and
// 2^6.75 causal rel_l2 rose from 0.022 to 0.036 / 0.029 (session 23 call 1, rows whose few keys
// leave the max's term dominant). The slack trades the normal range for rescales: 2^8 / 0.75
// until session 22, 2^7 / 1.75 in session 23 (+0.0 to +1.6 %), 2^5 / 3.75 since session 24, where
// a warp's 16 rows must raise a max on 0.15 % of its tiles (numpy model, d128, 8k keys; 12 % at
// 1.75). That is what makes rung 8's speculative softmax pay at head_dim 128 (+6 to +13 %,
// session 24 call 2, H100 SXM) and, since its redo test reads P's e4m3 bytes (a tile is kept while
// every P < 432, still below 448), at head_dim 256's pre-pass way (+9 %, session 25 call 2); the
// constants alone +2.2 / +2.6 % at 1x16x16384x256. rel_l2
// 0.0265 -> 0.0268 non-causal, 0.0223 -> 0.0227 causal (the CPU model at 1,000 keys 0.0251 ->
// 0.0255): terms below 2^-11 of the row max become subnormal, which long diffuse rows feel first.
inline constexpr float kFp8PScaleLog2 = 5.0f;
inline constexpr float kFp8MaxSlackLog2 = 3.75f;

// e4m3 bits -> float (exact: every e4m3 value is a float). Built from bits rather than with
// ldexpf, whose call spilled the FP8 instance of the GPU reference's kernel.
FA_HOST_DEVICE inline float e4m3_to_float(uint8_t bits) {
    const uint32_t exponent = (bits >> 3) & 0xFu, mantissa = bits & 0x7u;
    if (exponent == 0xFu && mantissa == 0x7u) return NAN;
    float magnitude;
    if (exponent == 0) {
        magnitude = static_cast<float>(mantissa) * 0.001953125f;  // subnormal: k * 2^-9, exact
    } else {
        // 1.mmm * 2^(e - 7): the float with biased exponent e - 7 + 127 and mantissa mmm0...
        const uint32_t u = ((exponent + 120u) << 23) | (mantissa << 20);
        memcpy(&magnitude, &u, 4);
    }
    return (bits & 0x80) ? -magnitude : magnitude;
}

// float -> e4m3 bits: round to nearest, ties to even; finite values beyond 448 saturate to +-448
// (what cvt.rn.satfinite.e4m3x2.f32 does: e4m3 has no infinity, and rounding a large score or
// input to NaN would poison a whole row); NaN -> 0x7F. Infinities saturate like large finites.
FA_HOST_DEVICE inline uint8_t float_to_e4m3(float x) {
    uint32_t u;
    memcpy(&u, &x, 4);
    const uint8_t sign = static_cast<uint8_t>((u >> 24) & 0x80);
    if (x != x) return 0x7F;
    const float a = fabsf(x);
    if (a >= kE4M3Max) return sign | 0x7E;
    if (a < 0.015625f) {
        // Subnormal range (below 2^-6): multiples of 2^-9. a * 512 is exact (power of two) and
        // below 8; rounding it to 8 lands on the smallest normal, whose code is also 8.
        return sign | static_cast<uint8_t>(rintf(a * 512.0f));
    }
    const uint32_t mag = u & 0x7FFFFFFFu;
    const int exponent = static_cast<int>(mag >> 23) - 127;  // -6..8 here
    const uint32_t keep = (mag >> 20) & 0x7u;                // the 3 mantissa bits kept
    const uint32_t rest = mag & 0xFFFFFu;                    // the 20 dropped
    const uint32_t half = 0x80000u;
    const uint32_t up = (rest > half || (rest == half && (keep & 1u))) ? 1u : 0u;
    // A carry out of the mantissa moves into the exponent field, which is the correct result.
    const uint32_t code = ((static_cast<uint32_t>(exponent + 7) << 3) | keep) + up;
    return sign | static_cast<uint8_t>(code > 0x7Eu ? 0x7Eu : code);
}

// Rung 8's speculative softmax keeps a tile only while none of its packed P bytes reached 0x7E
// (448: every P from 432 up rounds or saturates there) or 0x7F (NaN). P is never negative, so a
// byte is at most 0x7F and adding 2 to each byte of a word carries into no other byte; bit 7 of a
// byte is then set exactly for 0x7E and 0x7F. The kernel ORs e4m3_mark_high over its P words and
// tests the result once (tests/unit/test_fp8.cpp checks both claims over every byte).
FA_HOST_DEVICE constexpr uint32_t e4m3_mark_high(uint32_t four_bytes) { return four_bytes + 0x02020202u; }
FA_HOST_DEVICE constexpr bool e4m3_any_marked(uint32_t marks) { return (marks & 0x80808080u) != 0u; }

// The per-tensor scale of an FP8 input: the largest power of two 2^k with amax * 2^k <= 448, so
// the tensor's largest magnitude lands in e4m3's top binade (no saturation, and as few values as
// possible in the subnormal range). A power of two makes scaling exact in both directions: the
// dequantized value e4m3 * 2^-k is exactly the value the kernel multiplies, and --save_tensors'
// float32 copy gives back the e4m3 bits exactly. amax <= 0 or not finite: k = 0.
inline int fp8_scale_exponent(float amax) {
    if (!(amax > 0.0f) || !std::isfinite(amax)) return 0;
    int k = static_cast<int>(std::floor(std::log2(static_cast<double>(kE4M3Max) / amax)));
    // log2 of a ratio near a power of two can land one off either way: settle it exactly.
    while (std::ldexp(static_cast<double>(amax), k) > kE4M3Max) --k;
    while (std::ldexp(static_cast<double>(amax), k + 1) <= kE4M3Max) ++k;
    return k;
}

}  // namespace fa
