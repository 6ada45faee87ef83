#include <catch2/catch.hpp>

#include "fa/problem.h"

using fa::ProblemShape;

namespace {
ProblemShape shape(int b, int h, int sq, int sk, int d, bool causal, fa::DType t = fa::DType::BFloat16) {
    ProblemShape p;
    p.batch = b;
    p.heads = h;
    p.seqlen_q = sq;
    p.seqlen_k = sk;
    p.head_dim = d;
    p.causal = causal;
    p.dtype = t;
    return p;
}
}  // namespace

TEST_CASE("unmasked score count, top-left causal", "[metrics]") {
    CHECK(fa::unmasked_scores(4, 4, false) == 16);
    CHECK(fa::unmasked_scores(4, 4, true) == 1 + 2 + 3 + 4);
    // Sq > Sk: rows 4 and 5 see all four keys.
    CHECK(fa::unmasked_scores(6, 4, true) == 10 + 4 + 4);
    // Sq < Sk: rows 0 and 1 see 1 and 2 keys; the other keys are never visible.
    CHECK(fa::unmasked_scores(2, 5, true) == 1 + 2);
    CHECK(fa::unmasked_scores(1, 1, true) == 1);
}

TEST_CASE("FLOPs are 4·B·H·D per unmasked score", "[metrics]") {
    // The example's default: 4·4·16·8192·8192·128 = 2,199,023,255,552.
    CHECK(fa::attention_flops(shape(4, 16, 8192, 8192, 128, false)) == 2199023255552.0);
    // Causal halves it up to the diagonal: 8192·8193/2 scores per head.
    CHECK(fa::attention_flops(shape(4, 16, 8192, 8192, 128, true)) == 4.0 * 4 * 16 * 128 * (8192.0 * 8193 / 2));
    CHECK(fa::attention_flops(shape(2, 3, 6, 4, 8, true)) == 4.0 * 2 * 3 * 8 * 18);
}

TEST_CASE("compulsory bytes read Q, K, V once and write O once", "[metrics]") {
    // (2·1280 + 2·1536)·1·16·128·2 B = 23,068,672 B.
    CHECK(fa::compulsory_bytes(shape(1, 16, 1280, 1536, 128, false)) == 23068672.0);
    CHECK(fa::compulsory_bytes(shape(1, 1, 10, 10, 8, false, fa::DType::Float32)) == 40.0 * 8 * 4);
    // Intensity of the default problem: 2.199e12 / (4·8192·4·16·128·2 B = 536,870,912 B) = 4096.
    CHECK(fa::arithmetic_intensity(shape(4, 16, 8192, 8192, 128, false)) == Approx(4096.0));
}

TEST_CASE("layouts give the strides of their dimension order", "[metrics]") {
    ProblemShape p = shape(2, 3, 5, 7, 8, false);
    fa::FwdParams f{};
    fa::set_strides(p, &f);
    CHECK(f.q_row_stride == 3 * 8);  // bshd: consecutive rows are heads·D apart
    CHECK(f.q_head_stride == 8);
    CHECK(f.q_batch_stride == 5 * 3 * 8);
    CHECK(f.k_batch_stride == 7 * 3 * 8);
    p.layout = fa::Layout::BHSD;
    fa::set_strides(p, &f);
    CHECK(f.q_row_stride == 8);
    CHECK(f.q_head_stride == 5 * 8);
    CHECK(f.k_head_stride == 7 * 8);
    CHECK(f.o_batch_stride == 3 * 5 * 8);
}

TEST_CASE("softmax scale defaults to 1/sqrt(head_dim)", "[metrics]") {
    ProblemShape p = shape(1, 1, 1, 1, 64, false);
    CHECK(fa::effective_scale(p) == Approx(0.125f));
    p.softmax_scale = 0.5f;
    CHECK(fa::effective_scale(p) == 0.5f);
}

TEST_CASE("make_fwd_params carries the problem, the layout's strides and the buffers", "[metrics]") {
    ProblemShape p = shape(2, 3, 5, 7, 64, true, fa::DType::Float16);
    p.layout = fa::Layout::BHSD;
    float q = 0, k = 0, v = 0, o = 0, ws = 0;
    const fa::FwdParams f = fa::make_fwd_params(p, &q, &k, &v, &o, &ws, 123);
    CHECK(f.q == &q);
    CHECK(f.k == &k);
    CHECK(f.v == &v);
    CHECK(f.o == &o);
    CHECK(f.workspace == &ws);
    CHECK(f.workspace_bytes == 123);
    CHECK(f.batch == 2);
    CHECK(f.heads == 3);
    CHECK(f.seqlen_q == 5);
    CHECK(f.seqlen_k == 7);
    CHECK(f.head_dim == 64);
    CHECK(f.causal);
    CHECK(f.dtype == fa::DType::Float16);
    CHECK(f.q_head_stride == 5 * 64);  // bhsd, as set_strides gives
    CHECK(f.k_head_stride == 7 * 64);
    CHECK(f.scale == Approx(0.125f));
    CHECK(f.scale_log2 == Approx(0.125 * 1.4426950408889634));
    CHECK(f.heads_kv == 3);
    CHECK(f.heads_per_kv == 1);
    CHECK(f.num_splits == 1);
    CHECK(f.lse == nullptr);
    CHECK_FALSE(f.pack_gqa);
    p.heads_kv = 1;
    const fa::FwdParams mqa = fa::make_fwd_params(p, &q, &k, &v, &o, nullptr, 0);
    CHECK(mqa.heads_kv == 1);
    CHECK(mqa.heads_per_kv == 3);
    p.heads_kv = 0;
    p.softmax_scale = 0.5f;
    CHECK(fa::make_fwd_params(p, &q, &k, &v, &o, nullptr, 0).scale == 0.5f);
}

TEST_CASE("grouped K/V heads: K and V bytes count H_kv heads, FLOPs count H", "[metrics]") {
    ProblemShape p = shape(1, 32, 1, 131072, 128, false);
    p.heads_kv = 8;
    // Q and O: 2·1·32·1·128·2 B = 16,384; K and V: 2·1·8·131072·128·2 B = 536,870,912.
    CHECK(fa::compulsory_bytes(p) == 16384.0 + 536870912.0);
    CHECK(fa::attention_flops(p) == 4.0 * 32 * 128 * 131072);
    CHECK(p.heads_per_kv() == 4);
    fa::FwdParams f{};
    fa::set_strides(p, &f);
    CHECK(f.q_row_stride == 32 * 128);  // bshd: Q rows hold all query heads
    CHECK(f.k_row_stride == 8 * 128);   // K rows hold the K/V heads only
    CHECK(f.k_batch_stride == 131072LL * 8 * 128);
    p.heads_kv = 0;  // 0 means "as many as query heads"
    CHECK(p.kv_heads() == 32);
}
