#include "report.h"

#include <fmt/format.h>

#include <cmath>

namespace fa {

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
// A reading of the clock sampler: empty without NVML or when the device could not tell.
std::string reading(const ResultRow& r, double v) { return num(v, r.clocks_sampled && !std::isnan(v)); }
}  // namespace

const std::vector<CsvColumn>& csv_column_table() {
    using R = const ResultRow&;
    static const std::vector<CsvColumn> kColumns = {
        {"timestamp", "UTC time the row was written (ISO 8601)", [](R r) { return r.prov.timestamp; }},
        {"git_commit", "commit fa-bench was built from (-dirty: with uncommitted changes)",
         [](R r) { return r.prov.git_commit; }},
        {"gpu", "device name (none without a GPU)", [](R r) { return r.prov.gpu; }},
        {"sm_count", "streaming multiprocessors of the device", [](R r) { return std::to_string(r.prov.sm_count); }},
        {"sm_clock_mhz", "maximum SM clock the device reports, MHz",
         [](R r) { return std::to_string(r.prov.sm_clock_mhz); }},
        {"driver_version", "NVIDIA driver (NVML), else the CUDA driver API version",
         [](R r) { return r.prov.driver_version; }},
        {"cuda_runtime", "CUDA runtime version", [](R r) { return r.prov.cuda_runtime; }},
        {"kernel", "registry slug of the kernel (a peer's name on peers.py rows)",
         [](R r) { return r.kernel; }},
        {"dtype", "element type of Q, K, V and O: Float16, BFloat16 or Float32", [](R r) { return r.dtype; }},
        {"layout", "tensor layout: bshd (batch, seqlen, heads, head_dim) or bhsd", [](R r) { return r.layout; }},
        {"batch_size", "B", [](R r) { return std::to_string(r.batch_size); }},
        {"seqlen_q", "Sq, query rows per sequence", [](R r) { return std::to_string(r.seqlen_q); }},
        {"seqlen_k", "Sk, key/value rows per sequence", [](R r) { return std::to_string(r.seqlen_k); }},
        {"num_head", "H", [](R r) { return std::to_string(r.num_head); }},
        {"num_head_kv", "K/V heads (GQA: query head h reads K/V head h / (num_head / num_head_kv))",
         [](R r) { return std::to_string(r.num_head_kv); }},
        {"head_dim", "D", [](R r) { return std::to_string(r.head_dim); }},
        {"is_causal", "1: causal mask, top-left aligned (query i sees key j iff j <= i)",
         [](R r) { return std::to_string(r.is_causal); }},
        {"softmax_scale", "the scale of Q.K^T that ran (1/sqrt(D) unless --softmax_scale)",
         [](R r) { return fmt::format("{:.8g}", r.softmax_scale); }},
        {"m_block_size", "query rows per CTA of the tile that ran (empty: untiled kernel)",
         [](R r) { return count(r.m_block_size); }},
        {"n_block_size", "key rows per main-loop iteration of the tile that ran",
         [](R r) { return count(r.n_block_size); }},
        {"num_threads", "threads per CTA of the tile (consumer threads on the warp-specialized rungs)",
         [](R r) { return count(r.num_threads); }},
        {"num_splits", "split-KV chunks the launch used (1: off; --num_splits 0 lets the heuristic choose)",
         [](R r) { return count(r.num_splits); }},
        {"pack_gqa", "1: the query heads of a K/V head shared row blocks (packed GQA)",
         [](R r) { return r.pack_gqa >= 0 ? std::to_string(r.pack_gqa) : std::string(); }},
        {"warmup_iterations", "untimed launches before timing (--warmup_iterations, more to fill the warm-up time)",
         [](R r) { return std::to_string(r.warmup_iterations); }},
        {"iterations",
         "timed launches, each between its own pair of CUDA events (what the stopping rule took, or --iterations)",
         [](R r) { return count(r.iterations); }},
        {"use_cold_l2", "1: L2 overwritten before every timed launch",
         [](R r) { return std::to_string(r.use_cold_l2); }},
        {"seed", "seed of the input generator", [](R r) { return std::to_string(r.seed); }},
        {"flops", "4*B*H*D*U, U = unmasked scores (Sq*Sk, or the causal triangle); softmax not counted",
         [](R r) { return fmt::format("{:.0f}", r.flops); }},
        {"compulsory_bytes", "(2*Sq*H + 2*Sk*H_kv)*B*D*sizeof(dtype): Q, K, V read once, O written once",
         [](R r) { return fmt::format("{:.0f}", r.compulsory_bytes); }},
        {"arithmetic_intensity", "flops / compulsory_bytes, FLOP per byte",
         [](R r) { return fmt::format("{:.6g}", r.arithmetic_intensity); }},
        {"time_ms_median", "median per-launch time, ms", [](R r) { return num(r.time_ms_median, r.timed); }},
        {"time_ms_min", "fastest launch, ms", [](R r) { return num(r.time_ms_min, r.timed); }},
        {"time_ms_max", "slowest launch, ms", [](R r) { return num(r.time_ms_max, r.timed); }},
        {"noise_pct", "standard deviation / mean of the per-launch times, %",
         [](R r) { return num(r.noise_pct, r.timed); }},
        {"tflops", "flops / median time, TFLOP/s", [](R r) { return num(r.tflops, r.timed); }},
        {"bandwidth_gbs", "compulsory_bytes / median time, GB/s", [](R r) { return num(r.bandwidth_gbs, r.timed); }},
        {"warmup_ms", "GPU time of the warm-up launches before the timed ones, ms (--warmup_time; --gpu_warmup_time "
                      "before the first timed row of a process)",
         [](R r) { return num(r.warmup_ms, r.timed); }},
        {"median_noise_pct", "noise of the median: 1.2533 * (IQR / 1.349) / sqrt(iterations) / median, %",
         [](R r) { return num(r.median_noise_pct, r.timed && !std::isnan(r.median_noise_pct)); }},
        {"max_noise_pct", "the stopping rule's target for median_noise_pct, % (empty: --iterations fixed the count)",
         [](R r) { return num(r.max_noise_pct, r.timed && r.rule_applied); }},
        {"noise_target_met", "1: median_noise_pct <= max_noise_pct; 0: --max_time stopped the row first",
         [](R r) { return r.timed && r.rule_applied ? std::string(r.noise_target_met ? "1" : "0") : std::string(); }},
        {"sm_clock_mean_mhz", "mean SM clock NVML read during the timed launches, MHz (empty: no NVML)",
         [](R r) { return reading(r, r.sm_clock_mean_mhz); }},
        {"sm_clock_min_mhz", "lowest SM clock read during the timed launches, MHz",
         [](R r) { return reading(r, r.sm_clock_min_mhz); }},
        {"sm_clock_max_mhz", "the device's maximum SM clock (NVML), the base of the 95 % rule, MHz",
         [](R r) { return reading(r, r.sm_clock_max_mhz); }},
        {"power_w_mean", "mean board power read during the timed launches, W (a 1 s running average on Ampere+)",
         [](R r) { return reading(r, r.power_w_mean); }},
        {"power_limit_w", "power limit the driver enforced, W", [](R r) { return reading(r, r.power_limit_w); }},
        {"energy_mj", "energy per launch, mJ: mean power over the timed launches from NVML's energy counter (between "
                      "its first and last steps) x time_ms_median (empty: no counter, or under 0.5 s of its steps)",
         [](R r) { return reading(r, r.energy_mj); }},
        {"gflop_per_j", "flops / energy_mj, GFLOP per joule: at a power cap, tflops = gflop_per_j x watts / 1000",
         [](R r) { return reading(r, r.gflop_per_j); }},
        {"temperature_c", "highest GPU temperature read during the timed launches, degrees C",
         [](R r) { return reading(r, r.temperature_c); }},
        {"throttle_reasons",
         "NVML clock event reasons seen during the timed launches, |-separated: sw_power_cap, hw_slowdown, "
         "sw_thermal, hw_thermal, hw_power_brake, idle, applications_clocks, sync_boost, display_clocks",
         [](R r) { return r.throttle_reasons; }},
        {"capped_pct", "readings with a power or thermal reason (sw_power_cap hw_slowdown sw_thermal hw_thermal "
                       "hw_power_brake), % of readings",
         [](R r) { return reading(r, r.capped_pct); }},
        {"clock_samples", "NVML readings during the timed launches (every 10 ms, and one at each end)",
         [](R r) { return r.clocks_sampled ? std::to_string(r.clock_samples) : std::string(); }},
        {"flags", "why to trust this time less: !clk mean SM clock < 95 % of sm_clock_max_mhz, !pwr !thm !hw a power "
                  "/ thermal / hardware-slowdown reason seen, !noise noise target not met; ,-separated",
         [](R r) { return r.flags; }},
        {"check",
         "PASS/FAIL against the FP32 reference, SKIPPED (--skip_ref_check), UNSUPPORTED (did not run, note says "
         "why), n/a (--profile, --explain, no GPU)",
         [](R r) { return r.check; }},
        {"max_abs_err", "max |o - ref| (empty: not checked)", [](R r) { return num(r.max_abs_err, r.checked); }},
        {"rel_l2_err", "||o - ref||_2 / ||ref||_2 (empty: not checked)",
         [](R r) { return num(r.rel_l2_err, r.checked); }},
        {"lse_max_abs_err", "max |lse - lse_ref| of the row log-sum-exp (empty: the kernel writes none)",
         [](R r) { return num(r.lse_max_abs_err, r.lse_checked); }},
        {"model_bytes", "model L2->SM bytes of the tile that ran: Q and O once, K and V once per query tile "
                        "(+ split partials; naive: + S and P)",
         [](R r) { return num(r.model_bytes, r.modeled); }},
        {"model_hbm_bytes", "model DRAM bytes: compulsory + K/V re-reads the L2 cannot hold + intermediates past the "
                            "L2 (what ncu's dram__bytes should read)",
         [](R r) { return num(r.model_hbm_bytes, r.modeled); }},
        {"t_math_ms", "flops / peak_tflops (the kernel's math unit: tensor cores, or FP32 FFMA), ms",
         [](R r) { return num(r.t_math_ms, r.bounded); }},
        {"t_sfu_ms", "exponentials (one exp2 per unmasked score) / SFU rate (16 per SM per clock), ms",
         [](R r) { return num(r.t_sfu_ms, r.bounded); }},
        {"t_hbm_ms", "DRAM bytes a warm-L2 launch must move (model_hbm_bytes less one L2 of inputs and one of O) / "
                     "peak_gbs, ms",
         [](R r) { return num(r.t_hbm_ms, r.bounded); }},
        {"t_l2_ms", "model_bytes / peak_l2_gbs, ms", [](R r) { return num(r.t_l2_ms, r.bounded); }},
        {"bound_ms", "the largest term (t_math_ms, t_sfu_ms, t_hbm_ms, t_l2_ms): no kernel is faster, ms",
         [](R r) { return num(r.bound_ms, r.bounded); }},
        {"bound_sum_ms", "the sum of the terms: the bound without overlap, ms",
         [](R r) { return num(r.bound_sum_ms, r.bounded); }},
        {"pct_of_bound", "bound_ms / median time, % (100: at the bound; never above; empty for a FAIL row)",
         [](R r) { return num(r.pct_of_bound, r.bounded && r.timed && r.check != "FAIL"); }},
        {"bound_term", "the largest term: tensor or fp32 (math), sfu, hbm or l2", [](R r) { return r.bound_term; }},
        {"peak_source", "where the ceilings came from: device:<gpu> (its attributes) or table:<gpu> (--model_gpu)",
         [](R r) { return r.peak_source; }},
        {"peak_tflops", "math ceiling: SMs x FLOP/clk/SM of the unit x max SM clock, TFLOP/s",
         [](R r) { return num(r.peak_tflops, r.bounded); }},
        {"peak_gbs", "DRAM ceiling: 2 x memory clock x bus width, GB/s", [](R r) { return num(r.peak_gbs, r.bounded); }},
        {"peak_l2_gbs", "L2->SM ceiling: SMs x 64 B/clk x max SM clock, GB/s",
         [](R r) { return num(r.peak_l2_gbs, r.bounded); }},
        {"practical_source", "where the practical figures came from: calibrated:<when> or table:<gpu> (empty: none)",
         [](R r) { return r.practical_source; }},
        {"practical_tflops", "a cuBLAS GEMM 8192^3 of the dtype, TFLOP/s (reached, not a ceiling)",
         [](R r) { return num(r.practical_tflops, r.practical_tflops > 0); }},
        {"practical_gbs", "a 1 GiB device-to-device copy, read + write, GB/s (reached, not a ceiling)",
         [](R r) { return num(r.practical_gbs, r.practical_gbs > 0); }},
        {"pct_of_copy", "bandwidth_gbs / practical_gbs, %: compulsory bytes against the copy (decode's metric)",
         [](R r) { return num(r.pct_of_copy, r.practical_gbs > 0 && r.timed); }},
        {"smem_per_cta", "dynamic shared memory per CTA, bytes", [](R r) { return count(r.smem_per_cta); }},
        {"regs_per_thread", "registers per thread (cudaFuncGetAttributes)",
         [](R r) { return count(r.regs_per_thread); }},
        {"ctas_per_sm", "resident CTAs per SM (occupancy API)", [](R r) { return count(r.ctas_per_sm); }},
        {"waves", "grid CTAs / (CTAs per SM * SMs)", [](R r) { return num(r.waves, r.waves > 0); }},
        {"note", "why a row was skipped or failed; how its tile was chosen (autotuned) or its last wave split (tail split)", [](R r) { return r.note; }},
    };
    return kColumns;
}

