#include "fa/model.h"

#include <algorithm>
#include <cmath>

namespace fa {

namespace {

// The spec of the GPUs this project runs on, as cudaGetDeviceProperties reports them (H100 SXM:
// 132 SMs, 1980 MHz boost, HBM3 at 2619 MHz on a 5120-bit bus, 50 MiB L2, 228 KiB shared memory
// per SM; H200: the same die with HBM3e at 3201 MHz on 6144 bits and 60 MiB of L2 (62,914,560 B from
// cudaGetDeviceProperties on this project's H200, session 35; the table said 50 until then); A100 SXM
// 80 GB for an sm_80 case).
const std::vector<GpuSpec>& gpu_table() {
    static const std::vector<GpuSpec> kGpus = {
        {"NVIDIA H100 80GB HBM3", 90, 132, 1980, 2619, 5120, 50.0 * 1024 * 1024, 228.0 * 1024},
        {"NVIDIA H200", 90, 132, 1980, 3201, 6144, 60.0 * 1024 * 1024, 228.0 * 1024},
        {"NVIDIA A100-SXM4-80GB", 80, 108, 1410, 1593, 5120, 40.0 * 1024 * 1024, 164.0 * 1024},
    };
    return kGpus;
}

double positive_part(double x) { return x > 0 ? x : 0.0; }

}  // namespace

const GpuSpec* known_gpu(const std::string& name) {
    for (const GpuSpec& g : gpu_table())
        if (g.name == name) return &g;
    return nullptr;
}

std::vector<std::string> known_gpu_names() {
    std::vector<std::string> names;
    for (const GpuSpec& g : gpu_table()) names.push_back(g.name);
    return names;
}

Ceilings ceilings_for(const GpuSpec& gpu, MathUnit unit, double in_bytes) {
    Ceilings c;
    const double clock_hz = gpu.sm_clock_mhz * 1e6;
    if (unit == MathUnit::CudaCoreFp32 || in_bytes >= 4) {
        // FFMA: 2 FLOP per FP32 lane per clock; 64 lanes per SM on sm_80 (A100: 108 · 1.41 GHz ·
        // 128 = 19.5 TFLOP/s, the datasheet's), 128 on sm_86 and later (H100: 132 · 1.98 GHz · 256
        // = 66.9 TFLOP/s).
        const double per_clk = gpu.sm == 80 ? 128.0 : 256.0;
        c.math_tflops = gpu.sm_count * per_clk * clock_hz / 1e12;
        c.math_term = "fp32";
    } else {
        // Dense tensor FLOP per SM per clock with 16-bit inputs: 2048 on sm_8x (A100: 108 · 1.41 GHz
        // · 2048 = 312 TFLOP/s), 4096 on sm_90 (H100 SXM: 132 · 1.98 GHz · 4096 = 1070 TFLOP/s; the
        // datasheet's 989 is the same at its 1830 MHz). FP8 inputs double it where they exist (sm_89+).
        double per_clk = gpu.sm >= 90 ? 4096.0 : 2048.0;
        if (in_bytes <= 1 && gpu.sm >= 89) per_clk *= 2;
        c.math_tflops = gpu.sm_count * per_clk * clock_hz / 1e12;
    }
    // MUFU.EX2: 16 per SM per clock on sm_80/sm_90 (4 per SM sub-partition); H100: 4.18e12 /s.
    c.exp_per_s = gpu.sm_count * 16.0 * clock_hz;
    // The pins: DDR, two transfers per memory clock (H100 SXM: 2 · 2619 MHz · 640 B = 3352 GB/s,
    // the datasheet's 3.35 TB/s; no copy or kernel has read faster, the best decode row 3058).
    c.hbm_gbs = 2.0 * gpu.mem_clock_mhz * 1e6 * gpu.bus_width_bits / 8.0 / 1e9;
    // L2 → SM: 64 B per SM per clock, an SM's L1 fill width (A100: NVIDIA quotes 5120 B/clk for the
    // whole L2, below 108 · 64 = 6912). H100: 132 · 64 B · 1.98 GHz = 16.7 TB/s, over twice the
    // ~5.5-7 TB/s that L2 read microbenchmarks reach on H100s: a ceiling with room.
    c.l2_gbs = gpu.sm_count * 64.0 * clock_hz / 1e9;
    c.l2_bytes = gpu.l2_bytes;
    return c;
}

Practical practical_for(const std::string& gpu, DType dtype, const Calibration* cal) {
    Practical pr;
    if (cal != nullptr && cal->gpu == gpu) {
        pr.gemm_tflops = dtype == DType::Float32        ? cal->gemm32_tflops
                         : dtype == DType::Float8E4M3FN ? cal->gemm8_tflops  // 0 where not measured
                                                        : cal->gemm16_tflops;
        pr.copy_gbs = cal->copy_gbs;
        pr.source = "calibrated:" + cal->timestamp;
        return pr;
    }
    // Measured on this project's GPUs (shared/anchors, 2026-11-22: torch.matmul 8192³ bf16 and a
    // 1 GiB device-to-device copy counting read + write bytes).
    struct Known { const char* name; double tflops, gbs; };
    static const Known kKnown[] = {{"NVIDIA H100 80GB HBM3", 761.0, 2966.0}, {"NVIDIA H200", 790.0, 4300.0}};
    for (const Known& k : kKnown)
        if (gpu == k.name) {
            // Only bf16 GEMMs were measured on these GPUs: FP32 and FP8 rows get no GEMM figure.
            pr.gemm_tflops = dtype == DType::Float32 || dtype == DType::Float8E4M3FN ? 0.0 : k.tflops;
            pr.copy_gbs = k.gbs;
            pr.source = std::string("table:") + k.name;
        }
    return pr;
}

Elements elements_of(DType dtype) {
    return {static_cast<double>(input_bytes(dtype)), static_cast<double>(output_bytes(dtype))};
}

namespace {

// The row space of one head slot (block_info.cuh): rows_per_pos rows per query position.
struct RowSpace {
    int rows_per_pos;
    long long rows;
    long long m_blocks;
    // Keys row tile t must see: all, or causal up to its last query position.
    double keys(const ProblemShape& p, long long t, int m_block) const {
        if (!p.causal) return p.seqlen_k;
        const long long last_pos = (std::min<long long>(rows, (t + 1) * m_block) - 1) / rows_per_pos;
        return std::min<double>(p.seqlen_k, static_cast<double>(last_pos + 1));
    }
};

RowSpace row_space(const ProblemShape& p, const TileOrder& order) {
    RowSpace rs;
    rs.rows_per_pos = order.pack_gqa ? p.heads_per_kv() : 1;
    rs.rows = static_cast<long long>(p.seqlen_q) * rs.rows_per_pos;
    rs.m_blocks = order.m_block > 0 ? (rs.rows + order.m_block - 1) / order.m_block : 0;
    return rs;
}

// fp32 partial O and LSE of every split, per query row.
double split_partial_bytes(const ProblemShape& p, int num_splits) {
    if (num_splits <= 1) return 0.0;
    return static_cast<double>(num_splits) * p.batch * p.heads * p.seqlen_q * (p.head_dim + 1.0) * 4.0;
}

double scores_all(const ProblemShape& p) {  // naive's cuBLAS computes the masked scores too
    return static_cast<double>(p.batch) * p.heads * p.seqlen_q * p.seqlen_k;
}

// K/V bytes re-read from DRAM: see model_hbm_bytes in model.h. Readers of one K/V head: its row
// tiles, times the query heads of the group when unpacked (their head slots are adjacent in grid
// x). Passes of ctas_in_flight consecutive readers; pass k re-reads the keys an earlier pass also
// read, less what one L2 can keep. Each split's chunk of keys (grid y) is its own K/V chunk.
double kv_rereads(const ProblemShape& p, const Elements& e, const TileOrder& order, double l2_bytes) {
    if (order.m_block <= 0 || order.ctas_in_flight <= 0) return 0.0;
    const RowSpace rs = row_space(p, order);
    const long long readers = rs.m_blocks * (order.pack_gqa ? 1 : p.heads_per_kv());
    const long long in_flight = order.ctas_in_flight;
    if (readers <= in_flight) return 0.0;
    const int splits = std::max(order.num_splits, 1);
    const double chunk = std::ceil(static_cast<double>(p.seqlen_k) / splits);
    const double key_bytes = 2.0 * p.head_dim * e.in_bytes;  // one key's K and V rows
    double per_kv_head = 0;
    for (int s = 0; s < splits; ++s) {
        const double lo = s * chunk, hi = std::min<double>(p.seqlen_k, (s + 1) * chunk);
        double seen = 0;  // keys of the chunk read by earlier passes (a prefix: every tile reads from key 0)
        for (long long start = 0; start < readers; start += in_flight) {
            double need = 0;
            for (long long i = start; i < std::min(readers, start + in_flight); ++i)
                need = std::max(need, std::min(hi, rs.keys(p, i % rs.m_blocks, order.m_block)) - lo);
            need = positive_part(need);
            if (start > 0) per_kv_head += positive_part(std::min(need, seen) * key_bytes - l2_bytes);
            seen = std::max(seen, need);
        }
    }
    return per_kv_head * p.batch * p.kv_heads();
}

}  // namespace

double model_l2_bytes(const ProblemShape& p, const Elements& e, const TileOrder& order) {
    const double heads = static_cast<double>(p.batch) * p.heads;
    const double d = p.head_dim;
    const double q_and_o = heads * p.seqlen_q * d * (e.in_bytes + e.out_bytes);
    if (order.m_block <= 0) {
        // cuBLAS's batched GEMMs run one query head each, so each reads its K/V head again.
        const double kv = heads * p.seqlen_k * d * 2.0 * e.in_bytes;
        return q_and_o + kv + scores_all(p) * (2.0 * 4.0 + 2.0 * e.in_bytes);
    }
    const RowSpace rs = row_space(p, order);
    const double slots = static_cast<double>(p.batch) * (order.pack_gqa ? p.kv_heads() : p.heads);
    double kv_rows = 0;  // K (or V) rows one head slot streams, summed over its row tiles
    for (long long t = 0; t < rs.m_blocks; ++t) kv_rows += rs.keys(p, t, order.m_block);
    return q_and_o + slots * d * e.in_bytes * 2.0 * kv_rows + 2.0 * split_partial_bytes(p, order.num_splits);
}

double model_bytes(const ProblemShape& p, int m_block, bool pack_gqa, int num_splits) {
    TileOrder order;
    order.m_block = m_block;
    order.pack_gqa = pack_gqa;
    order.num_splits = num_splits;
    return model_l2_bytes(p, elements_of(p.dtype), order);
}

double HbmBytes::at_least(double l2_bytes) const {
    return positive_part(compulsory_in - l2_bytes) + positive_part(compulsory_out - l2_bytes) + rereads +
           intermediates;
}

HbmBytes model_hbm_bytes(const ProblemShape& p, const Elements& e, const TileOrder& order, double l2_bytes) {
    HbmBytes h;
    const double b = p.batch, d = p.head_dim;
    h.compulsory_in = b * d * e.in_bytes * (static_cast<double>(p.seqlen_q) * p.heads + 2.0 * p.seqlen_k * p.kv_heads());
    h.compulsory_out = b * d * e.out_bytes * p.seqlen_q * p.heads;
    h.rereads = kv_rereads(p, e, order, l2_bytes);
    // An intermediate is written by one launch (or CTA set) and read by the next: what the L2
    // holds at that moment need not go through DRAM, the rest goes out and comes back.
    auto round_trip = [&](double x) { return 2.0 * positive_part(x - l2_bytes); };
    if (order.m_block <= 0) {
        h.intermediates = round_trip(scores_all(p) * 4.0) + round_trip(scores_all(p) * e.in_bytes);
        const double kv_operand = b * p.kv_heads() * static_cast<double>(p.seqlen_k) * d * e.in_bytes;  // all of K
        if (p.heads_per_kv() > 1 && kv_operand > l2_bytes)
            h.batched_gemm_rereads = (p.heads_per_kv() - 1.0) * 2.0 * kv_operand;
    } else {
        h.intermediates = round_trip(split_partial_bytes(p, order.num_splits));
    }
    return h;
}

double model_exponentials(const ProblemShape& p) {
    return static_cast<double>(p.batch) * p.heads * unmasked_scores(p.seqlen_q, p.seqlen_k, p.causal);
}

Bound binding(const Terms& t, const char* math_term) {
    Bound b{t.math, t.math + t.sfu + t.hbm + t.l2, math_term};
    if (t.sfu > b.ms) b.ms = t.sfu, b.term = "sfu";
    if (t.hbm > b.ms) b.ms = t.hbm, b.term = "hbm";
    if (t.l2 > b.ms) b.ms = t.l2, b.term = "l2";
    return b;
}

Model evaluate_model(const ProblemShape& p, const Elements& e, const TileOrder& order, double flops,
                     const Ceilings& c) {
    Model m;
    m.l2_bytes = model_l2_bytes(p, e, order);
    m.hbm = model_hbm_bytes(p, e, order, c.l2_bytes);
    m.exponentials = model_exponentials(p);
    auto ms = [](double work, double per_s) { return per_s > 0 ? work / per_s * 1e3 : 0.0; };
    m.terms.math = ms(flops, c.math_tflops * 1e12);
    m.terms.sfu = ms(m.exponentials, c.exp_per_s);
    m.terms.hbm = ms(m.hbm.at_least(c.l2_bytes), c.hbm_gbs * 1e9);
    m.terms.l2 = ms(m.l2_bytes, c.l2_gbs * 1e9);
    m.bound = binding(m.terms, c.math_term);
    return m;
}

}  // namespace fa
