// Every flag is one row of kFlags: its name, its value's form, the rule its value must obey, the
// modes it means something in, and the function that parses its text into Options. CLI11 only
// splits argv into (flag, text) pairs; every value is parsed here, from text, so the integer
// syntax is the example's (decimal digits only) and every message has one form:
//   fa-bench: --flag value: rule
// Rules between flags (tile rule, grid limit, mode conflicts) are rows of kCrossRules. A flag
// added later is one more row of kFlags and is validated the same way.
#include "options.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "autotune.h"
#include "build_info.h"
#include "calibration_cache.h"
#include "csv_writer.h"
#include "fa/model.h"
#include "fa/registry.h"
#include "fa/splitkv.h"

namespace fa {

bool Options::was_given(std::string_view flag) const {
    return std::find(given.begin(), given.end(), flag) != given.end();
}

namespace {

// The modes fa-bench runs in; a flag lists those where its value changes what is computed or printed.
enum Mode : unsigned {
    kRun = 1u << 0,  // the default: check and time
    kProfile = 1u << 1,
    kExplain = 1u << 2,
    kList = 1u << 3,
    kCalibrate = 1u << 4,
    kSchema = 1u << 5,
    kAutotune = 1u << 6,
};
constexpr unsigned kProblemModes = kRun | kProfile | kExplain;
// The flags that say which problems and kernels: --autotune takes them too (it tunes each problem).
constexpr unsigned kShapeModes = kProblemModes | kAutotune;

// A value as a message shows it: '' when empty, control characters escaped so that the message
// stays one line.
std::string shown(const std::string& text) {
    if (text.empty()) return "''";
    std::string out;
    for (unsigned char c : text) {
        if (c == '\n') out += "\\n";
        else if (c == '\t') out += "\\t";
        else if (c < 0x20 || c == 0x7f) out += fmt::format("\\x{:02x}", c);
        else out += static_cast<char>(c);
    }
    return out;
}

// A rule a value broke: the message is "--flag <value>: <rule>".
struct Broken {
    std::string value;
    std::string rule;
};
using Result = std::optional<Broken>;

// Decimal integer syntax, as Python's int() reads the example's flags minus its extensions: an
// optional sign and the digits 0-9, nothing else (no 0x, no spaces, no underscores, no exponent).
// Values past the range of long long set *overflow instead.
bool parse_decimal(const std::string& s, long long* out, bool* overflow) {
    *overflow = false;
    std::size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
    if (i == s.size()) return false;
    for (std::size_t j = i; j < s.size(); ++j)
        if (s[j] < '0' || s[j] > '9') return false;
    errno = 0;
    *out = std::strtoll(s.c_str(), nullptr, 10);
    *overflow = errno == ERANGE;
    return true;
}

std::string range_rule(long long lo, long long hi) { return fmt::format("must be an integer in {}..{}", lo, hi); }

Result int_value(const std::string& text, long long lo, long long hi, long long* out) {
    bool overflow = false;
    if (!parse_decimal(text, out, &overflow)) return Broken{shown(text), "must be a decimal integer (digits 0-9 only)"};
    if (overflow || *out < lo || *out > hi) return Broken{shown(text), range_rule(lo, hi)};
    return std::nullopt;
}

Result int_flag(const std::string& text, int lo, int hi, int* out) {
    long long v = 0;
    if (Result r = int_value(text, lo, hi, &v)) return r;
    *out = static_cast<int>(v);
    return std::nullopt;
}

// A comma list: no empty item, no value twice (it would run the same problem twice); each item
// through `item`.
template <typename T, typename Item>
Result list_flag(const std::string& text, std::vector<T>* out, Item item) {
    std::vector<std::string> items;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = text.find(',', start);
        items.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    if (items.size() > 1)
        for (const std::string& s : items)
            if (s.empty()) return Broken{shown(text), "has an empty item (a comma list is a,b,c)"};
    out->clear();
    for (const std::string& s : items) {
        T value{};
        if (Result r = item(s, &value)) return r;
        const auto earlier = std::find(out->begin(), out->end(), value);
        if (earlier != out->end()) {
            const std::string& first = items[static_cast<std::size_t>(earlier - out->begin())];
            if (first == s) return Broken{shown(text), fmt::format("lists {} twice (each value runs once)", shown(s))};
            return Broken{shown(text), fmt::format("lists {} and {}, the same value (each value runs once)",
                                                   shown(first), shown(s))};
        }
        out->push_back(value);
    }
    return std::nullopt;
}

// Integers in lo..hi that are multiples of `step` (`why` says what the step is for).
Result int_list(const std::string& text, int lo, int hi, std::vector<int>* out, int step = 1, const char* why = "") {
    return list_flag(text, out, [&](const std::string& s, int* v) -> Result {
        if (Result r = int_flag(s, lo, hi, v)) return r;
        if (*v % step != 0) return Broken{shown(s), fmt::format("must be a multiple of {} ({})", step, why)};
        return std::nullopt;
    });
}

// Decimal number syntax: digits, a point, an exponent and signs, ending in a digit, all of it read
// by strtod (so no nan, inf, hex floats or spaces). Values past the range of double read as
// +-HUGE_VAL, which the callers' range checks refuse.
bool parse_number(const std::string& text, double* out) {
    const bool syntax = !text.empty() && text.find_first_not_of("0123456789.eE+-") == std::string::npos &&
                        std::isdigit(static_cast<unsigned char>(text.back())) != 0;
    if (!syntax) return false;
    char* end = nullptr;
    *out = std::strtod(text.c_str(), &end);
    return end == text.c_str() + text.size();
}

// A positive decimal number whose float is normal: 0 and values that round to 0 or to a subnormal
// (1e-50) would silently become another scale, values past FLT_MAX infinity. The bounds print as
// the shortest text that reads back as FLT_MIN and FLT_MAX.
Result scale_value(const std::string& text, float* out) {
    const std::string rule = fmt::format(
        "must be a positive decimal number in {}..{} (a normal float; leave the flag out for 1/sqrt(head_dim))",
        FLT_MIN, FLT_MAX);
    double v = 0.0;
    if (!parse_number(text, &v)) return Broken{shown(text), "must be a decimal number"};
    // Below FLT_MAX plus half its unit in the last place, a double rounds to a finite float; past
    // it the conversion is undefined, so such values are refused before it.
    if (!(v > 0.0) || v >= 3.4028236e38) return Broken{shown(text), rule};
    const float f = static_cast<float>(v);
    if (!(f >= FLT_MIN)) return Broken{shown(text), rule};
    *out = f;
    return std::nullopt;
}

// The warm-up and stopping-rule values (seconds, a percent): finite decimal numbers, at least 0
// or, where `positive`, above 0 (a max_time or max_noise of 0 would stop before the first launch
// or never be met). `what` is the unit as the rule names it: "seconds" or "a percent".
Result measure_value(const std::string& text, bool positive, const char* what, double* out) {
    double v = 0.0;
    if (!parse_number(text, &v)) return Broken{shown(text), "must be a decimal number"};
    if (!std::isfinite(v) || (positive ? !(v > 0.0) : !(v >= 0.0)))
        return Broken{shown(text), fmt::format("must be {} {} (a finite decimal number)", what,
                                               positive ? "> 0" : ">= 0")};
    *out = v;
    return std::nullopt;
}

// --save_tensors DIR: fa-bench creates DIR (and a folder per problem in it), not DIR's parents,
// so a mistyped parent is an error rather than a new tree.
Result save_dir_value(const std::string& text) {
    if (text.empty()) return Broken{shown(text), "must name a directory"};
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::is_directory(text, ec)) return std::nullopt;
    // A file there would only fail at the first problem's folder, after the sweep has started.
    if (fs::exists(text, ec)) return Broken{shown(text), "exists and is not a directory"};
    const fs::path parent = fs::path(text).parent_path();
    if (!parent.empty() && !fs::is_directory(parent, ec))
        return Broken{shown(text), fmt::format("its parent {} is not an existing directory (fa-bench creates DIR, "
                                               "not its parents)",
                                               shown(parent.string()))};
    return std::nullopt;
}

// One row per flag. `value` is the value's form in --help (null: a switch, which takes none);
// `rule` is what its value must be, as README's bad-input section and validation_rules() list it.
struct FlagSpec {
    const char* name;
    const char* value;
    std::string help;  // text, or formatted where it shows a default kept elsewhere (timing.h)
    const char* rule;
    unsigned modes;
    Result (*apply)(const std::string& text, Options* o);
};

static_assert(kMaxSplits == 128, "--num_splits' rule text in flag_table() names 128");

const std::vector<FlagSpec>& flag_table() {
    static const std::vector<FlagSpec> kFlags = {
        // Float8E4M3FN: Q, K, V in e4m3 with per-tensor descales, O in bf16 (fa/params.h).
        {"dtype", "NAME[,NAME...]",
         "Element type: BFloat16 (default), Float16, Float32, Float8E4M3FN (e4m3 inputs, bf16 output)",
         "each one of Float16, BFloat16, Float32, Float8E4M3FN", kShapeModes | kList,
         [](const std::string& t, Options* o) {
             return list_flag(t, &o->dtypes, [](const std::string& s, DType* d) -> Result {
                 if (parse_dtype(s, d)) return std::nullopt;
                 return Broken{shown(s), "must be one of " + dtype_names()};
             });
         }},
        {"batch_size", "INT[,INT...]", "Batch size (default 4)", "each in 1..2147483647", kShapeModes,
         [](const std::string& t, Options* o) { return int_list(t, 1, 2147483647, &o->batch_size); }},
        {"seqlen_q", "INT[,INT...]", "Query sequence length (default 8192)", "each in 1..1073741824 (2^30)",
         kShapeModes, [](const std::string& t, Options* o) { return int_list(t, 1, kMaxSeqlen, &o->seqlen_q); }},
        {"seqlen_k", "INT[,INT...]", "Key/value sequence length (default 8192)", "each in 1..1073741824 (2^30)",
         kShapeModes, [](const std::string& t, Options* o) { return int_list(t, 1, kMaxSeqlen, &o->seqlen_k); }},
        {"num_head", "INT[,INT...]", "Number of heads (default 16)", "each in 1..1048576 (2^20)", kShapeModes,
         [](const std::string& t, Options* o) { return int_list(t, 1, kMaxHeads, &o->num_head); }},
        // That each divides every --num_head is a rule between flags (below).
        {"num_head_kv", "INT[,INT...]", "K/V heads (GQA; 1 = MQA); must divide --num_head (default: --num_head)",
         "each in 1..1048576 (2^20)", kShapeModes,
         [](const std::string& t, Options* o) { return int_list(t, 1, kMaxHeads, &o->num_head_kv); }},
        // The per-kernel bound (at most its key blocks) needs the tile: plan.cpp checks it before
        // anything runs. The rule text names kMaxSplits (static_assert below).
        {"num_splits", "INT[,INT...]", "Split-KV chunks: 0 = heuristic (default), 1 = off, N = N chunks of the key range",
         "each 0 (heuristic), 1 (off) or a split count up to 128", kShapeModes,
         [](const std::string& t, Options* o) {
             return list_flag(t, &o->num_splits, [](const std::string& s, int* n) -> Result {
                 long long v = 0;
                 bool overflow = false;
                 if (!parse_decimal(s, &v, &overflow))
                     return Broken{shown(s), "must be a decimal integer (digits 0-9 only)"};
                 if (overflow || v < 0 || v > kMaxSplits)
                     return Broken{shown(s), fmt::format("must be 0 (heuristic), 1 (off) or a split count up to {}",
                                                         kMaxSplits)};
                 *n = static_cast<int>(v);
                 return std::nullopt;
             });
         }},
        {"head_dim", "INT[,INT...]", "Head dimension (default 128)", "each in 8..256 and a multiple of 8",
         kShapeModes | kList,
         [](const std::string& t, Options* o) {
             return int_list(t, 8, kMaxHeadDim, &o->head_dim, 8, "16-byte aligned rows");
         }},
        {"softmax_scale", "FLOAT", "Scale of Q.K^T (default 1/sqrt(head_dim))",
         "a positive decimal number whose float is normal (1.1754944e-38..3.4028235e+38)", kShapeModes,
         [](const std::string& t, Options* o) { return scale_value(t, &o->softmax_scale); }},
        {"m_block_size", "INT[,INT...]", "Query rows per CTA (default: the cached --autotune tile, else the kernel's default)",
         "each in 1..2147483647", kProblemModes,
         [](const std::string& t, Options* o) { return int_list(t, 1, 2147483647, &o->m_block_size); }},
        {"n_block_size", "INT[,INT...]", "Key rows per iteration (default: the cached --autotune tile, else the kernel's default)",
         "each in 1..2147483647", kProblemModes,
         [](const std::string& t, Options* o) { return int_list(t, 1, 2147483647, &o->n_block_size); }},
        {"num_threads", "INT[,INT...]", "Threads per CTA (default: the cached --autotune tile, else the kernel's default)",
         "each in 32..1024 (CUDA's threads per block) and a multiple of 32", kProblemModes,
         [](const std::string& t, Options* o) {
             return int_list(t, 32, kMaxThreadsPerBlock, &o->num_threads, 32, "whole warps");
         }},
        {"is_causal", nullptr, "Causal mask, top-left aligned (key j <= query i)", "a switch: takes no value",
         kShapeModes,
         [](const std::string&, Options* o) -> Result {
             o->causal = {1};
             return std::nullopt;
         }},
        {"causal", "0|1[,0|1]", "Causal sweep: comma list of 0/1, e.g. 0,1", "each 0 or 1", kShapeModes,
         [](const std::string& t, Options* o) {
             return list_flag(t, &o->causal, [](const std::string& s, int* c) -> Result {
                 if (s == "0" || s == "1") {
                     *c = s == "1";
                     return std::nullopt;
                 }
                 return Broken{shown(s), "each value must be 0 or 1"};
             });
         }},
        {"warmup_iterations", "INT", "At least this many untimed launches per row (default 3)", "in 0..1000000",
         kRun | kAutotune, [](const std::string& t, Options* o) { return int_flag(t, 0, kMaxIterations, &o->warmup_iterations); }},
        // Absent, the stopping rule decides the count; given, it is exact and the rule is off.
        {"iterations", "INT", "Exactly N timed launches, one CUDA-event pair each (default: the stopping rule)",
         "in 1..1000000", kRun,
         [](const std::string& t, Options* o) -> Result {
             int n = 0;
             if (Result r = int_flag(t, 1, kMaxIterations, &n)) return r;
             o->iterations = n;
             return std::nullopt;
         }},
        {"skip_ref_check", nullptr, "Do not compare with the FP32 reference", "a switch: takes no value", kRun,
         [](const std::string&, Options* o) -> Result {
             o->skip_ref_check = true;
             return std::nullopt;
         }},
        {"use_cold_l2", nullptr, "Flush L2 before every timed launch", "a switch: takes no value", kRun | kAutotune,
         [](const std::string&, Options* o) -> Result {
             o->use_cold_l2 = true;
             return std::nullopt;
         }},
        {"kernel", "NAME[,NAME...]|all", "Kernels to run (default all; fa-bench --list shows the names)",
         "each a registered kernel, or all alone", kShapeModes | kList,
         [](const std::string& t, Options* o) {
             Result r = list_flag(t, &o->kernels, [](const std::string& s, std::string* k) -> Result {
                 if (s != "all" && find_kernel(s) == nullptr)
                     return Broken{shown(s), "unknown kernel (fa-bench --list shows the names)"};
                 *k = s;
                 return std::nullopt;
             });
             if (!r && o->kernels.size() > 1 &&
                 std::find(o->kernels.begin(), o->kernels.end(), "all") != o->kernels.end())
                 return Result{Broken{shown(t), "all selects every kernel: give it alone"}};
             return r;
         }},
        {"list", nullptr, "List kernels with what they support (filtered by --kernel, --dtype, --head_dim), exit",
         "a switch: takes no value", kList,
         [](const std::string&, Options* o) -> Result {
             o->list = true;
             return std::nullopt;
         }},
        {"schema", nullptr, "Print CSV columns, kernels, dtypes, tolerances and NVTX names as JSON, exit (no GPU)",
         "a switch: takes no value", kSchema,
         [](const std::string&, Options* o) -> Result {
             o->schema = true;
             return std::nullopt;
         }},
        {"profile", nullptr, "Launch each selected kernel exactly once (no warm-up, no reference), for ncu/nsys",
         "a switch: takes no value", kProfile,
         [](const std::string&, Options* o) -> Result {
             o->profile = true;
             return std::nullopt;
         }},
        {"explain", nullptr, "Print the model and tile configuration table, time nothing (works without a GPU)",
         "a switch: takes no value", kExplain,
         [](const std::string&, Options* o) -> Result {
             o->explain = true;
             return std::nullopt;
         }},
        {"autotune", nullptr,
         "Time every instantiated tile of each kernel per problem, print the ranking, cache the fastest (GPU)",
         "a switch: takes no value", kAutotune,
         [](const std::string&, Options* o) -> Result {
             o->autotune = true;
             return std::nullopt;
         }},
        // A corrupt or unreadable cache is a warning, not an error (tune_cache.h): --autotune
        // overwrites it. Only what can never be a cache file is refused here.
        {"tune_cache", "FILE", "Cache of --autotune's choices (default ~/.cache/fa-bench/tune.csv)",
         "not empty, not a directory", kProblemModes | kAutotune,
         [](const std::string& t, Options* o) -> Result {
             if (t.empty()) return Broken{shown(t), "must name a file"};
             std::error_code ec;
             if (std::filesystem::is_directory(t, ec)) return Broken{shown(t), "is a directory, not a tune cache file"};
             o->tune_cache = t;
             return std::nullopt;
         }},
        {"no_tune_cache", nullptr, "Ignore --autotune's cached tiles: each kernel runs its default tile",
         "a switch: takes no value", kProblemModes,
         [](const std::string&, Options* o) -> Result {
             o->no_tune_cache = true;
             return std::nullopt;
         }},
        {"calibrate", nullptr, "Measure this GPU's practical figures (cuBLAS GEMM, device copy; pct_of_copy), cache, exit",
         "a switch: takes no value", kCalibrate,
         [](const std::string&, Options* o) -> Result {
             o->calibrate = true;
             return std::nullopt;
         }},
        {"peaks_file", "FILE", "Cache of --calibrate's ceilings (default ~/.cache/fa-bench/peaks.csv)",
         "not empty; an existing FILE must be a readable peaks cache (header, then gpu, timestamp and three "
         "positive numbers per line, tab-separated, and optionally the FP8 GEMM's rate or 0)",
         kProblemModes | kCalibrate,
         [](const std::string& t, Options* o) -> Result {
             if (t.empty()) return Broken{shown(t), "must name a file"};
             if (std::string e = check_peaks_file(t); !e.empty()) return Broken{shown(t), e};
             o->peaks_file = t;
             return std::nullopt;
         }},
        {"csv", "FILE", "Append one row per (kernel, problem) to FILE (header written once)",
         "not empty, not a directory; a new FILE's directory must exist and take a file; an existing FILE must be "
         "writable and its header must name every fa-bench column (README: CSV files)",
         kProblemModes,
         [](const std::string& t, Options* o) -> Result {
             if (t.empty()) return Broken{shown(t), "must name a file"};
             if (std::string e = check_csv_target(t); !e.empty()) return Broken{shown(t), e};
             o->csv = t;
             return std::nullopt;
         }},
        {"save_tensors", "DIR", "Write q, k, v, o as .npy and the flags as JSON into DIR",
         "not empty; an existing DIR must be a directory, a new DIR's parent an existing directory", kRun,
         [](const std::string& t, Options* o) -> Result {
             if (Result r = save_dir_value(t)) return r;
             o->save_tensors = t;
             return std::nullopt;
         }},
        {"seed", "INT", "Seed of the input generator (default 0)", "in 0..18446744073709551615", kRun | kProfile | kAutotune,
         [](const std::string& t, Options* o) -> Result {
             bool overflow = false;
             long long v = 0;
             const bool negative = !t.empty() && t[0] == '-';
             if (!parse_decimal(t, &v, &overflow))
                 return Broken{shown(t), "must be a decimal integer (digits 0-9 only)"};
             errno = 0;
             const unsigned long long u = std::strtoull(t.c_str() + (t[0] == '+'), nullptr, 10);
             if (negative || errno == ERANGE)
                 return Broken{shown(t), "must be an integer in 0..18446744073709551615"};
             o->seed = u;
             return std::nullopt;
         }},
        {"layout", "bshd|bhsd", "Tensor layout: bshd (the example's, default) or bhsd (PyTorch's)",
         "bshd or bhsd", kShapeModes,
         [](const std::string& t, Options* o) -> Result {
             if (parse_layout(t, &o->layout)) return std::nullopt;
             return Broken{shown(t), "must be bshd or bhsd"};
         }},
        // The model's ceilings come from the device in use; this names a GPU of the spec table
        // (lib/model.cpp) instead, so a machine without one (or scripts/remodel.py) can evaluate
        // the bound for it.
        {"model_gpu", "NAME", "Evaluate the napkin model for this GPU instead of the device (works without a GPU)",
         "one of the GPUs the model knows: NVIDIA H100 80GB HBM3, NVIDIA H200, NVIDIA A100-SXM4-80GB",
         kProblemModes,
         [](const std::string& t, Options* o) -> Result {
             if (known_gpu(t) == nullptr)
                 return Broken{shown(t), fmt::format("must be one of the GPUs the model knows: {}",
                                                     fmt::join(known_gpu_names(), ", "))};
             o->model_gpu = t;
             return std::nullopt;
         }},
        // Whether the device exists is known only once CUDA is asked (device.cpp): a named device
        // that is not there is then an error (exit 2), before anything runs.
        {"device", "INT", "CUDA device ordinal (default 0)", "in 0..2147483647", kShapeModes | kCalibrate,
         [](const std::string& t, Options* o) -> Result {
             if (Result r = int_flag(t, 0, 2147483647, &o->device)) return r;
             o->device_given = true;
             return std::nullopt;
         }},
        // Warm-up and the stopping rule (README: What is measured); only a timed run uses them.
        {"warmup_time", "SECONDS",
         fmt::format("Seconds of untimed launches per row, at least (default {})", TimingPolicy{}.warmup_time_s),
         "seconds >= 0 (a finite decimal number)", kRun | kAutotune,
         [](const std::string& t, Options* o) { return measure_value(t, false, "seconds", &o->warmup_time); }},
        {"gpu_warmup_time", "SECONDS",
         fmt::format("Seconds of warm-up before the first timed row of the process (default {})",
                     Options{}.gpu_warmup_time),
         "seconds >= 0 (a finite decimal number)", kRun | kAutotune,
         [](const std::string& t, Options* o) { return measure_value(t, false, "seconds", &o->gpu_warmup_time); }},
        {"min_samples", "INT", fmt::format("Timed launches per row, at least (default {})", StoppingRule{}.min_samples),
         "in 1..1000000", kRun | kAutotune,
         [](const std::string& t, Options* o) { return int_flag(t, 1, kMaxIterations, &o->min_samples); }},
        {"min_time", "SECONDS",
         fmt::format("Seconds of timed launches per row, at least (default {})", StoppingRule{}.min_time_s),
         "seconds >= 0 (a finite decimal number)", kRun | kAutotune,
         [](const std::string& t, Options* o) { return measure_value(t, false, "seconds", &o->min_time); }},
        {"max_noise", "PERCENT",
         fmt::format("Launch until the noise of the median is at most this percent (default {})",
                     StoppingRule{}.max_noise_pct),
         "a percent > 0 (a finite decimal number)", kRun | kAutotune,
         [](const std::string& t, Options* o) { return measure_value(t, true, "a percent", &o->max_noise); }},
        {"max_time", "SECONDS",
         fmt::format("Seconds per row after which launching stops, target met or not (default {})",
                     StoppingRule{}.max_time_s),
         "seconds > 0 (a finite decimal number)", kRun | kAutotune,
         [](const std::string& t, Options* o) { return measure_value(t, true, "seconds", &o->max_time); }},
    };
    return kFlags;
}

// The mode switches, and what each mode does (for the messages that refuse a flag it ignores).
struct ModeSpec {
    Mode mode;
    const char* flag;
    const char* does;
};
const std::vector<ModeSpec>& mode_table() {
    static const std::vector<ModeSpec> kModes = {
        {kProfile, "profile", "launches each kernel once, untimed and unchecked"},
        {kExplain, "explain", "launches nothing"},
        {kList, "list", "prints the kernels, filtered by --kernel, --dtype and --head_dim"},
        {kCalibrate, "calibrate", "measures this GPU's ceilings"},
        {kSchema, "schema", "prints the JSON schema"},
        {kAutotune, "autotune",
         "times every instantiated tile of each kernel under the stopping rule, checked, and caches the fastest"},
    };
    return kModes;
}

// Whether --kernel selects k (left out or "all": every kernel).
bool selected(const Options& o, const KernelInfo& k) {
    return o.kernels.empty() || o.kernels.front() == "all" ||
           std::find(o.kernels.begin(), o.kernels.end(), k.slug) != o.kernels.end();
}

// The smallest query tile that may run: the given --m_block_size values, else the tiled
// instances of the selected kernels. 0: only untiled kernels (their limits are per kernel).
int smallest_query_tile(const Options& o) {
    if (!o.m_block_size.empty()) return *std::min_element(o.m_block_size.begin(), o.m_block_size.end());
    int m = 0;
    for (const KernelInfo& k : kernel_registry()) {
        if (!selected(o, k)) continue;
        for (const KernelInstance& inst : k.instances())
            if (inst.tile.m_block_size > 0 && (m == 0 || inst.tile.m_block_size < m)) m = inst.tile.m_block_size;
    }
    return m;
}

// Whether a kernel --kernel selects runs the tile (m, t) without the example's rule
// (KernelInfo::example_tile_rule false: rung 10, whose warps share 16 rows and split the keys,
// instantiates 16 rows at 128 threads, and at 64 at head_dim 256). Such a tile is not bad input: the kernels that keep the
// rule report it unsupported, and that kernel runs it.
bool tile_exempt_from_example_rule(const Options& o, int m, int t) {
    for (const KernelInfo& k : kernel_registry()) {
        if (k.example_tile_rule || !selected(o, k)) continue;
        for (const KernelInstance& inst : k.instances())
            if (inst.tile.m_block_size == m && inst.tile.num_threads == t) return true;
    }
    return false;
}

int largest(const std::vector<int>& v) { return *std::max_element(v.begin(), v.end()); }

// A rule between flags: the complete message after "fa-bench: ", or empty.
struct CrossRule {
    const char* rule;
    std::string (*check)(const Options& o);
};
const std::vector<CrossRule>& cross_rules() {
    static const std::vector<CrossRule> kRules = {
        {"--is_causal and --causal: not both (--causal 1 is --is_causal; --causal 0,1 sweeps both)",
         [](const Options& o) -> std::string {
             if (o.was_given("is_causal") && o.was_given("causal"))
                 return "--is_causal with --causal: give one (--causal 1 is --is_causal; --causal 0,1 sweeps both)";
             return {};
         }},
        {"--num_head_kv with --num_head: each num_head_kv divides every num_head (query head h reads K/V head "
         "h / (num_head / num_head_kv))",
         [](const Options& o) -> std::string {
             for (int kv : o.num_head_kv)
                 for (int h : o.num_head)
                     if (h % kv != 0)
                         return fmt::format("--num_head_kv {} with --num_head {}: num_head_kv must divide num_head",
                                            kv, h);
             return {};
         }},
        {"--iterations excludes --min_samples, --min_time, --max_noise, --max_time (it fixes the launch count; the "
         "stopping rule's flags would do nothing)",
         [](const Options& o) -> std::string {
             if (!o.was_given("iterations")) return {};
             for (const char* rule_flag : {"min_samples", "min_time", "max_noise", "max_time"})
                 if (o.was_given(rule_flag))
                     return fmt::format("--iterations excludes --{}: --iterations fixes the launch count, so the "
                                        "stopping rule's --{} would do nothing; leave one out",
                                        rule_flag, rule_flag);
             return {};
         }},
        {"--min_time at most --max_time (given or default, --autotune's defaults with --autotune: max_time would "
         "stop every row before min_time)",
         [](const Options& o) -> std::string {
             const AutotuneRule tuning;
             const double min_time = o.autotune && !o.was_given("min_time") ? tuning.min_time_s : o.min_time;
             const double max_time = o.autotune && !o.was_given("max_time") ? tuning.max_time_s : o.max_time;
             if (min_time <= max_time) return {};
             return fmt::format("--min_time {} with --max_time {}: min_time must not exceed max_time", min_time,
                                max_time);
         }},
        {"--m_block_size with --num_threads: (m_block_size * 2) divisible by num_threads (the example's rule; "
         "except a tile a selected kernel whose warps do not split the rows instantiates: mma_decode's 16 rows at 128 or 64 threads)",
         [](const Options& o) -> std::string {
             for (int m : o.m_block_size)
                 for (int t : o.num_threads)
                     if ((2LL * m) % t != 0 && !tile_exempt_from_example_rule(o, m, t))
                         return fmt::format("--m_block_size {} with --num_threads {}: (m_block_size * 2) must be "
                                            "divisible by num_threads",
                                            m, t);
             return {};
         }},
        // The kernels fold row blocks x head slots x batch into grid.x and put split-KV's splits in
        // grid.y (at most kMaxSplits). Packed GQA has ceil(seqlen_q * g / m) row blocks over num_head
        // / g slots, never more than the unpacked ceil(seqlen_q / m) x num_head, so checking the
        // unpacked count holds for both.
        {"grid: ceil(seqlen_q / m_block_size) * num_head * batch_size CTAs at most 2147483647 (CUDA's grid.x limit, "
         "where the kernels fold row blocks, heads and batch; m_block_size the smallest query tile that may run)",
         [](const Options& o) -> std::string {
             const int m = smallest_query_tile(o);
             if (m == 0) return {};
             const long long sq = largest(o.seqlen_q), h = largest(o.num_head), b = largest(o.batch_size);
             const long long tiles = (sq + m - 1) / m;
             // tiles * h * b as a double first: the product can exceed 2^63 (2^24 * 2^20 * 2^31).
             if (static_cast<double>(tiles) * static_cast<double>(h) * static_cast<double>(b) <= kMaxGridCtas)
                 return {};
             return fmt::format("--batch_size {} with --num_head {} and --seqlen_q {}: {:.4g} CTAs (ceil({} / {}) "
                                "query tiles x {} heads x {}) exceed CUDA's grid limit of {}",
                                b, h, sq, static_cast<double>(tiles) * h * b, sq, m, h, b, kMaxGridCtas);
         }},
        {"--no_tune_cache excludes --tune_cache and the tile flags (it reads no cache; tile flags already bypass it)",
         [](const Options& o) -> std::string {
             if (!o.no_tune_cache) return {};
             for (const char* f : {"tune_cache", "m_block_size", "n_block_size", "num_threads"})
                 if (o.was_given(f))
                     return fmt::format("--no_tune_cache with --{}: {}; leave one out", f,
                                        std::string(f) == "tune_cache"
                                            ? "--no_tune_cache reads no cache file"
                                            : "a tile flag already bypasses the cached tiles");
             return {};
         }},
        {"--peaks_file left out: an existing default cache must be readable too (the same rule)",
         [](const Options& o) -> std::string {
             if (!o.peaks_file.empty() || o.list || o.schema) return {};
             const std::string path = default_peaks_file();
             if (std::string e = check_peaks_file(path); !e.empty())
                 return fmt::format("--peaks_file {} (the default): {}", path, e);
             return {};
         }},
    };
    return kRules;
}

// The form of a flag in messages that name it without a value.
std::string dashed(const char* name) { return std::string("--") + name; }

// Catches what CLI11 would otherwise report in its own words: a value given to a switch
// (--is_causal=0 would be read as "off") and a value flag at the end of argv with no value.
std::string pre_scan(int argc, const char* const* argv) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg.rfind("--", 0) != 0) continue;
        const std::size_t eq = arg.find('=');
        const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
        for (const FlagSpec& f : flag_table()) {
            if (name != f.name) continue;
            if (f.value == nullptr && eq != std::string::npos)
                return fmt::format("{}: --{} is a switch and takes no value (leave it out for off)", shown(arg),
                                   f.name);
            if (f.value != nullptr && eq == std::string::npos && i + 1 == argc)
                return fmt::format("--{}: needs a value ({})", f.name, f.value);
        }
    }
    return {};
}

}  // namespace

