// One result row: provenance, the problem, the measurement, the check and the model. The same
// struct feeds the stdout table and the CSV, so the two can never disagree.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace fa {

struct Provenance {
    std::string timestamp;  // UTC, ISO 8601
    std::string git_commit;
    std::string gpu = "none";
    int sm_count = 0;
    int sm_clock_mhz = 0;        // maximum SM clock reported by the device
    std::string driver_version;  // NVIDIA driver (NVML), or the CUDA driver API version without it
    std::string cuda_runtime;
};

struct ResultRow {
    Provenance prov;
    std::string kernel, dtype, layout;
    int batch_size = 0, seqlen_q = 0, seqlen_k = 0, num_head = 0, head_dim = 0, is_causal = 0;
    int num_head_kv = 0;  // K/V heads (= num_head without GQA)
    int num_splits = 0;   // split-KV chunks the launch used (0: unknown / not planned, 1: off)
    int pack_gqa = -1;    // 1: query heads of a K/V head shared row blocks, 0: not; -1: not planned
    double softmax_scale = 0;
    int m_block_size = 0, n_block_size = 0, num_threads = 0;  // 0: not a tiled kernel (empty cell)
    int warmup_iterations = 0, iterations = 0, use_cold_l2 = 0;
    uint64_t seed = 0;
    double flops = 0, compulsory_bytes = 0, arithmetic_intensity = 0;
    bool timed = false;  // false: the time columns are empty (no GPU, skipped, profile)
    double time_ms_median = 0, time_ms_min = 0, time_ms_max = 0, noise_pct = 0, tflops = 0, bandwidth_gbs = 0;
    // How the timed launches ended (README: the stopping rule); empty when not timed.
    double warmup_ms = 0, median_noise_pct = 0;
    bool rule_applied = false;  // false: --iterations fixed the count, no noise target
    double max_noise_pct = 0;
    bool noise_target_met = false;
    // The GPU during the timed launches (README: clocks and throttling); NaN: not read.
    bool clocks_sampled = false;  // false: no NVML, the clock columns are empty
    int clock_samples = 0;
    double sm_clock_mean_mhz = 0, sm_clock_min_mhz = 0, sm_clock_max_mhz = 0;
    double power_w_mean = 0, power_limit_w = 0, temperature_c = 0, capped_pct = 0;
    // Energy per launch from NVML's energy counter (ClockSummary::energy_power_w x the median
    // time) and the FLOP it bought; NaN when the counter could not say.
    double energy_mj = 0, gflop_per_j = 0;
    std::string throttle_reasons;  // '|'-separated names, "" for none (or unknown: see clocks_sampled)
    std::string flags;             // "!clk,!pwr,!noise": why this row's time deserves less trust
    std::string check;  // PASS, FAIL, SKIPPED (--skip_ref_check), UNSUPPORTED, n/a
    bool checked = false;
    double max_abs_err = 0, rel_l2_err = 0;
    bool lse_checked = false;  // the kernel wrote the row LSE and it was compared
    double lse_max_abs_err = 0;
    // The napkin model v2 (fa/model.h) and the tile's resources; empty when unknown. The bytes
    // need only the problem and the tile (modeled); the terms and the bound need a GPU's ceilings
    // (bounded): the device's, or --model_gpu's.
    bool modeled = false, bounded = false;
    double model_bytes = 0;      // L2→SM bytes
    double model_hbm_bytes = 0;  // predicted DRAM bytes
    double t_math_ms = 0, t_sfu_ms = 0, t_hbm_ms = 0, t_l2_ms = 0;
    double bound_ms = 0, bound_sum_ms = 0, pct_of_bound = 0;
    std::string bound_term, peak_source;
    double peak_tflops = 0, peak_gbs = 0, peak_l2_gbs = 0;  // the ceilings the terms used
    std::string practical_source;                         // empty: no practical figures known
    double practical_tflops = 0, practical_gbs = 0;       // cuBLAS GEMM and device copy (0: unknown)
    double pct_of_copy = 0;  // bandwidth_gbs / practical_gbs, % (decode: how close to the copy)
    int smem_per_cta = 0, regs_per_thread = 0, ctas_per_sm = 0;
    double waves = 0;
    std::string note;
};

// One CSV column: its name, one line saying what it holds (README's table and --schema print it)
// and how a row fills the cell. The writer, the header and the meanings all come from this one
// table, so none of them can drift from the others.
struct CsvColumn {
    const char* name;
    const char* meaning;
    std::string (*cell)(const ResultRow&);
};
const std::vector<CsvColumn>& csv_column_table();
const std::vector<std::string>& csv_columns();  // the names of csv_column_table(), in order
std::string csv_quote(const std::string& field);  // RFC 4180: quote if , " CR or LF; double the quotes
std::vector<std::string> csv_cells(const ResultRow& row);  // one unquoted cell per csv_columns() entry
std::string csv_line(const ResultRow& row);                 // the cells quoted and joined, no line end

// The stdout table: a header line, then one line per row as results arrive.
void print_table_header(std::FILE* out);
void print_table_row(std::FILE* out, const ResultRow& row);

// --explain: tile resources and the model for each (kernel, problem), nothing timed.
void print_explain_header(std::FILE* out);
void print_explain_row(std::FILE* out, const ResultRow& row);

}  // namespace fa
