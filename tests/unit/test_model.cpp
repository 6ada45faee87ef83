#include <catch2/catch.hpp>

#include "fa/model.h"

namespace {
fa::ProblemShape shape(int sq, int sk, int d, bool causal) {
    fa::ProblemShape p;
    p.batch = 1;
    p.heads = 1;
    p.seqlen_q = sq;
    p.seqlen_k = sk;
    p.head_dim = d;
    p.causal = causal;
    return p;
}
}  // namespace

TEST_CASE("model bytes: K and V streamed once per query tile", "[model]") {
    // Sq = 256, Sk = 512, D = 64, bf16, m_block = 128: Q and O once (2·256 rows), K and V twice
    // each (two query tiles × 2·512 rows): 64·2·(512 + 2048) = 327,680 B.
    CHECK(fa::model_bytes(shape(256, 512, 64, false), 128) == 327680.0);
    // Causal: tile 0 reads keys 0..127, tile 1 keys 0..255: 64·2·(512 + 2·(128 + 256)) = 163,840 B.
    CHECK(fa::model_bytes(shape(256, 512, 64, true), 128) == 163840.0);
    // One query tile covering all rows is the compulsory traffic.
    CHECK(fa::model_bytes(shape(128, 512, 64, false), 128) == fa::compulsory_bytes(shape(128, 512, 64, false)));
}

TEST_CASE("model bytes of the naive kernel include S and P", "[model]") {
    // 1·1·(64·2·(2·4 + 2·4)) + 16 scores · (8 + 4) B.
    CHECK(fa::model_bytes(shape(4, 4, 64, false), 0) == 64.0 * 2 * 16 + 16.0 * 12);
}

TEST_CASE("the napkin bound is the largest of its three terms", "[model]") {
    fa::Peaks pk;
    pk.matmul_tflops = 1000;  // 1e15 FLOP/s
    pk.dram_gbs = 1000;       // 1e12 B/s
    pk.exp_per_s = 1e12;
    fa::Bound b = fa::napkin_bound(2e12, 1e9, 1e9, pk);  // 2 ms compute, 1 ms memory, 1 ms exp
    CHECK(b.term == "compute");
    CHECK(b.ms == Approx(2.0));
    b = fa::napkin_bound(1e12, 3e9, 1e9, pk);
    CHECK(b.term == "memory");
    CHECK(b.ms == Approx(3.0));
    b = fa::napkin_bound(1e12, 1e9, 4e9, pk);
    CHECK(b.term == "exp");
}

TEST_CASE("peaks: the H100 comes from the measured table, others are derived", "[model]") {
    const fa::Peaks h100 = fa::peaks_for("NVIDIA H100 80GB HBM3", 9, 132, 1980, 2619, 5120, fa::DType::BFloat16);
    CHECK(h100.source == "table:NVIDIA H100 80GB HBM3");
    CHECK(h100.matmul_tflops == 761.0);
    // An unknown sm_80 part: 108 SMs · 1410 MHz · 2048 FLOP/clk = 311.9 TFLOP/s dense (A100's sparse-free
    // datasheet figure is 312), 2·1215 MHz·5120 bit/8 = 1555 GB/s.
    const fa::Peaks other = fa::peaks_for("Some A100", 8, 108, 1410, 1215, 5120, fa::DType::BFloat16);
    CHECK(other.source == "derived");
    CHECK(other.matmul_tflops == Approx(311.9).epsilon(1e-3));
    CHECK(other.dram_gbs == Approx(1555.2).epsilon(1e-3));
}
