// The FP64 CPU reference, host-side format conversions and the output check.
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "fa/fp8.h"
#include "fa/reference.h"

namespace fa {

std::vector<double> attention_reference_cpu(const ProblemShape& p, const std::vector<float>& q,
                                            const std::vector<float>& k, const std::vector<float>& v,
                                            std::vector<double>* lse) {
    FwdParams s{};
    set_strides(p, &s);
    const double scale = effective_scale(p);
    const int D = p.head_dim;
    std::vector<double> o(static_cast<std::size_t>(p.batch) * p.heads * p.seqlen_q * D, 0.0);
    std::vector<double> scores(p.seqlen_k);
    if (lse) lse->assign(static_cast<std::size_t>(p.batch) * p.heads * p.seqlen_q, 0.0);
    for (int b = 0; b < p.batch; ++b) {
        for (int h = 0; h < p.heads; ++h) {
            const int h_kv = h / p.heads_per_kv();
            for (int i = 0; i < p.seqlen_q; ++i) {
                const float* qi = q.data() + b * s.q_batch_stride + h * s.q_head_stride + i * s.q_row_stride;
                const int visible = p.causal ? std::min(i + 1, p.seqlen_k) : p.seqlen_k;
                double row_max = -std::numeric_limits<double>::infinity();
                for (int j = 0; j < visible; ++j) {
                    const float* kj = k.data() + b * s.k_batch_stride + h_kv * s.k_head_stride + j * s.k_row_stride;
                    double dot = 0.0;
                    for (int d = 0; d < D; ++d) dot += static_cast<double>(qi[d]) * kj[d];
                    scores[j] = dot * scale;
                    row_max = std::max(row_max, scores[j]);
                }
                double sum = 0.0;
                for (int j = 0; j < visible; ++j) sum += (scores[j] = std::exp(scores[j] - row_max));
                double* oi = o.data() + b * s.o_batch_stride + h * s.o_head_stride + i * s.o_row_stride;
                if (lse)
                    (*lse)[(static_cast<std::size_t>(b) * p.heads + h) * p.seqlen_q + i] =
                        visible > 0 ? row_max + std::log(sum) : -std::numeric_limits<double>::infinity();
                if (visible == 0) continue;  // no visible key: the row stays zero
                for (int j = 0; j < visible; ++j) {
                    const float* vj = v.data() + b * s.v_batch_stride + h_kv * s.v_head_stride + j * s.v_row_stride;
                    const double w = scores[j] / sum;
                    for (int d = 0; d < D; ++d) oi[d] += w * vj[d];
                }
            }
        }
    }
    return o;
}

float bf16_bits_to_float(uint16_t bits) {
    const uint32_t u = static_cast<uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

float fp16_bits_to_float(uint16_t bits) {
    const uint32_t sign = (bits >> 15) & 1u, exp = (bits >> 10) & 0x1Fu, mant = bits & 0x3FFu;
    float mag;
    if (exp == 0) mag = std::ldexp(static_cast<float>(mant), -24);  // subnormal
    else if (exp == 31) mag = mant ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
    else mag = std::ldexp(static_cast<float>(mant | 0x400u), static_cast<int>(exp) - 25);
    return sign ? -mag : mag;
}

uint16_t float_to_bf16_bits(float x) {
    uint32_t u;
    std::memcpy(&u, &x, 4);
    if (std::isnan(x)) return 0x7FC0;
    u += 0x7FFFu + ((u >> 16) & 1u);  // round to nearest even
    return static_cast<uint16_t>(u >> 16);
}

uint16_t float_to_fp16_bits(float x) {
    uint32_t u;
    std::memcpy(&u, &x, 4);
    const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
    if (std::isnan(x)) return sign | 0x7E00u;
    const float a = std::fabs(x);
    if (a >= 65520.0f) return sign | 0x7C00u;  // rounds to infinity
    if (a < std::ldexp(1.0f, -14)) {           // subnormal: multiples of 2^-24
        return sign | static_cast<uint16_t>(std::nearbyint(a * std::ldexp(1.0f, 24)));
    }
    int e;
    const float m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
    uint32_t mant = static_cast<uint32_t>(std::nearbyint(m * 2048.0f));  // 11 significant bits
    if (mant == 2048u) { mant = 1024u; ++e; }
    return sign | static_cast<uint16_t>(((e + 14) << 10) | (mant & 0x3FFu));
}

std::vector<float> to_float_vector(const void* host_data, DType dtype, std::size_t count, float scale) {
    std::vector<float> out(count);
    if (dtype == DType::Float32) {
        std::memcpy(out.data(), host_data, count * 4);
    } else if (dtype == DType::Float8E4M3FN) {
        const uint8_t* bits = static_cast<const uint8_t*>(host_data);
        for (std::size_t i = 0; i < count; ++i) out[i] = e4m3_to_float(bits[i]);
    } else {
        const uint16_t* bits = static_cast<const uint16_t*>(host_data);
        for (std::size_t i = 0; i < count; ++i)
            out[i] = dtype == DType::BFloat16 ? bf16_bits_to_float(bits[i]) : fp16_bits_to_float(bits[i]);
    }
    if (scale != 1.0f)
        for (float& x : out) x *= scale;
    return out;
}

Tolerance tolerance_for(DType dtype) {
    switch (dtype) {
        case DType::BFloat16: return {1e-2, 4e-2};
        case DType::Float16: return {2e-3, 6e-3};
        case DType::Float32: return {1e-4, 5e-4};
        case DType::Float8E4M3FN: return {kE4M3UnitRoundoff, 2.0 * kE4M3UnitRoundoff};
    }
    return {0.0, 0.0};
}

CheckResult compare_outputs(const std::vector<float>& out, const std::vector<float>& ref, DType dtype) {
    CheckResult r;
    if (out.size() != ref.size()) {
        r.reason = fmt::format("size mismatch: {} vs {}", out.size(), ref.size());
        return r;
    }
    double err2 = 0.0, ref2 = 0.0;
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (!std::isfinite(out[i])) {
            ++r.non_finite;
            continue;
        }
        const double e = std::fabs(static_cast<double>(out[i]) - ref[i]);
        r.max_abs_err = std::max(r.max_abs_err, e);
        r.max_abs_ref = std::max(r.max_abs_ref, std::fabs(static_cast<double>(ref[i])));
        err2 += e * e;
        ref2 += static_cast<double>(ref[i]) * ref[i];
    }
    r.rel_l2_err = ref2 > 0.0 ? std::sqrt(err2 / ref2) : std::sqrt(err2);
    const Tolerance tol = tolerance_for(dtype);
    const double max_rel = r.max_abs_ref > 0.0 ? r.max_abs_err / r.max_abs_ref : r.max_abs_err;
    if (r.non_finite > 0)
        r.reason = fmt::format("{} non-finite outputs (unwritten or overflowed)", r.non_finite);
    else if (r.rel_l2_err > tol.rel_l2)
        r.reason = fmt::format("rel_l2_err {:.3g} > {:.3g}", r.rel_l2_err, tol.rel_l2);
    else if (max_rel > tol.max_rel)
        r.reason = fmt::format("max_abs_err/max|ref| {:.3g} > {:.3g}", max_rel, tol.max_rel);
    r.pass = r.reason.empty();
    return r;
}

CheckResult compare_lse(const std::vector<float>& out, const std::vector<float>& ref) {
    CheckResult r;
    if (out.size() != ref.size()) {
        r.reason = fmt::format("lse size mismatch: {} vs {}", out.size(), ref.size());
        return r;
    }
    std::size_t bad = 0, first_bad = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const bool out_empty = std::isinf(out[i]) && out[i] < 0, ref_empty = std::isinf(ref[i]) && ref[i] < 0;
        bool ok;
        if (out_empty || ref_empty) {
            ok = out_empty == ref_empty;
        } else if (!std::isfinite(out[i])) {
            ++r.non_finite;
            ok = false;
        } else {
            const double e = std::fabs(static_cast<double>(out[i]) - ref[i]);
            r.max_abs_err = std::max(r.max_abs_err, e);
            r.max_abs_ref = std::max(r.max_abs_ref, std::fabs(static_cast<double>(ref[i])));
            ok = e <= 1e-4 + 1e-5 * std::fabs(static_cast<double>(ref[i]));
        }
        if (!ok && bad++ == 0) first_bad = i;
    }
    if (bad > 0)
        r.reason = fmt::format("lse: {} row(s) off, first row {}: {} vs reference {}", bad, first_bad,
                               out[first_bad], ref[first_bad]);
    r.pass = bad == 0;
    return r;
}

}  // namespace fa
