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

TEST_CASE("model bytes are the L2->SM bytes in the model's own element sizes", "[model]") {
    fa::TileOrder order;
    order.m_block = 128;
    // FP8 in, bf16 out: Sq = 256, Sk = 512, D = 64: Q read 256·64·1 + O written 256·64·2 = 49,152;
    // K and V twice (two query tiles) · 512 rows · 64 · 1 B · 2 = 131,072.
    CHECK(fa::model_l2_bytes(shape(256, 512, 64, false), {1, 2}, order) == 180224.0);
    // DRAM: Q, K, V once in 1 byte (64 · (256 + 2·512) = 81,920), O once in 2 (32,768).
    const fa::HbmBytes h = fa::model_hbm_bytes(shape(256, 512, 64, false), {1, 2}, order, 50.0 * 1024 * 1024);
    CHECK(h.compulsory_in == 81920.0);
    CHECK(h.compulsory_out == 32768.0);
    CHECK(h.predicted() == 114688.0);
    // Both fit one 50 MiB L2: a warm launch need move none of it.
    CHECK(h.at_least(50.0 * 1024 * 1024) == 0.0);
}

TEST_CASE("ceilings: the clock-derived peaks of the H100, the A100 and FP8", "[model]") {
    const fa::GpuSpec* h100 = fa::known_gpu("NVIDIA H100 80GB HBM3");
    REQUIRE(h100 != nullptr);
    CHECK(fa::known_gpu("Some GPU") == nullptr);
    // 132 SMs · 4096 FLOP/clk · 1.98 GHz = 1070.53 TFLOP/s (above FA4's 775 and cuBLAS's 761).
    const fa::Ceilings bf16 = fa::ceilings_for(*h100, fa::MathUnit::TensorCore, 2);
    CHECK(bf16.math_tflops == Approx(1070.53056));
    CHECK(std::string(bf16.math_term) == "tensor");
    CHECK(bf16.exp_per_s == Approx(4.18176e12));    // 132 · 16 · 1.98 GHz
    CHECK(bf16.hbm_gbs == Approx(3352.32));         // 2 · 2619 MHz · 5120 bit / 8
    CHECK(bf16.l2_gbs == Approx(16727.04));         // 132 · 64 B · 1.98 GHz
    CHECK(bf16.l2_bytes == 52428800.0);
    CHECK(fa::ceilings_for(*h100, fa::MathUnit::TensorCore, 1).math_tflops == Approx(2141.06112));  // FP8
    const fa::Ceilings ffma = fa::ceilings_for(*h100, fa::MathUnit::CudaCoreFp32, 2);
    CHECK(ffma.math_tflops == Approx(66.90816));  // 132 · 128 lanes · 2 · 1.98 GHz
    CHECK(std::string(ffma.math_term) == "fp32");
    // fp32 inputs on a tensor-core kernel: fa-bench uses no TF32, so the CUDA-core rate.
    CHECK(fa::ceilings_for(*h100, fa::MathUnit::TensorCore, 4).math_tflops == Approx(66.90816));
    const fa::GpuSpec* a100 = fa::known_gpu("NVIDIA A100-SXM4-80GB");
    REQUIRE(a100 != nullptr);
    CHECK(fa::ceilings_for(*a100, fa::MathUnit::TensorCore, 2).math_tflops == Approx(311.86944));  // 108·2048·1.41
    CHECK(fa::ceilings_for(*a100, fa::MathUnit::CudaCoreFp32, 2).math_tflops == Approx(19.49184));  // 108·128·1.41
    CHECK(fa::ceilings_for(*a100, fa::MathUnit::TensorCore, 1).math_tflops == Approx(311.86944));   // no FP8
}

