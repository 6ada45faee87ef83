// fa-bench's command line: the CuTe DSL example's flags (same names and defaults) plus the
// benchmarking-tool flags. Every shape/tile flag takes a comma list; the runner sweeps the
// cartesian product. options.cpp validates every value once, up front, from one table of flags.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fa/problem.h"
#include "timing.h"

namespace fa {

// The CuTe DSL example's tile: what the tile flags left out take when any tile flag is given.
struct ExampleTile {
    int m_block_size, n_block_size, num_threads;
};
inline constexpr ExampleTile kExampleTile{128, 64, 128};

// Upper bounds of the size flags, each from a limit of the code that consumes the value
// (README: Limits).
// Sequence lengths: the kernels count rows in int (m_start + m_block_size, seqlen + tile - 1).
inline constexpr int kMaxSeqlen = 1 << 30;
// Heads: rung 3 forms a thread's K/V copy offset (rows per copy pass x num_head x head_dim) in int,
// at most 16 x 2^20 x 64 = 2^30 at this bound (lib/kernels/03_mma.cu).
inline constexpr int kMaxHeads = 1 << 20;
// Largest head_dim any rung instantiates (and the GPU reference's shared-memory row).
inline constexpr int kMaxHeadDim = 256;
// CUDA's limit on threads per block.
inline constexpr int kMaxThreadsPerBlock = 1024;
// Launch counts (--iterations, --min_samples, --warmup_iterations): every timed launch's time is
// kept and sorted for the row's summary; the bound keeps a mistyped count (extra zeros) from
// becoming a row that does not end.
inline constexpr int kMaxIterations = 1000000;
// CUDA's limit on blocks in grid.x: the tiled rungs fold query tiles x heads x batch into it.
inline constexpr long long kMaxGridCtas = 2147483647LL;

struct Options {
    // --- the example's flags ---
    std::vector<DType> dtypes{DType::BFloat16};
    std::vector<int> batch_size{4};
    std::vector<int> seqlen_q{8192};
    std::vector<int> seqlen_k{8192};
    std::vector<int> num_head{16};
    std::vector<int> num_head_kv;    // K/V heads (GQA); empty: as many as --num_head
    std::vector<int> num_splits{0};  // split-KV: 0 = heuristic, 1 = off, N = N chunks
    std::vector<int> head_dim{128};
    float softmax_scale = 0.0f;   // 0: 1/sqrt(head_dim) (the example defaults to 0.5; README says why)
    std::vector<int> m_block_size;  // empty: each kernel's tuned default
    std::vector<int> n_block_size;
    std::vector<int> num_threads;
    std::vector<int> causal{0};  // --is_causal sets {1}; --causal takes a list of 0/1
    int warmup_iterations = 3;      // at least this many untimed launches per row
    std::optional<int> iterations;  // given: exactly this many timed launches; absent: the stopping rule
    bool skip_ref_check = false;
    bool use_cold_l2 = false;

    // --- benchmarking-tool flags ---
    std::vector<std::string> kernels;  // empty or "all": every registered kernel
    bool list = false;
    bool schema = false;  // print the --schema JSON (columns, kernels, tolerances, NVTX names), exit
    bool profile = false;
    bool explain = false;
    bool calibrate = false;   // measure the GEMM and copy ceilings, cache them in peaks_file, exit
    bool autotune = false;    // time every tile per problem and kernel, cache the fastest in tune_cache
    std::string tune_cache;   // empty: default_tune_file()
    bool no_tune_cache = false;  // runs ignore the cached --autotune tiles
    std::string peaks_file;   // empty: default_peaks_file()
    std::string model_gpu;    // empty: the model uses the device's ceilings; else known_gpu(model_gpu)'s
    std::string csv;
    std::string save_tensors;
    uint64_t seed = 0;
    Layout layout = Layout::BSHD;
    int device = 0;
    bool device_given = false;  // --device named: a device that is not there is an error, not the analytic mode

    // --- measurement: warm-up and the stopping rule (README: What is measured), in seconds and % ---
    double warmup_time = TimingPolicy{}.warmup_time_s;  // per row, after its checked launch
    // Once per process, before the first timed row, instead of warmup_time: that row comes after
    // the GPU sat idle while the context, the tensors and the reference were made (a freshly
    // started machine: since boot). 1 s is five rows' warm-up, ~300 launches of the fastest rungs
    // on the default problem; README says how to see what it changes (--gpu_warmup_time 0).
    double gpu_warmup_time = 1.0;
    int min_samples = StoppingRule{}.min_samples;
    double min_time = StoppingRule{}.min_time_s;
    double max_noise = StoppingRule{}.max_noise_pct;
    double max_time = StoppingRule{}.max_time_s;

    // The flags given on the command line (names without "--"), in the order of the flag table.
    std::vector<std::string> given;

    bool tile_given() const { return !m_block_size.empty() || !n_block_size.empty() || !num_threads.empty(); }
    bool was_given(std::string_view flag) const;
};

// Parses and validates argv. Returns 0 to go on, or the process exit code (0 after --help or
// --version, 2 after bad input) with `message` holding what to print: for bad input one line,
// "fa-bench: --flag value: rule".
int parse_options(int argc, const char* const* argv, Options* opts, std::string* message);

// One line per rule parse_options enforces, in the order it checks them (README's bad-input
// section lists the same rules; a unit test keeps the two in step).
const std::vector<std::string>& validation_rules();

}  // namespace fa
