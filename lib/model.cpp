#include "fa/model.h"

#include <algorithm>

namespace fa {

Peaks peaks_for(const std::string& gpu, int sm_major, int sm_count, double sm_clock_mhz, double mem_clock_mhz,
                int bus_width_bits, DType dtype, const Calibration* cal) {
    Peaks pk;
    const double clock_hz = sm_clock_mhz * 1e6;
    // SFU: 16 exponentials per SM per clock on sm_80/sm_90 (the anchors' note on exp2).
    pk.exp_per_s = sm_count * 16.0 * clock_hz;
    if (cal != nullptr && cal->gpu == gpu) {
        pk.matmul_tflops = dtype == DType::Float32 ? cal->gemm32_tflops : cal->gemm16_tflops;
        pk.dram_gbs = cal->copy_gbs;
        pk.source = "calibrated:" + cal->timestamp;
        return pk;
    }
    // CUDA-core fp32: 128 FMA lanes per SM per clock = 256 FLOP.
    const double fp32_tflops = sm_count * 256.0 * clock_hz / 1e12;
    // Ceilings measured on this project's GPUs (shared/anchors, 2026-11-22: torch.matmul 8192³
    // bf16 and a 1 GiB device-to-device copy counting read + write bytes).
    struct Known { const char* name; double tflops, gbs; };
    static const Known kKnown[] = {{"NVIDIA H100 80GB HBM3", 761.0, 2966.0}, {"NVIDIA H200", 790.0, 4300.0}};
    for (const Known& k : kKnown) {
        if (gpu == k.name) {
            pk.matmul_tflops = dtype == DType::Float32 ? fp32_tflops : k.tflops;
            pk.dram_gbs = k.gbs;
            pk.source = std::string("table:") + k.name;
            return pk;
        }
    }
    // Dense 16-bit tensor FLOP per SM per clock: 2048 on sm_8x (A100: 108·1.41 GHz·2048 = 312 TFLOP/s),
    // 4096 on sm_90 (H100 SXM: 132·1.83 GHz·4096 = 989 TFLOP/s).
    const double tensor_per_clk = sm_major >= 9 ? 4096.0 : 2048.0;
    pk.matmul_tflops = dtype == DType::Float32 ? fp32_tflops : sm_count * tensor_per_clk * clock_hz / 1e12;
    pk.dram_gbs = 2.0 * mem_clock_mhz * 1e6 * bus_width_bits / 8.0 / 1e9;  // DDR: two transfers a clock
    pk.source = "derived";
    return pk;
}

double model_bytes(const ProblemShape& p, int m_block, bool pack_gqa, int num_splits) {
    const double esize = static_cast<double>(dtype_bytes(p.dtype));
    const double heads = static_cast<double>(p.batch) * p.heads;
    const double d = p.head_dim;
    if (m_block <= 0) {
        const double scores = static_cast<double>(p.seqlen_q) * p.seqlen_k;  // cuBLAS computes all of S
        return heads * (d * esize * (2.0 * p.seqlen_q + 2.0 * p.seqlen_k) + scores * (2.0 * 4.0 + 2.0 * esize));
    }
    // Row space of one head slot (block_info.cuh): rows_per_pos rows per query position.
    const int rows_per_pos = pack_gqa ? p.heads_per_kv() : 1;
    const double slots = static_cast<double>(p.batch) * (pack_gqa ? p.kv_heads() : p.heads);
    const long long rows = static_cast<long long>(p.seqlen_q) * rows_per_pos;
    double kv_rows = 0;  // K (or V) rows one head slot streams, summed over its row tiles
    for (long long t = 0; t * m_block < rows; ++t) {
        const long long last_pos = (std::min<long long>(rows, (t + 1) * m_block) - 1) / rows_per_pos;
        kv_rows += p.causal ? std::min<double>(p.seqlen_k, static_cast<double>(last_pos + 1)) : p.seqlen_k;
    }
    double bytes = heads * d * esize * 2.0 * p.seqlen_q + slots * d * esize * 2.0 * kv_rows;
    if (num_splits > 1) bytes += 2.0 * num_splits * heads * p.seqlen_q * (d + 1.0) * 4.0;
    return bytes;
}

double model_exponentials(const ProblemShape& p) {
    return static_cast<double>(p.batch) * p.heads * unmasked_scores(p.seqlen_q, p.seqlen_k, p.causal);
}

Bound napkin_bound(double flops, double bytes, double exps, const Peaks& pk) {
    const double t_compute = pk.matmul_tflops > 0 ? flops / (pk.matmul_tflops * 1e12) : 0.0;
    const double t_memory = pk.dram_gbs > 0 ? bytes / (pk.dram_gbs * 1e9) : 0.0;
    const double t_exp = pk.exp_per_s > 0 ? exps / pk.exp_per_s : 0.0;
    Bound b{t_compute, "compute"};
    if (t_memory > b.ms) b = {t_memory, "memory"};
    if (t_exp > b.ms) b = {t_exp, "exp"};
    b.ms *= 1e3;
    return b;
}

}  // namespace fa