TEST_CASE("the bound is the largest term, the sum the bound without overlap", "[model]") {
    fa::Bound b = fa::binding({2.0, 1.0, 0.5, 0.5}, "tensor");
    CHECK(b.term == "tensor");
    CHECK(b.ms == 2.0);
    CHECK(b.sum_ms == 4.0);
    CHECK(b.overlap() == 2.0);
    CHECK(fa::binding({1.0, 3.0, 0.5, 0.5}, "fp32").term == "sfu");
    CHECK(fa::binding({1.0, 1.0, 4.0, 0.5}, "tensor").term == "hbm");
    CHECK(fa::binding({1.0, 1.0, 0.5, 5.0}, "tensor").term == "l2");
}

TEST_CASE("a GQA decode step: packed heads read each K/V head once, HBM binds", "[model]") {
    // B = 1, 32 query heads over 8 K/V heads, one query, Sk = 131072, D = 128, bf16, 64-row tiles.
    fa::ProblemShape p = shape(1, 131072, 128, false);
    p.heads = 32;
    p.heads_kv = 8;
    fa::TileOrder order;
    order.m_block = 64;
    order.pack_gqa = true;
    order.ctas_in_flight = 132;
    // L2: Q and O 32 · 128 · 4 = 16,384; each K/V head once: 8 · 131072 · 128 · 2 · 2 = 536,870,912.
    CHECK(fa::model_l2_bytes(p, {2, 2}, order) == 536887296.0);
    fa::TileOrder unpacked = order;
    unpacked.pack_gqa = false;  // every query head streams its K/V head: 4x the K/V
    CHECK(fa::model_l2_bytes(p, {2, 2}, unpacked) == 16384.0 + 4 * 536870912.0);
    const fa::Ceilings c = fa::ceilings_for(*fa::known_gpu("NVIDIA H100 80GB HBM3"), fa::MathUnit::TensorCore, 2);
    const fa::Model m = fa::evaluate_model(p, {2, 2}, order, fa::attention_flops(p), c);
    // HBM: Q + K + V = 256 · (32 + 2 · 131072 · 8) = 536,879,104 less one 50 MiB L2 = 484,450,304;
    // O (8,192) fits the L2. 484,450,304 B / 3352.32 GB/s = 0.144512 ms.
    CHECK(m.hbm.compulsory_in == 536879104.0);
    CHECK(m.hbm.rereads == 0.0);
    CHECK(m.terms.hbm == Approx(0.144512).epsilon(1e-5));
    CHECK(m.terms.math == Approx(0.00200600).epsilon(1e-5));  // 4·32·128·131072 FLOP / 1070.53 TFLOP/s
    CHECK(m.terms.sfu == Approx(0.00100300).epsilon(1e-5));   // 32·131072 exp2 / 4.18176e12 per s
    CHECK(m.terms.l2 == Approx(0.0320970).epsilon(1e-5));     // 536,887,296 B / 16727.04 GB/s
    CHECK(m.bound.term == "hbm");
    CHECK(m.bound.ms == m.terms.hbm);
}

TEST_CASE("naive GQA decode: each query head's batched GEMM reads its K/V head from DRAM again", "[model]") {
    // B = 1, H = 32, H_kv = 8, Sq = 1, Sk = 131072, D = 128, bf16, untiled (naive). All of K:
    // 8 · 131072 · 128 · 2 = 268,435,456 B > a 50 MiB L2, so heads 2..4 of each group re-read K and V:
    // 3 · 2 · 268,435,456 = 1,610,612,736 B (ncu measured 2,188.7 MB in all; 536.9 MB compulsory).
    fa::ProblemShape p = shape(1, 131072, 128, false);
    p.heads = 32;
    p.heads_kv = 8;
    const fa::TileOrder untiled;
    const fa::HbmBytes h = fa::model_hbm_bytes(p, {2, 2}, untiled, 50.0 * 1024 * 1024);
    CHECK(h.batched_gemm_rereads == 1610612736.0);
    CHECK(h.compulsory_in == 536879104.0);
    // Not in the bound: at_least is the compulsory bytes past one L2, the S/P round trips (here
    // 32 · 131072 · 6 B = 25 MB, inside the L2: none).
    CHECK(h.at_least(50.0 * 1024 * 1024) == 536879104.0 - 52428800.0);
    // MHA: nothing to re-read; a K that fits the L2: none either.
    p.heads_kv = 32;
    CHECK(fa::model_hbm_bytes(p, {2, 2}, untiled, 50.0 * 1024 * 1024).batched_gemm_rereads == 0.0);
    p.heads_kv = 8;
    p.seqlen_k = 8192;  // all of K: 8 · 8192 · 128 · 2 = 16 MiB
    CHECK(fa::model_hbm_bytes(p, {2, 2}, untiled, 50.0 * 1024 * 1024).batched_gemm_rereads == 0.0);
}

