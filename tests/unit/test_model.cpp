#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <string>

#include "calibration_cache.h"
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

TEST_CASE("peaks: a calibration of this GPU wins over the table, another GPU's does not", "[model]") {
    fa::Calibration cal;
    cal.gpu = "NVIDIA H100 80GB HBM3";
    cal.timestamp = "2026-11-22T02:00:00Z";
    cal.gemm16_tflops = 790.5;
    cal.gemm32_tflops = 51.0;
    cal.copy_gbs = 3001.0;
    const fa::Peaks mine = fa::peaks_for(cal.gpu, 9, 132, 1980, 2619, 5120, fa::DType::BFloat16, &cal);
    CHECK(mine.source == "calibrated:2026-11-22T02:00:00Z");
    CHECK(mine.matmul_tflops == 790.5);
    CHECK(mine.dram_gbs == 3001.0);
    CHECK(fa::peaks_for(cal.gpu, 9, 132, 1980, 2619, 5120, fa::DType::Float32, &cal).matmul_tflops == 51.0);
    const fa::Peaks other = fa::peaks_for("NVIDIA H200", 9, 132, 1980, 3201, 6144, fa::DType::BFloat16, &cal);
    CHECK(other.source == "table:NVIDIA H200");
}

TEST_CASE("the calibration cache keeps one row per GPU", "[model]") {
    const std::string path = "fa_bench_test_peaks.csv";
    std::remove(path.c_str());
    fa::Calibration a{"GPU A, rev 1", "t1", 100.0, 10.0, 1000.0};
    fa::Calibration b{"GPU B", "t2", 200.0, 20.0, 2000.0};
    REQUIRE(fa::save_calibration(path, a).empty());
    REQUIRE(fa::save_calibration(path, b).empty());
    a.gemm16_tflops = 111.0;  // re-calibrating A replaces its row
    a.timestamp = "t3";
    REQUIRE(fa::save_calibration(path, a).empty());
    fa::Calibration got;
    REQUIRE(fa::load_calibration(path, "GPU A, rev 1", &got));
    CHECK(got.gemm16_tflops == 111.0);
    CHECK(got.timestamp == "t3");
    REQUIRE(fa::load_calibration(path, "GPU B", &got));
    CHECK(got.copy_gbs == 2000.0);
    CHECK_FALSE(fa::load_calibration(path, "GPU C", &got));
    CHECK_FALSE(fa::load_calibration("no-such-file.csv", "GPU A, rev 1", &got));
    std::ifstream in(path);
    int lines = 0;
    for (std::string l; std::getline(in, l);) ++lines;
    CHECK(lines == 3);  // header + A + B
    std::remove(path.c_str());
}