const std::vector<std::string>& validation_rules() {
    static const std::vector<std::string> kLines = [] {
        // What parse_options checks before any flag's own rule, in its order.
        std::vector<std::string> lines = {
            "a switch takes no value (--is_causal, not --is_causal=1); a value flag needs one",
            "unknown flags and stray arguments are refused",
            "every flag at most once (a comma list sweeps: --batch_size 2,3)",
            "at most one mode: --profile, --explain, --list, --calibrate, --schema, --autotune",
            "a flag the mode does not use is refused with it (the lines below say which flags each mode takes)",
            "integers: an optional sign and the digits 0-9, nothing else (no 0x, no spaces, no _, no exponent); "
            "a value out of range names the range",
            "comma lists: no empty item, no value twice",
        };
        for (const ModeSpec& m : mode_table()) {
            std::vector<std::string> takes;
            for (const FlagSpec& f : flag_table())
                if ((f.modes & m.mode) != 0 && m.flag != std::string(f.name)) takes.push_back(dashed(f.name));
            const std::string list = takes.empty() ? "no other flag" : fmt::format("{}", fmt::join(takes, " "));
            lines.push_back(fmt::format("--{} takes: {}", m.flag, list));
        }
        for (const FlagSpec& f : flag_table()) lines.push_back(fmt::format("--{}: {}", f.name, f.rule));
        for (const CrossRule& r : cross_rules()) lines.push_back(r.rule);
        return lines;
    }();
    return kLines;
}

