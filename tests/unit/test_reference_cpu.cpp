#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include "fa/reference.h"

using fa::ProblemShape;

namespace {
ProblemShape tiny(int sq, int sk, int d, bool causal) {
    ProblemShape p;
    p.batch = 1;
    p.heads = 1;
    p.seqlen_q = sq;
    p.seqlen_k = sk;
    p.head_dim = d;
    p.causal = causal;
    p.softmax_scale = 1.0f;
    return p;
}
}  // namespace

TEST_CASE("CPU reference: one row, hand-computed weights", "[reference]") {
    // q = 1, k = (0, ln 2): scores (0, ln 2), softmax weights (1/3, 2/3); v = (3, 6) → 1 + 4 = 5.
    const ProblemShape p = tiny(1, 2, 1, false);
    const auto o = fa::attention_reference_cpu(p, {1.0f}, {0.0f, std::log(2.0f)}, {3.0f, 6.0f});
    REQUIRE(o.size() == 1);
    CHECK(o[0] == Approx(5.0).epsilon(1e-6));
}

TEST_CASE("CPU reference: causal with seqlen_q != seqlen_k, top-left", "[reference]") {
    // Sq = 3, Sk = 2, D = 1, q = 0: every visible key weighs the same.
    // Row 0 sees key 0 → v0; rows 1 and 2 see keys 0 and 1 → (v0 + v1) / 2.
    const ProblemShape p = tiny(3, 2, 1, true);
    const auto o = fa::attention_reference_cpu(p, {0, 0, 0}, {5, -7}, {2, 10});
    REQUIRE(o.size() == 3);
    CHECK(o[0] == Approx(2.0));
    CHECK(o[1] == Approx(6.0));
    CHECK(o[2] == Approx(6.0));
    // Non-causal: all three rows average both keys.
    const auto full = fa::attention_reference_cpu(tiny(3, 2, 1, false), {0, 0, 0}, {5, -7}, {2, 10});
    CHECK(full[0] == Approx(6.0));
}

TEST_CASE("CPU reference: a row with no visible key gives zeros", "[reference]") {
    const ProblemShape p = tiny(2, 0, 8, false);
    const auto o = fa::attention_reference_cpu(p, std::vector<float>(16, 1.0f), {}, {});
    REQUIRE(o.size() == 16);
    for (double x : o) CHECK(x == 0.0);
}

TEST_CASE("CPU reference: bshd and bhsd describe the same tensors", "[reference]") {
    ProblemShape p;
    p.batch = 2;
    p.heads = 3;
    p.seqlen_q = 5;
    p.seqlen_k = 4;
    p.head_dim = 8;
    p.causal = true;
    std::mt19937 rng(7);
    std::normal_distribution<float> n01;
    auto make = [&](int s) {
        std::vector<float> v(static_cast<std::size_t>(p.batch) * s * p.heads * p.head_dim);
        for (float& x : v) x = n01(rng);
        return v;
    };
    const auto q = make(p.seqlen_q), k = make(p.seqlen_k), v = make(p.seqlen_k);
    // Transpose (b, s, h, d) → (b, h, s, d).
    auto to_bhsd = [&](const std::vector<float>& x, int s) {
        std::vector<float> y(x.size());
        for (int b = 0; b < p.batch; ++b)
            for (int i = 0; i < s; ++i)
                for (int h = 0; h < p.heads; ++h)
                    for (int d = 0; d < p.head_dim; ++d)
                        y[((b * p.heads + h) * s + i) * p.head_dim + d] = x[((b * s + i) * p.heads + h) * p.head_dim + d];
        return y;
    };
    const auto o_bshd = fa::attention_reference_cpu(p, q, k, v);
    ProblemShape pt = p;
    pt.layout = fa::Layout::BHSD;
    const auto o_bhsd = fa::attention_reference_cpu(pt, to_bhsd(q, p.seqlen_q), to_bhsd(k, p.seqlen_k),
                                                    to_bhsd(v, p.seqlen_k));
    std::vector<float> o_bshd_f(o_bshd.begin(), o_bshd.end());
    const auto expect = to_bhsd(o_bshd_f, p.seqlen_q);
    REQUIRE(o_bhsd.size() == expect.size());
    for (std::size_t i = 0; i < expect.size(); ++i) CHECK(o_bhsd[i] == Approx(expect[i]).margin(1e-6));
}