const std::vector<std::string>& csv_columns() {
    static const std::vector<std::string> kNames = [] {
        std::vector<std::string> names;
        for (const CsvColumn& c : csv_column_table()) names.push_back(c.name);
        return names;
    }();
    return kNames;
}

std::vector<std::string> csv_cells(const ResultRow& r) {
    std::vector<std::string> cells;
    for (const CsvColumn& c : csv_column_table()) cells.push_back(c.cell(r));
    return cells;
}

std::string csv_line(const ResultRow& r) {
    const std::vector<std::string> cells = csv_cells(r);
    std::string line;
    for (std::size_t i = 0; i < cells.size(); ++i) line += (i ? "," : "") + csv_quote(cells[i]);
    return line;
}

namespace {
constexpr const char* kTableFmt =
    "{:<17} {:<8} {:>3} {:>3} {:>3} {:>6} {:>6} {:>4} {:>2} {:>11} {:>3} {:>9} {:>6} {:>5} {:>8} {:>8} {:>5} {:>6} "
    "{:>8} {:>6} {:>5}  {:<11} {:>8}  {:<10} {}\n";
std::string tile_cell(const ResultRow& r) {
    return r.m_block_size ? fmt::format("{}x{}x{}", r.m_block_size, r.n_block_size, r.num_threads) : "-";
}
// Split-KV chunks, "p" appended when GQA heads were packed into the row blocks; "?" for a planned
// launch whose split count is unknown (the heuristic without a device), "-" for no plan.
std::string splits_cell(const ResultRow& r) {
    if (r.pack_gqa < 0) return "-";
    return fmt::format("{}{}", r.num_splits > 0 ? std::to_string(r.num_splits) : "?", r.pack_gqa == 1 ? "p" : "");
}
}  // namespace

