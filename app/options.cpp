#include "options.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "fa/registry.h"
#include "fa/splitkv.h"

namespace fa {
namespace {

// Largest head_dim any rung instantiates; larger values are refused up front.
constexpr int kMaxHeadDim = 256;

std::string check_positive(const char* flag, const std::vector<int>& values) {
    for (int v : values)
        if (v <= 0) return fmt::format("--{} {}: must be a positive integer", flag, v);
    return {};
}

// Warm-up and stopping-rule values: times are finite seconds, max_noise a positive percent.
std::string validate_measurement(const Options& o) {
    for (auto [flag, value] : {std::pair{"warmup_time", o.warmup_time}, {"gpu_warmup_time", o.gpu_warmup_time},
                               {"min_time", o.min_time}})
        if (!std::isfinite(value) || value < 0) return fmt::format("--{} {}: must be seconds >= 0", flag, value);
    if (!std::isfinite(o.max_time) || o.max_time <= 0)
        return fmt::format("--max_time {}: must be seconds > 0", o.max_time);
    if (o.min_time > o.max_time)
        return fmt::format("--min_time {} with --max_time {}: min_time must not exceed max_time", o.min_time,
                           o.max_time);
    if (!std::isfinite(o.max_noise) || o.max_noise <= 0)
        return fmt::format("--max_noise {}: must be a percent > 0", o.max_noise);
    if (o.min_samples < 1) return fmt::format("--min_samples {}: must be >= 1", o.min_samples);
    return {};
}

// The example's can_implement rules and fa-bench's limits, for values known before any device
// query. Device-dependent rules (shared memory, free memory, SM version) are checked per kernel.
std::string validate(const Options& o) {
    for (auto [flag, values] : {std::pair{"batch_size", &o.batch_size}, {"seqlen_q", &o.seqlen_q},
                                {"seqlen_k", &o.seqlen_k}, {"num_head", &o.num_head}, {"head_dim", &o.head_dim},
                                {"m_block_size", &o.m_block_size}, {"n_block_size", &o.n_block_size},
                                {"num_threads", &o.num_threads}})
        if (std::string e = check_positive(flag, *values); !e.empty()) return e;
    for (int d : o.head_dim) {
        if (d % 8 != 0) return fmt::format("--head_dim {}: must be a multiple of 8 (16-byte aligned rows)", d);
        if (d > kMaxHeadDim) return fmt::format("--head_dim {}: must be at most {}", d, kMaxHeadDim);
    }
    for (int t : o.num_threads)
        if (t % 32 != 0) return fmt::format("--num_threads {}: must be a multiple of 32 (whole warps)", t);
    for (int m : o.m_block_size)
        for (int t : o.num_threads)
            if ((m * 2) % t != 0)
                return fmt::format("--m_block_size {} with --num_threads {}: (m_block_size * 2) must be divisible by "
                                   "num_threads",
                                   m, t);
    for (int c : o.causal)
        if (c != 0 && c != 1) return fmt::format("--causal {}: each value must be 0 or 1", c);
    for (int kv : o.num_head_kv) {
        if (kv <= 0) return fmt::format("--num_head_kv {}: must be a positive integer", kv);
        for (int h : o.num_head)
            if (h % kv != 0)
                return fmt::format("--num_head_kv {} with --num_head {}: num_head_kv must divide num_head", kv, h);
    }
    for (int n : o.num_splits)
        if (n < 0 || n > kMaxSplits)
            return fmt::format("--num_splits {}: must be 0 (heuristic), 1 (off) or a split count up to {}", n,
                               kMaxSplits);
    if (o.warmup_iterations < 0)
        return fmt::format("--warmup_iterations {}: must be >= 0", o.warmup_iterations);
    if (o.iterations && *o.iterations < 1) return fmt::format("--iterations {}: must be >= 1", *o.iterations);
    if (std::string e = validate_measurement(o); !e.empty()) return e;
    if (!std::isfinite(o.softmax_scale) || o.softmax_scale < 0.0f)
        return fmt::format("--softmax_scale {}: must be a finite positive number", o.softmax_scale);
    for (const std::string& k : o.kernels)
        if (k != "all" && find_kernel(k) == nullptr)
            return fmt::format("--kernel {}: unknown kernel (fa-bench --list shows the names)", k);
    if (o.device < 0) return fmt::format("--device {}: must be >= 0", o.device);
    if (!o.save_tensors.empty() && std::filesystem::exists(o.save_tensors) &&
        !std::filesystem::is_directory(o.save_tensors))
        return fmt::format("--save_tensors {}: exists and is not a directory", o.save_tensors);
    if (!o.csv.empty()) {
        // Probe by opening for append; a file the probe created is removed again, so validation
        // (and --list, --explain) leave no empty CSV behind.
        const bool existed = std::filesystem::exists(o.csv);
        if (!std::ofstream(o.csv, std::ios::app))
            return fmt::format("--csv {}: cannot open the file for appending", o.csv);
        if (!existed) std::filesystem::remove(o.csv);
    }
    return {};
}

}  // namespace

int parse_options(int argc, const char* const* argv, Options* o, std::string* message) {
    CLI::App app{"fa-bench: benchmark and check flash-attention forward kernels"};
    app.set_version_flag("--version", std::string("fa-bench ") + FA_GIT_COMMIT);
    app.get_formatter()->column_width(34);

    std::vector<std::string> dtype_names;
    std::string layout_name_arg = "bshd";
    bool is_causal = false;
    std::vector<int> causal_list;

    app.add_option("--dtype", dtype_names, "Element type: BFloat16 (default), Float16, Float32; comma list")
        ->delimiter(',');
    app.add_option("--batch_size", o->batch_size, "Batch size (default 4)")->delimiter(',');
    app.add_option("--seqlen_q", o->seqlen_q, "Query sequence length (default 8192)")->delimiter(',');
    app.add_option("--seqlen_k", o->seqlen_k, "Key/value sequence length (default 8192)")->delimiter(',');
    app.add_option("--num_head", o->num_head, "Number of heads (default 16)")->delimiter(',');
    app.add_option("--num_head_kv", o->num_head_kv,
                   "K/V heads (GQA; 1 = MQA); must divide --num_head (default: --num_head)")
        ->delimiter(',');
    app.add_option("--num_splits", o->num_splits,
                   "Split-KV chunks: 0 = heuristic (default), 1 = off, N = N chunks of the key range")
        ->delimiter(',');
    app.add_option("--head_dim", o->head_dim, "Head dimension (default 128)")->delimiter(',');
    app.add_option("--softmax_scale", o->softmax_scale, "Scale of Q.K^T (default 1/sqrt(head_dim))");
    app.add_option("--m_block_size", o->m_block_size, "Query rows per CTA (default: the kernel's tuned tile)")
        ->delimiter(',');
    app.add_option("--n_block_size", o->n_block_size, "Key rows per iteration (default: the kernel's tuned tile)")
        ->delimiter(',');
    app.add_option("--num_threads", o->num_threads, "Threads per CTA (default: the kernel's tuned tile)")
        ->delimiter(',');
    auto* causal_flag = app.add_flag("--is_causal", is_causal, "Causal mask, top-left aligned (key j <= query i)");
    app.add_option("--causal", causal_list, "Causal sweep: comma list of 0/1, e.g. 0,1")
        ->delimiter(',')
        ->excludes(causal_flag);
    app.add_option("--warmup_iterations", o->warmup_iterations,
                   "At least this many untimed launches per row (default 3)");
    int iterations = 0;
    auto* iterations_flag = app.add_option(
        "--iterations", iterations, "Exactly N timed launches, one CUDA-event pair each (default: the stopping rule)");
    app.add_flag("--skip_ref_check", o->skip_ref_check, "Do not compare with the FP32 reference");
    app.add_flag("--use_cold_l2", o->use_cold_l2, "Flush L2 before every timed launch");

    app.add_option("--kernel", o->kernels, "Kernels to run: NAME[,NAME...] or all (default all)")->delimiter(',');
    app.add_flag("--list", o->list, "List kernels with what they support, then exit");
    app.add_flag("--schema", o->schema,
                 "Print CSV columns, kernels, dtypes, tolerances and NVTX names as JSON, then exit (no GPU)");
    app.add_flag("--profile", o->profile,
                 "Launch each selected kernel exactly once (no warm-up, no reference), for ncu/nsys");
    app.add_flag("--explain", o->explain, "Print the model and tile configuration table, time nothing");
    app.add_flag("--calibrate", o->calibrate,
                 "Measure this GPU's ceilings (cuBLAS GEMM, device copy) for the model, cache them, exit");
    app.add_option("--peaks_file", o->peaks_file, "Cache of --calibrate's ceilings (default ~/.cache/fa-bench/peaks.csv)");
    app.add_option("--csv", o->csv, "Append one row per (kernel, problem) to FILE (header written once)");
    app.add_option("--save_tensors", o->save_tensors, "Write q, k, v, o as .npy and the flags as JSON into DIR");
    app.add_option("--seed", o->seed, "Seed of the input generator (default 0)");
    app.add_option("--layout", layout_name_arg, "Tensor layout: bshd (the example's, default) or bhsd (PyTorch's)");
    auto* device_flag = app.add_option("--device", o->device, "CUDA device ordinal (default 0)");

    app.add_option("--warmup_time", o->warmup_time,
                   fmt::format("Seconds of untimed launches per row, at least (default {})", o->warmup_time));
    app.add_option("--gpu_warmup_time", o->gpu_warmup_time,
                   fmt::format("Seconds of warm-up before the first timed row of the process (default {})",
                               o->gpu_warmup_time));
    const StoppingRule rule;
    CLI::Option* rule_flags[] = {
        app.add_option("--min_samples", o->min_samples,
                       fmt::format("Timed launches per row, at least (default {})", rule.min_samples)),
        app.add_option("--min_time", o->min_time,
                       fmt::format("Seconds of timed launches per row, at least (default {})", rule.min_time_s)),
        app.add_option("--max_noise", o->max_noise,
                       fmt::format("Launch until the noise of the median is at most this percent (default {})",
                                   rule.max_noise_pct)),
        app.add_option("--max_time", o->max_time,
                       fmt::format("Seconds per row after which launching stops, target met or not (default {})",
                                   rule.max_time_s)),
    };
    // The stopping rule's flags mean nothing once --iterations fixes the count: refused together.
    for (CLI::Option* flag : rule_flags) iterations_flag->excludes(flag);

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        *message = app.help();
        return 0;
    } catch (const CLI::CallForVersion& e) {
        *message = e.what();
        return 0;
    } catch (const CLI::ParseError& e) {
        *message = fmt::format("fa-bench: {}", e.what());
        return 2;
    }