TEST_CASE("16-bit conversions round to nearest even", "[reference]") {
    CHECK(fa::bf16_bits_to_float(0x3F80) == 1.0f);
    CHECK(fa::float_to_bf16_bits(1.0f) == 0x3F80);
    CHECK(fa::float_to_bf16_bits(1.0f + 1.0f / 256) == 0x3F80);  // halfway: to even (down)
    CHECK(fa::float_to_bf16_bits(1.0f + 3.0f / 256) == 0x3F82);  // halfway: to even (up)
    CHECK(fa::fp16_bits_to_float(0x3C00) == 1.0f);
    CHECK(fa::fp16_bits_to_float(0xC000) == -2.0f);
    CHECK(fa::fp16_bits_to_float(0x0001) == std::ldexp(1.0f, -24));  // smallest subnormal
    CHECK(std::isnan(fa::fp16_bits_to_float(0xFFFF)));                 // the poison pattern
    CHECK(std::isnan(fa::bf16_bits_to_float(0xFFFF)));
    for (float x : {0.0f, 1.0f, -3.5f, 65504.0f, 0.1f, 1e-6f}) {
        INFO(x);
        CHECK(fa::fp16_bits_to_float(fa::float_to_fp16_bits(x)) == Approx(x).epsilon(1e-3).margin(1e-7));
    }
}

TEST_CASE("the check fails on NaN, on large errors, and passes on rounding", "[reference]") {
    const std::vector<float> ref = {1.0f, -0.5f, 0.25f, 2.0f};
    std::vector<float> out = ref;
    out[0] = 1.0f + 1.0f / 256;  // one bf16 ulp
    CHECK(fa::compare_outputs(out, ref, fa::DType::BFloat16).pass);
    out[3] = NAN;
    const fa::CheckResult nan = fa::compare_outputs(out, ref, fa::DType::BFloat16);
    CHECK_FALSE(nan.pass);
    CHECK(nan.non_finite == 1);
    out = ref;
    out[1] = 0.5f;  // sign error in one element
    const fa::CheckResult bad = fa::compare_outputs(out, ref, fa::DType::BFloat16);
    CHECK_FALSE(bad.pass);
    CHECK(bad.max_abs_err == Approx(1.0));
    // fp32 tolerates far less than bf16.
    out = ref;
    out[0] = 1.001f;
    CHECK(fa::compare_outputs(out, ref, fa::DType::BFloat16).pass);
    CHECK_FALSE(fa::compare_outputs(out, ref, fa::DType::Float32).pass);
}

TEST_CASE("CPU reference: grouped K/V heads read K/V head h / (H / H_kv), LSE", "[reference]") {
    // H = 4 query heads, H_kv = 2: heads 0,1 read K/V head 0, heads 2,3 read K/V head 1.
    // D = 1, one query row, two keys with equal scores (q = 0): o = mean of the head's V.
    ProblemShape p = tiny(1, 2, 1, false);
    p.heads = 4;
    p.heads_kv = 2;
    p.layout = fa::Layout::BHSD;
    const std::vector<float> q(4, 0.0f);
    const std::vector<float> k = {1, 2, 3, 4};     // [kv head][key]
    const std::vector<float> v = {2, 4, 10, 20};   // head 0: mean 3; head 1: mean 15
    std::vector<double> lse;
    const auto o = fa::attention_reference_cpu(p, q, k, v, &lse);
    REQUIRE(o.size() == 4);
    CHECK(o[0] == Approx(3.0));
    CHECK(o[1] == Approx(3.0));
    CHECK(o[2] == Approx(15.0));
    CHECK(o[3] == Approx(15.0));
    // Two scores of 0: lse = log(e^0 + e^0) = ln 2 for every row.
    REQUIRE(lse.size() == 4);
    for (double x : lse) CHECK(x == Approx(std::log(2.0)));
}

TEST_CASE("CPU reference: LSE of a hand-computed row and of a row with no key", "[reference]") {
    // Scores (0, ln 2) with scale 1: lse = log(1 + 2) = ln 3.
    std::vector<double> lse;
    fa::attention_reference_cpu(tiny(1, 2, 1, false), {1.0f}, {0.0f, std::log(2.0f)}, {3.0f, 6.0f}, &lse);
    REQUIRE(lse.size() == 1);
    CHECK(lse[0] == Approx(std::log(3.0)).epsilon(1e-6));
    fa::attention_reference_cpu(tiny(2, 0, 8, false), std::vector<float>(16, 1.0f), {}, {}, &lse);
    REQUIRE(lse.size() == 2);
    CHECK(std::isinf(lse[0]));
    CHECK(lse[0] < 0);
}

TEST_CASE("LSE check: rounding passes, a dropped tile or a one-sided -inf fails", "[reference]") {
    const float inf = std::numeric_limits<float>::infinity();
    CHECK(fa::compare_lse({10.00001f, -inf}, {10.0f, -inf}).pass);
    CHECK_FALSE(fa::compare_lse({10.002f}, {10.0f}).pass);  // e.g. 64 of 33,000 keys missing
    CHECK_FALSE(fa::compare_lse({-inf}, {0.5f}).pass);
    CHECK_FALSE(fa::compare_lse({0.5f}, {-inf}).pass);
    CHECK_FALSE(fa::compare_lse({std::nanf("")}, {0.5f}).pass);
    CHECK_FALSE(fa::compare_lse({1.0f}, {1.0f, 2.0f}).pass);
}