void print_table_header(std::FILE* out) {
    fmt::print(out, fmt::runtime(kTableFmt), "kernel", "dtype", "B", "H", "Hkv", "Sq", "Sk", "D", "c", "tile", "spl",
               "ms", "noise%", "n", "TFLOP/s", "GB/s", "%copy", "AI", "GFLOP", "%bound", "MHz", "check", "rel_err",
               "flags", "note");
}

void print_table_row(std::FILE* out, const ResultRow& r) {
    auto timed = [&](double v, int precision) {
        return r.timed ? fmt::format("{:.{}f}", v, precision) : std::string("-");
    };
    const bool clocked = r.clocks_sampled && !std::isnan(r.sm_clock_mean_mhz);
    fmt::print(out, fmt::runtime(kTableFmt), r.kernel, r.dtype, r.batch_size, r.num_head, r.num_head_kv, r.seqlen_q,
               r.seqlen_k, r.head_dim, r.is_causal, tile_cell(r), splits_cell(r), timed(r.time_ms_median, 4),
               timed(r.noise_pct, 1), r.timed ? std::to_string(r.iterations) : "-", timed(r.tflops, 1),
               timed(r.bandwidth_gbs, 0), r.practical_gbs > 0 && r.timed ? fmt::format("{:.0f}", r.pct_of_copy) : "-",
               fmt::format("{:.1f}", r.arithmetic_intensity), fmt::format("{:.1f}", r.flops / 1e9),
               r.bounded && r.timed && r.check != "FAIL" ? fmt::format("{:.0f}", r.pct_of_bound) : "-",
               clocked ? fmt::format("{:.0f}", r.sm_clock_mean_mhz) : "-", r.check,
               r.checked ? fmt::format("{:.2e}", r.rel_l2_err) : "-", r.flags.empty() ? "-" : r.flags, r.note);
    std::fflush(out);
}