TEST_CASE("split-KV: the fp32 partials go through the L2, and past it through DRAM", "[model]") {
    // B = 1, H = 8, Sq = 1, Sk = 8192, D = 64, bf16, 4 splits: partials 4 · 8 · (64 + 1) · 4 = 8,320 B.
    fa::ProblemShape p = shape(1, 8192, 64, false);
    p.heads = 8;
    fa::TileOrder order;
    order.m_block = 64;
    order.num_splits = 4;
    // Q and O 8 · 64 · 4 = 2,048; K and V 8 · 8192 · 64 · 2 · 2 = 16,777,216; partials twice 16,640.
    CHECK(fa::model_l2_bytes(p, {2, 2}, order) == 16795904.0);
    // A 4 KiB L2 keeps 4,096 of the 8,320 B: the rest, 4,224, goes out and comes back.
    const fa::HbmBytes small = fa::model_hbm_bytes(p, {2, 2}, order, 4096);
    CHECK(small.intermediates == 8448.0);
    CHECK(small.compulsory_in == 16778240.0);  // 64 · 2 · (8 + 2 · 8192 · 8)
    CHECK(small.predicted() == 16778240.0 + 1024.0 + 8448.0);
    CHECK(fa::model_hbm_bytes(p, {2, 2}, order, 50.0 * 1024 * 1024).intermediates == 0.0);
}

TEST_CASE("head_dim 256 causal on the H100: the tensor term binds, FA4's 775 TFLOP/s is 72 % of it", "[model]") {
    // FA4's fastest row: 2 x 16 x 8192 x 256 causal, bf16; fa-bench's 128-row tiles, 132 CTAs in flight.
    fa::ProblemShape p = shape(8192, 8192, 256, true);
    p.batch = 2;
    p.heads = 16;
    fa::TileOrder order;
    order.m_block = 128;
    order.ctas_in_flight = 132;
    const fa::Ceilings c = fa::ceilings_for(*fa::known_gpu("NVIDIA H100 80GB HBM3"), fa::MathUnit::TensorCore, 2);
    const double flops = 4.0 * 2 * 16 * 256 * (8192.0 * 8193 / 2);  // 1,099,645,845,504
    const fa::Model m = fa::evaluate_model(p, {2, 2}, order, flops, c);
    CHECK(m.terms.math == Approx(1.027197).epsilon(1e-5));
    // 32 heads · 8192 · 8193 / 2 exponentials / 4.18176e12 per s.
    CHECK(m.terms.sfu == Approx(0.256799).epsilon(1e-5));
    // Per head: Q and O 8192 · 256 · 4 = 8,388,608; tile t reads (t + 1) · 128 keys, 128 · 2080 rows
    // of 1,024 B (K and V) = 272,629,760. x 32 heads = 8,992,587,776 B / 16727.04 GB/s.
    CHECK(m.l2_bytes == 8992587776.0);
    CHECK(m.terms.l2 == Approx(0.537608).epsilon(1e-5));
    // (402,653,184 − 52,428,800) inputs + (134,217,728 − 52,428,800) O = 432,013,312 B / 3352.32 GB/s.
    CHECK(m.terms.hbm == Approx(0.128870).epsilon(1e-5));
    CHECK(m.bound.term == "tensor");
    CHECK(m.bound.sum_ms == Approx(1.950474).epsilon(1e-5));
    CHECK(100.0 * m.bound.ms / (flops / 775e12 * 1e3) == Approx(72.39).epsilon(1e-3));
}