    if (!dtype_names.empty()) {
        o->dtypes.clear();
        for (const std::string& name : dtype_names) {
            DType t;
            if (!parse_dtype(name, &t)) {
                *message = fmt::format("fa-bench: --dtype {}: must be one of Float16, BFloat16, Float32", name);
                return 2;
            }
            o->dtypes.push_back(t);
        }
    }
    if (!parse_layout(layout_name_arg, &o->layout)) {
        *message = fmt::format("fa-bench: --layout {}: must be bshd or bhsd", layout_name_arg);
        return 2;
    }
    if (iterations_flag->count()) o->iterations = iterations;
    o->device_given = device_flag->count() > 0;
    if (is_causal) o->causal = {1};
    if (!causal_list.empty()) o->causal = causal_list;
    if (o->tile_given()) {  // a partly given tile takes the example's defaults for the rest
        if (o->m_block_size.empty()) o->m_block_size = {kExampleTile.m_block_size};
        if (o->n_block_size.empty()) o->n_block_size = {kExampleTile.n_block_size};
        if (o->num_threads.empty()) o->num_threads = {kExampleTile.num_threads};
    }
    if (std::string e = validate(*o); !e.empty()) {
        *message = "fa-bench: " + e;
        return 2;
    }
    return 0;
}

}  // namespace fa