namespace {
// --explain: the tile's resources, then the model: bytes through the L2 and from DRAM, each term
// in ms, the bound, the term that binds and the overlap a kernel needs to reach it (sum / max).
constexpr const char* kExplainFmt =
    "{:<17} {:<8} {:>3} {:>3} {:>3} {:>6} {:>6} {:>4} {:>2} {:>11} {:>3} {:>8} {:>5} {:>6} {:>6} {:>10} {:>9} {:>9} "
    "{:>8} {:>8} {:>8} {:>8} {:>8} {:>6} {:>7}  {}\n";
}  // namespace

void print_explain_header(std::FILE* out) {
    fmt::print(out, fmt::runtime(kExplainFmt), "kernel", "dtype", "B", "H", "Hkv", "Sq", "Sk", "D", "c", "tile",
               "spl", "smem_B", "regs", "CTA/SM", "waves", "L2->SM_MB", "HBM_MB", "compul_MB", "math_ms", "sfu_ms",
               "hbm_ms", "l2_ms", "bound_ms", "binds", "overlap", "note");
}

void print_explain_row(std::FILE* out, const ResultRow& r) {
    auto opt = [](int v) { return v > 0 ? std::to_string(v) : std::string("-"); };
    auto mb = [&](double bytes) { return r.modeled ? fmt::format("{:.1f}", bytes / 1e6) : std::string("-"); };
    auto ms = [&](double v) { return r.bounded ? fmt::format("{:.4f}", v) : std::string("-"); };
    fmt::print(out, fmt::runtime(kExplainFmt), r.kernel, r.dtype, r.batch_size, r.num_head, r.num_head_kv,
               r.seqlen_q, r.seqlen_k, r.head_dim, r.is_causal, tile_cell(r), splits_cell(r), opt(r.smem_per_cta),
               opt(r.regs_per_thread), opt(r.ctas_per_sm), r.waves > 0 ? fmt::format("{:.2f}", r.waves) : "-",
               mb(r.model_bytes), mb(r.model_hbm_bytes), fmt::format("{:.1f}", r.compulsory_bytes / 1e6),
               ms(r.t_math_ms), ms(r.t_sfu_ms), ms(r.t_hbm_ms), ms(r.t_l2_ms), ms(r.bound_ms),
               r.bounded ? r.bound_term : "-",
               r.bounded && r.bound_ms > 0 ? fmt::format("{:.2f}x", r.bound_sum_ms / r.bound_ms) : "-", r.note);
}

}  // namespace fa