TEST_CASE("K/V re-reads: readers of a K/V chunk in more than one set of CTAs, chunk past the L2", "[model]") {
    // Sq = 1024, Sk = 4096, D = 64, bf16, 64-row tiles: 16 readers, 4 in flight = 4 passes. The
    // chunk (K and V) is 4096 · 64 · 2 · 2 = 1 MiB; a 512 KiB L2 keeps half, so each of the 3 later
    // passes re-reads 524,288 B.
    fa::TileOrder order;
    order.m_block = 64;
    order.ctas_in_flight = 4;
    CHECK(fa::model_hbm_bytes(shape(1024, 4096, 64, false), {2, 2}, order, 524288).rereads == 3 * 524288.0);
    // Causal, no L2: pass k reads keys 0 .. 256(k + 1), of which the 256·k an earlier pass read are
    // re-read: (256 + 512 + 768) keys · 256 B = 393,216.
    CHECK(fa::model_hbm_bytes(shape(1024, 4096, 64, true), {2, 2}, order, 0).rereads == 393216.0);
    // All 16 readers in flight at once: one read serves them all.
    order.ctas_in_flight = 16;
    CHECK(fa::model_hbm_bytes(shape(1024, 4096, 64, false), {2, 2}, order, 0).rereads == 0.0);
    // Unknown occupancy: none counted (the HBM term stays a lower bound).
    order.ctas_in_flight = 0;
    CHECK(fa::model_hbm_bytes(shape(1024, 4096, 64, false), {2, 2}, order, 0).rereads == 0.0);
}

TEST_CASE("the naive kernel's S and P go to DRAM past the L2", "[model]") {
    // 4 x 4 scores, D = 64, bf16, no L2: Q, K, V 64 · 2 · (4 + 8) = 1,536; O 512; S (fp32) 64 B and
    // P 32 B each written and read: 192. The same as its L2->SM bytes (model_bytes).
    const fa::HbmBytes h = fa::model_hbm_bytes(shape(4, 4, 64, false), {2, 2}, fa::TileOrder{}, 0);
    CHECK(h.intermediates == 192.0);
    CHECK(h.predicted() == 2240.0);
    CHECK(fa::model_bytes(shape(4, 4, 64, false), 0) == 2240.0);
}

TEST_CASE("practical figures: a calibration of this GPU wins over the table, another GPU's does not", "[model]") {
    const fa::Practical table = fa::practical_for("NVIDIA H100 80GB HBM3", fa::DType::BFloat16);
    CHECK(table.source == "table:NVIDIA H100 80GB HBM3");
    CHECK(table.gemm_tflops == 761.0);
    CHECK(table.copy_gbs == 2966.0);
    CHECK(fa::practical_for("Some A100", fa::DType::BFloat16).source.empty());
    fa::Calibration cal;
    cal.gpu = "NVIDIA H100 80GB HBM3";
    cal.timestamp = "2026-11-22T02:00:00Z";
    cal.gemm16_tflops = 790.5;
    cal.gemm32_tflops = 51.0;
    cal.copy_gbs = 3001.0;
    const fa::Practical mine = fa::practical_for(cal.gpu, fa::DType::BFloat16, &cal);
    CHECK(mine.source == "calibrated:2026-11-22T02:00:00Z");
    CHECK(mine.gemm_tflops == 790.5);
    CHECK(mine.copy_gbs == 3001.0);
    CHECK(fa::practical_for(cal.gpu, fa::DType::Float32, &cal).gemm_tflops == 51.0);
    CHECK(fa::practical_for("NVIDIA H200", fa::DType::BFloat16, &cal).source == "table:NVIDIA H200");
}

TEST_CASE("the calibration cache keeps one row per GPU", "[model]") {
    const std::string path = "fa_bench_test_peaks.csv";
    std::remove(path.c_str());
    fa::Calibration a{"GPU A, rev 1", "t1", 100.0, 10.0, 1000.0, 0.0, ""};
    fa::Calibration b{"GPU B", "t2", 200.0, 20.0, 2000.0, 0.0, ""};
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