int parse_options(int argc, const char* const* argv, Options* o, std::string* message) {
    auto fail = [&](const std::string& what) {
        *message = "fa-bench: " + what;
        return 2;
    };
    if (std::string e = pre_scan(argc, argv); !e.empty()) return fail(e);

    CLI::App app{"fa-bench: benchmark and check flash-attention forward kernels (README: bad input, limits)"};
    app.set_version_flag("--version", std::string("fa-bench ") + fa::build_commit());
    app.get_formatter()->column_width(34);
    app.allow_extras();  // reported below in fa-bench's words

    // Every value is taken as text, one per occurrence, so that repeats can be counted and the
    // value parsed by the table's rule.
    struct Given {
        const FlagSpec* spec;
        CLI::Option* option;
        std::vector<std::string> texts;
    };
    std::vector<Given> flags;
    flags.reserve(flag_table().size());
    for (const FlagSpec& f : flag_table()) flags.push_back({&f, nullptr, {}});
    for (Given& g : flags) {
        const std::string help = fmt::format("{} [{}]", g.spec->help, g.spec->rule);
        if (g.spec->value == nullptr) {
            g.option = app.add_flag(dashed(g.spec->name), help)->disable_flag_override();
        } else {
            g.option = app.add_option(dashed(g.spec->name), g.texts, help)
                           ->type_name(g.spec->value)
                           ->expected(1)
                           ->allow_extra_args(false)
                           ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
        }
    }

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        *message = app.help();
        return 0;
    } catch (const CLI::CallForVersion& e) {
        *message = e.what();
        return 0;
    } catch (const CLI::ParseError& e) {
        return fail(e.what());
    }
    for (const std::string& extra : app.remaining()) {
        if (extra.rfind("-", 0) == 0 && extra.size() > 1)
            return fail(fmt::format("{}: unknown flag (fa-bench --help lists them)", shown(extra)));
        return fail(fmt::format("{}: unexpected argument (every flag takes at most one value; comma lists sweep)",
                                shown(extra)));
    }

    for (const Given& g : flags) {
        const std::size_t count = g.option->count();
        if (count == 0) continue;
        if (count > 1) {
            if (g.spec->value == nullptr)
                return fail(fmt::format("--{} given {} times: give it once", g.spec->name, count));
            const bool list = std::string(g.spec->value).find('[') != std::string::npos;
            if (list)
                return fail(fmt::format("--{} given {} times: give it once; use a comma list to sweep (--{} {})",
                                        g.spec->name, count, g.spec->name, fmt::join(g.texts, ",")));
            return fail(fmt::format("--{} given {} times: give it once (it takes one value)", g.spec->name, count));
        }
        o->given.push_back(g.spec->name);
    }

    unsigned mode = kRun;
    const char* mode_flag = nullptr;
    for (const ModeSpec& m : mode_table()) {
        if (!o->was_given(m.flag)) continue;
        if (mode_flag != nullptr)
            return fail(fmt::format("--{} with --{}: choose one mode (each runs on its own)", mode_flag, m.flag));
        mode = m.mode;
        mode_flag = m.flag;
    }
    if (mode_flag != nullptr) {
        const ModeSpec& m = *std::find_if(mode_table().begin(), mode_table().end(),
                                          [&](const ModeSpec& s) { return s.mode == mode; });
        for (const Given& g : flags)
            if (o->was_given(g.spec->name) && (g.spec->modes & mode) == 0)
                return fail(fmt::format("--{} with --{}: --{} {}, so --{} would be ignored; leave one out",
                                        g.spec->name, m.flag, m.flag, m.does, g.spec->name));
    }

    for (const Given& g : flags) {
        if (!o->was_given(g.spec->name)) continue;
        const std::string text = g.texts.empty() ? std::string() : g.texts.front();
        if (Result r = g.spec->apply(text, o)) return fail(fmt::format("--{} {}: {}", g.spec->name, r->value, r->rule));
    }
    if (o->tile_given()) {  // a partly given tile takes the example's defaults for the rest
        if (o->m_block_size.empty()) o->m_block_size = {kExampleTile.m_block_size};
        if (o->n_block_size.empty()) o->n_block_size = {kExampleTile.n_block_size};
        if (o->num_threads.empty()) o->num_threads = {kExampleTile.num_threads};
    }
    for (const CrossRule& r : cross_rules())
        if (std::string e = r.check(*o); !e.empty()) return fail(e);
    return 0;
}

}  // namespace fa
