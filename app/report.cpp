#include "report.h"

#include <fmt/format.h>

#include <fstream>

namespace fa {

const std::vector<std::string>& csv_columns() {
    static const std::vector<std::string> kColumns = {
        "timestamp", "git_commit", "gpu", "sm_count", "sm_clock_mhz", "driver_version", "cuda_runtime", "kernel",
        "dtype", "layout", "batch_size", "seqlen_q", "seqlen_k", "num_head", "head_dim", "is_causal",
        "softmax_scale", "m_block_size", "n_block_size", "num_threads", "warmup_iterations", "iterations",
        "use_cold_l2", "seed", "flops", "compulsory_bytes", "arithmetic_intensity", "time_ms_median",
        "time_ms_min", "time_ms_max", "noise_pct", "tflops", "bandwidth_gbs", "check", "max_abs_err",
        "rel_l2_err", "model_bytes", "bound_ms", "pct_of_bound", "bound_term", "peak_source", "peak_tflops", "peak_gbs", "smem_per_cta",
        "regs_per_thread", "ctas_per_sm", "waves", "note"};
    return kColumns;
}

std::string csv_quote(const std::string& f) {
    if (f.find_first_of(",\"\r\n") == std::string::npos) return f;
    std::string q = "\"";
    for (char c : f) {
        if (c == '"') q += '"';
        q += c;
    }
    return q + "\"";
}

namespace {
std::string num(double v, bool present) { return present ? fmt::format("{:.6g}", v) : std::string(); }
std::string count(int v) { return v > 0 ? std::to_string(v) : std::string(); }
}  // namespace

std::string csv_line(const ResultRow& r) {
    const std::vector<std::string> cells = {
        r.prov.timestamp, r.prov.git_commit, r.prov.gpu, std::to_string(r.prov.sm_count),
        std::to_string(r.prov.sm_clock_mhz), r.prov.driver_version, r.prov.cuda_runtime, r.kernel, r.dtype,
        r.layout, std::to_string(r.batch_size), std::to_string(r.seqlen_q), std::to_string(r.seqlen_k),
        std::to_string(r.num_head), std::to_string(r.head_dim), std::to_string(r.is_causal),
        fmt::format("{:.8g}", r.softmax_scale), count(r.m_block_size), count(r.n_block_size),
        count(r.num_threads), std::to_string(r.warmup_iterations), std::to_string(r.iterations),
        std::to_string(r.use_cold_l2), std::to_string(r.seed), fmt::format("{:.0f}", r.flops),
        fmt::format("{:.0f}", r.compulsory_bytes), fmt::format("{:.6g}", r.arithmetic_intensity),
        num(r.time_ms_median, r.timed), num(r.time_ms_min, r.timed), num(r.time_ms_max, r.timed),
        num(r.noise_pct, r.timed), num(r.tflops, r.timed), num(r.bandwidth_gbs, r.timed), r.check,
        num(r.max_abs_err, r.checked), num(r.rel_l2_err, r.checked), num(r.model_bytes, r.modeled),
        num(r.bound_ms, r.modeled), num(r.pct_of_bound, r.modeled && r.timed), r.bound_term, r.peak_source,
        num(r.peak_tflops, r.modeled), num(r.peak_gbs, r.modeled),
        count(r.smem_per_cta), count(r.regs_per_thread), count(r.ctas_per_sm), num(r.waves, r.waves > 0), r.note};
    std::string line;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        if (i) line += ',';
        line += csv_quote(cells[i]);
    }
    return line;
}

std::string append_csv(const std::string& path, const std::vector<ResultRow>& rows) {
    bool need_header = true;
    {
        std::ifstream in(path, std::ios::binary | std::ios::ate);
        if (in && in.tellg() > 0) need_header = false;
    }
    std::ofstream out(path, std::ios::app);
    if (!out) return fmt::format("--csv {}: cannot open the file for appending", path);
    if (need_header) {
        std::string header;
        for (const std::string& c : csv_columns()) header += (header.empty() ? "" : ",") + c;
        out << header << '\n';
    }
    for (const ResultRow& r : rows) out << csv_line(r) << '\n';
    return out ? std::string() : fmt::format("--csv {}: write failed", path);
}

namespace {
constexpr const char* kTableFmt =
    "{:<17} {:<8} {:>3} {:>3} {:>6} {:>6} {:>4} {:>2} {:>11} {:>9} {:>6} {:>8} {:>8} {:>6} {:>8} {:>6}  {:<11} {:>8}  {}\n";
std::string tile_cell(const ResultRow& r) {
    return r.m_block_size ? fmt::format("{}x{}x{}", r.m_block_size, r.n_block_size, r.num_threads) : "-";
}
}  // namespace

void print_table_header(std::FILE* out) {
    fmt::print(out, fmt::runtime(kTableFmt), "kernel", "dtype", "B", "H", "Sq", "Sk", "D", "c", "tile", "ms",
               "noise%", "TFLOP/s", "GB/s", "AI", "GFLOP", "%bound", "check", "rel_err", "note");
}

void print_table_row(std::FILE* out, const ResultRow& r) {
    auto timed = [&](double v, int precision) {
        return r.timed ? fmt::format("{:.{}f}", v, precision) : std::string("-");
    };
    fmt::print(out, fmt::runtime(kTableFmt), r.kernel, r.dtype, r.batch_size, r.num_head, r.seqlen_q, r.seqlen_k,
               r.head_dim, r.is_causal, tile_cell(r), timed(r.time_ms_median, 4), timed(r.noise_pct, 1),
               timed(r.tflops, 1), timed(r.bandwidth_gbs, 0), fmt::format("{:.1f}", r.arithmetic_intensity),
               fmt::format("{:.1f}", r.flops / 1e9),
               r.modeled && r.timed ? fmt::format("{:.0f}", r.pct_of_bound) : "-", r.check,
               r.checked ? fmt::format("{:.2e}", r.rel_l2_err) : "-", r.note);
    std::fflush(out);
}

namespace {
constexpr const char* kExplainFmt =
    "{:<17} {:<8} {:>3} {:>3} {:>6} {:>6} {:>4} {:>2} {:>11} {:>8} {:>5} {:>7} {:>7} {:>10} {:>10} {:>9} {:>8}  {}\n";
}  // namespace

void print_explain_header(std::FILE* out) {
    fmt::print(out, fmt::runtime(kExplainFmt), "kernel", "dtype", "B", "H", "Sq", "Sk", "D", "c", "tile",
               "smem_B", "regs", "CTA/SM", "waves", "model_MB", "compul_MB", "bound_ms", "binds", "note");
}

void print_explain_row(std::FILE* out, const ResultRow& r) {
    auto opt = [](int v) { return v > 0 ? std::to_string(v) : std::string("-"); };
    fmt::print(out, fmt::runtime(kExplainFmt), r.kernel, r.dtype, r.batch_size, r.num_head, r.seqlen_q,
               r.seqlen_k, r.head_dim, r.is_causal, tile_cell(r), opt(r.smem_per_cta), opt(r.regs_per_thread),
               opt(r.ctas_per_sm), r.waves > 0 ? fmt::format("{:.2f}", r.waves) : "-",
               r.modeled ? fmt::format("{:.1f}", r.model_bytes / 1e6) : "-",
               fmt::format("{:.1f}", r.compulsory_bytes / 1e6),
               r.modeled ? fmt::format("{:.4f}", r.bound_ms) : "-", r.modeled ? r.bound_term : "-", r.note);
}

}  // namespace fa
