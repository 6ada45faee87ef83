// The fa-bench binary on bad input, one table row per case: exit status 2, nothing on stdout and
// exactly one line on stderr, "fa-bench: " and then the flag and the rule (the expected part).
// The binary is spawned with the arguments as given, so empty values and odd characters arrive
// exactly as a shell would pass them.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace fs = std::filesystem;

namespace {

struct Outcome {
    int code = -1;
    std::string out, err;
};

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// Runs fa-bench with `args`, stdout and stderr into files of `dir`.
Outcome run_fa_bench(const std::vector<std::string>& args, const fs::path& dir) {
    const fs::path out = dir / "stdout", err = dir / "stderr";
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<char*> argv{const_cast<char*>(FA_BENCH_PATH)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = 0;
    Outcome o;
    if (posix_spawn(&pid, FA_BENCH_PATH, &actions, nullptr, argv.data(), environ) == 0) {
        int status = 0;
        waitpid(pid, &status, 0);
        o.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    posix_spawn_file_actions_destroy(&actions);
    o.out = slurp(out);
    o.err = slurp(err);
    return o;
}

// Files the path rules are tried on, in a folder of this run.
struct Fixtures {
    fs::path dir;
    Fixtures() {
        dir = fs::temp_directory_path() / ("fa_bench_cli_test_" + std::to_string(::getpid()));
        fs::remove_all(dir);
        fs::create_directories(dir / "a_directory");
        std::ofstream(dir / "garbage_peaks.csv") << "\x7f" "ELF\x02\x01 not a peaks cache\n";
        std::ofstream(dir / "negative_peaks.csv") << "gpu\ttimestamp\tgemm16_tflops\tgemm32_tflops\tcopy_gbs\n"
                                                  << "NVIDIA H100\t2026-01-01T00:00:00Z\t-1\t60\t3000\n";
        // A CSV of an older fa-bench: 37 columns, before the model and resource columns.
        std::ofstream(dir / "older.csv")
            << "timestamp,git_commit,gpu,sm_count,sm_clock_mhz,driver_version,cuda_runtime,kernel,dtype,layout,"
               "batch_size,seqlen_q,seqlen_k,num_head,head_dim,is_causal,softmax_scale,m_block_size,n_block_size,"
               "num_threads,warmup_iterations,iterations,use_cold_l2,seed,flops,compulsory_bytes,"
               "arithmetic_intensity,time_ms_median,time_ms_min,time_ms_max,noise_pct,tflops,bandwidth_gbs,check,"
               "max_abs_err,rel_l2_err,note\n";
    }
    ~Fixtures() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
    std::string operator()(const char* name) const { return (dir / name).string(); }
};

struct Case {
    std::vector<std::string> args;
    std::string expected;  // what stderr's one line holds after "fa-bench: "
};

}  // namespace

TEST_CASE("bad input: one line naming the flag and the rule, exit 2, nothing run", "[cli]") {
    const Fixtures f;
    const std::vector<Case> cases = {
        // repeated flags and conflicting modes
        {{"--batch_size", "2", "--batch_size", "3"},
         "--batch_size given 2 times: give it once; use a comma list to sweep (--batch_size 2,3)"},
        {{"--dtype", "Float16", "--dtype", "BFloat16"},
         "--dtype given 2 times: give it once; use a comma list to sweep"},
        {{"--iterations", "5", "--iterations", "6"}, "--iterations given 2 times: give it once (it takes one value)"},
        {{"--is_causal", "--is_causal"}, "--is_causal given 2 times: give it once"},
        {{"--explain", "--profile"}, "--profile with --explain: choose one mode"},
        {{"--list", "--schema"}, "--list with --schema: choose one mode"},
        {{"--calibrate", "--explain"}, "--explain with --calibrate: choose one mode"},
        {{"--profile", "--iterations", "3"}, "--iterations with --profile: --profile launches each kernel once"},
        {{"--profile", "--use_cold_l2"}, "--use_cold_l2 with --profile:"},
        {{"--explain", "--use_cold_l2"}, "--use_cold_l2 with --explain: --explain launches nothing"},
        {{"--explain", "--seed", "3"}, "--seed with --explain:"},
        {{"--explain", "--save_tensors", "."}, "--save_tensors with --explain:"},
        {{"--list", "--batch_size", "2"}, "--batch_size with --list:"},
        {{"--schema", "--kernel", "mma"}, "--kernel with --schema:"},
        {{"--calibrate", "--seqlen_q", "64"}, "--seqlen_q with --calibrate:"},
        {{"--is_causal", "--causal", "0,1"}, "--is_causal with --causal: give one"},
        // --autotune: a mode of its own; it picks the tiles, checks every one and caches the winner
        {{"--autotune", "--m_block_size", "128"}, "--m_block_size with --autotune: --autotune times every instantiated"},
        {{"--autotune", "--num_threads", "128"}, "--num_threads with --autotune:"},
        {{"--autotune", "--profile"}, "--profile with --autotune: choose one mode"},
        {{"--explain", "--autotune"}, "--explain with --autotune: choose one mode"},
        {{"--autotune", "--iterations", "5"}, "--iterations with --autotune:"},
        {{"--autotune", "--skip_ref_check"}, "--skip_ref_check with --autotune:"},
        {{"--autotune", "--csv", f("new.csv")}, "--csv with --autotune:"},
        {{"--autotune", "--no_tune_cache"}, "--no_tune_cache with --autotune:"},
        {{"--autotune", "--save_tensors", f("a_directory")}, "--save_tensors with --autotune:"},
        {{"--autotune=1"}, "--autotune=1: --autotune is a switch and takes no value"},
        {{"--tune_cache", ""}, "--tune_cache '': must name a file"},
        {{"--tune_cache", f("a_directory")}, "--tune_cache " + f("a_directory") + ": is a directory"},
        {{"--tune_cache"}, "--tune_cache: needs a value (FILE)"},
        {{"--no_tune_cache", "--tune_cache", f("t.csv")}, "--no_tune_cache with --tune_cache: --no_tune_cache reads no"},
        {{"--no_tune_cache", "--m_block_size", "128"}, "--no_tune_cache with --m_block_size: a tile flag already"},
        {{"--list", "--tune_cache", f("t.csv")}, "--tune_cache with --list:"},
        {{"--calibrate", "--no_tune_cache"}, "--no_tune_cache with --calibrate:"},
        {{"--autotune", "--max_time", "0.01"}, "--min_time 0.05 with --max_time 0.01: min_time must not exceed"},
        // switches and argv shape
        {{"--is_causal=0"}, "--is_causal=0: --is_causal is a switch and takes no value"},
        {{"--use_cold_l2=1"}, "--use_cold_l2=1: --use_cold_l2 is a switch and takes no value"},
        {{"--batch_size"}, "--batch_size: needs a value (INT[,INT...])"},
        {{"--batch", "4"}, "--batch: unknown flag"},
        {{"-b", "4"}, "-b: unknown flag"},
        {{"4"}, "4: unexpected argument"},
        // integers: decimal syntax, ranges, lists
        {{"--batch_size", "0x10"}, "--batch_size 0x10: must be a decimal integer (digits 0-9 only)"},
        {{"--batch_size", " 4"}, "--batch_size  4: must be a decimal integer"},
        {{"--batch_size", "1e3"}, "--batch_size 1e3: must be a decimal integer"},
        {{"--batch_size", "1_000"}, "--batch_size 1_000: must be a decimal integer"},
        {{"--batch_size", "four"}, "--batch_size four: must be a decimal integer"},
        {{"--batch_size", ""}, "--batch_size '': must be a decimal integer"},
        {{"--batch_size", "0"}, "--batch_size 0: must be an integer in 1..2147483647"},
        {{"--batch_size", "2147483648"}, "--batch_size 2147483648: must be an integer in 1..2147483647"},
        {{"--batch_size", "99999999999999999999999"}, "must be an integer in 1..2147483647"},
        {{"--batch_size", "4,"}, "--batch_size 4,: has an empty item"},
        {{"--batch_size", "2,2"}, "--batch_size 2,2: lists 2 twice"},
        {{"--seqlen_q", "1073741825"}, "--seqlen_q 1073741825: must be an integer in 1..1073741824"},
        {{"--seqlen_k", "-1"}, "--seqlen_k -1: must be an integer in 1..1073741824"},
        {{"--num_head", "1048577"}, "--num_head 1048577: must be an integer in 1..1048576"},
        {{"--head_dim", "100"}, "--head_dim 100: must be a multiple of 8 (16-byte aligned rows)"},
        {{"--head_dim", "512"}, "--head_dim 512: must be an integer in 8..256"},
        {{"--head_dim", "0"}, "--head_dim 0: must be an integer in 8..256"},
        {{"--num_threads", "48"}, "--num_threads 48: must be a multiple of 32 (whole warps)"},
        {{"--num_threads", "2048"}, "--num_threads 2048: must be an integer in 32..1024"},
        {{"--m_block_size", "0"}, "--m_block_size 0: must be an integer in 1..2147483647"},
        {{"--m_block_size", "48", "--num_threads", "128"},
         "--m_block_size 48 with --num_threads 128: (m_block_size * 2) must be divisible by num_threads"},
        {{"--iterations", "0"}, "--iterations 0: must be an integer in 1..1000000"},
        {{"--warmup_iterations", "-1"}, "--warmup_iterations -1: must be an integer in 0..1000000"},
        {{"--seed", "-1"}, "--seed -1: must be an integer in 0..18446744073709551615"},
        {{"--seed", "18446744073709551616"},
         "--seed 18446744073709551616: must be an integer in 0..18446744073709551615"},
        {{"--seed", "1.5"}, "--seed 1.5: must be a decimal integer"},
        {{"--device", "-1"}, "--device -1: must be an integer in 0..2147483647"},
        {{"--device", "gpu0"}, "--device gpu0: must be a decimal integer"},
        // the scale
        {{"--softmax_scale", "0"},
         "--softmax_scale 0: must be a positive decimal number in 1.1754944e-38..3.4028235e+38"},
        {{"--softmax_scale", "1e-50"}, "--softmax_scale 1e-50: must be a positive decimal number"},
        {{"--softmax_scale", "1e40"}, "--softmax_scale 1e40: must be a positive decimal number"},
        {{"--softmax_scale", "-0.5"}, "--softmax_scale -0.5: must be a positive decimal number"},
        {{"--softmax_scale", "nan"}, "--softmax_scale nan: must be a decimal number"},
        {{"--softmax_scale", "inf"}, "--softmax_scale inf: must be a decimal number"},
        {{"--softmax_scale", "0x1p-3"}, "--softmax_scale 0x1p-3: must be a decimal number"},
        {{"--softmax_scale", ""}, "--softmax_scale '': must be a decimal number"},
        // names
        {{"--causal", ""}, "--causal '': each value must be 0 or 1"},
        {{"--causal", "0,2"}, "--causal 2: each value must be 0 or 1"},
        {{"--causal", "true"}, "--causal true: each value must be 0 or 1"},
        {{"--causal", "1,1"}, "--causal 1,1: lists 1 twice"},
        {{"--dtype", "Float8"}, "--dtype Float8: must be one of Float16, BFloat16, Float32, Float8E4M3FN"},
        {{"--dtype", "bfloat16"}, "--dtype bfloat16: must be one of Float16, BFloat16, Float32, Float8E4M3FN"},
        // FP8: only the CuTe DSL's name; e5m2 and the torch spelling are not FP8 forward inputs here.
        {{"--dtype", "Float8E5M2"}, "--dtype Float8E5M2: must be one of Float16, BFloat16, Float32, Float8E4M3FN"},
        {{"--dtype", "float8_e4m3fn"},
         "--dtype float8_e4m3fn: must be one of Float16, BFloat16, Float32, Float8E4M3FN"},
        {{"--dtype", "BFloat16,Float8E4M3FN,BFloat16"},
         "--dtype BFloat16,Float8E4M3FN,BFloat16: lists BFloat16 twice (each value runs once)"},
        {{"--dtype", "Float16,Float16"}, "--dtype Float16,Float16: lists Float16 twice"},
        {{"--kernel", "nope"}, "--kernel nope: unknown kernel"},
        {{"--kernel", ""}, "--kernel '': unknown kernel"},
        {{"--kernel", "all,mma"}, "--kernel all,mma: all selects every kernel: give it alone"},
        {{"--layout", "sbhd"}, "--layout sbhd: must be bshd or bhsd"},
        {{"--model_gpu", "H100"}, "--model_gpu H100: must be one of the GPUs the model knows: NVIDIA H100 80GB HBM3,"},
        {{"--model_gpu", ""}, "--model_gpu '': must be one of the GPUs the model knows"},
        {{"--list", "--model_gpu", "NVIDIA H200"}, "--model_gpu with --list:"},
        // paths
        {{"--csv", ""}, "--csv '': must name a file"},
        {{"--csv", f("a_directory")}, "--csv " + f("a_directory") + ": is a directory, not a file"},
        {{"--csv", "/nonexistent-dir/x.csv"},
         "--csv /nonexistent-dir/x.csv: its directory /nonexistent-dir does not exist"},
        {{"--csv", f("older.csv")}, "--csv " + f("older.csv") + ": its header (37 columns) lacks 42 of fa-bench's"},
        {{"--peaks_file", ""}, "--peaks_file '': must name a file"},
        {{"--peaks_file", f("a_directory")}, "--peaks_file " + f("a_directory") + ": is a directory, not a peaks file"},
        {{"--peaks_file", f("garbage_peaks.csv")},
         "--peaks_file " + f("garbage_peaks.csv") + ": line 1 is not a peaks row"},
        {{"--peaks_file", f("negative_peaks.csv")}, "line 2 is not a peaks row"},
        {{"--save_tensors", ""}, "--save_tensors '': must name a directory"},
        {{"--save_tensors", "/nonexistent-dir/run"},
         "--save_tensors /nonexistent-dir/run: its parent /nonexistent-dir is not an existing directory"},
        // GQA and split-KV (#9)
        {{"--num_head_kv", "0"}, "--num_head_kv 0: must be an integer in 1..1048576"},
        {{"--num_head_kv", "0x8"}, "--num_head_kv 0x8: must be a decimal integer"},
        {{"--num_head_kv", "4,4"}, "--num_head_kv 4,4: lists 4 twice"},
        {{"--num_head", "16", "--num_head_kv", "3"},
         "--num_head_kv 3 with --num_head 16: num_head_kv must divide num_head"},
        {{"--num_head", "16,12", "--num_head_kv", "8"},
         "--num_head_kv 8 with --num_head 12: num_head_kv must divide num_head"},
        {{"--num_head_kv", "32"}, "--num_head_kv 32 with --num_head 16: num_head_kv must divide num_head"},
        {{"--num_splits", "-1"}, "--num_splits -1: must be 0 (heuristic), 1 (off) or a split count up to 128"},
        {{"--num_splits", "129"}, "--num_splits 129: must be 0 (heuristic), 1 (off) or a split count up to 128"},
        {{"--num_splits", "1.5"}, "--num_splits 1.5: must be a decimal integer"},
        {{"--num_splits", "0,0"}, "--num_splits 0,0: lists 0 twice"},
        // the per-kernel bound needs the tile: checked when the sweep is planned, still before anything runs
        {{"--num_splits", "64", "--seqlen_k", "128", "--kernel", "mma"},
         "--num_splits 64: must be at most the key blocks of each selected kernel; mma has ceil(128 / "},
        {{"--list", "--num_head_kv", "8"}, "--num_head_kv with --list:"},
        // warm-up and the stopping rule (#12)
        {{"--warmup_time", "-1"}, "--warmup_time -1: must be seconds >= 0 (a finite decimal number)"},
        {{"--warmup_time", "1s"}, "--warmup_time 1s: must be a decimal number"},
        {{"--warmup_time", "1", "--warmup_time", "2"}, "--warmup_time given 2 times: give it once (it takes one value)"},
        {{"--gpu_warmup_time", "-2"}, "--gpu_warmup_time -2: must be seconds >= 0"},
        {{"--gpu_warmup_time", "inf"}, "--gpu_warmup_time inf: must be a decimal number"},
        {{"--min_time", "-0.5"}, "--min_time -0.5: must be seconds >= 0"},
        {{"--max_time", "0"}, "--max_time 0: must be seconds > 0 (a finite decimal number)"},
        {{"--max_time", "1e999"}, "--max_time 1e999: must be seconds > 0 (a finite decimal number)"},
        {{"--max_noise", "0"}, "--max_noise 0: must be a percent > 0 (a finite decimal number)"},
        {{"--max_noise", "-1"}, "--max_noise -1: must be a percent > 0"},
        {{"--max_noise", "nan"}, "--max_noise nan: must be a decimal number"},
        {{"--min_samples", "0"}, "--min_samples 0: must be an integer in 1..1000000"},
        {{"--min_samples", "1e3"}, "--min_samples 1e3: must be a decimal integer"},
        {{"--min_time", "3", "--max_time", "1"}, "--min_time 3 with --max_time 1: min_time must not exceed max_time"},
        {{"--min_time", "3"}, "--min_time 3 with --max_time 2: min_time must not exceed max_time"},
        {{"--iterations", "10", "--max_time", "5"}, "--iterations excludes --max_time: --iterations fixes the launch"},
        {{"--iterations", "10", "--min_time", "0.1"}, "--iterations excludes --min_time:"},
        {{"--iterations", "10", "--min_samples", "5"}, "--iterations excludes --min_samples:"},
        {{"--iterations", "10", "--max_noise", "1"}, "--iterations excludes --max_noise:"},
        {{"--explain", "--warmup_time", "1"}, "--warmup_time with --explain: --explain launches nothing"},
        {{"--profile", "--max_time", "1"}, "--max_time with --profile:"},
        {{"--save_tensors", f("older.csv")}, "--save_tensors " + f("older.csv") + ": exists and is not a directory"},
        // limits
        {{"--batch_size", "70000", "--num_head", "1048576"}, "exceed CUDA's grid limit of 2147483647"},
        {{"--batch_size", "2147483647", "--seqlen_q", "1073741824", "--num_head", "1048576", "--kernel", "mma"},
         "CTAs (ceil(1073741824 / 64) query tiles x 1048576 heads x 2147483647) exceed CUDA's grid limit"},
    };
    REQUIRE(cases.size() >= 50);
    for (const Case& c : cases) {
        std::string shown;
        for (const std::string& a : c.args) shown += " [" + a + "]";
        INFO("fa-bench" << shown);
        const Outcome o = run_fa_bench(c.args, f.dir);
        INFO("stdout: " << o.out << "\nstderr: " << o.err);
        CHECK(o.code == 2);
        CHECK(o.out.empty());
        CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
        CHECK(o.err.rfind("fa-bench: ", 0) == 0);
        CHECK(o.err.find(c.expected) != std::string::npos);
    }
}

// --autotune end to end on a tiny problem: without a GPU one line and exit 2, nothing written; with
// one, a ranking, the cache file, and a later run that takes the cached tile (note "autotuned").
TEST_CASE("autotune: needs a GPU, and with one caches a tile that later runs use", "[cli]") {
    const Fixtures f;
    const std::string cache = f("tune.csv");
    const std::vector<std::string> shape = {"--kernel", "mma", "--batch_size", "1", "--num_head", "2",
                                            "--seqlen_q", "256", "--seqlen_k", "256", "--head_dim", "64",
                                            "--tune_cache", cache};
    std::vector<std::string> tune = {"--autotune", "--max_time", "0.1"};
    tune.insert(tune.end(), shape.begin(), shape.end());
    const Outcome o = run_fa_bench(tune, f.dir);
    INFO("stdout: " << o.out << "\nstderr: " << o.err);
    if (o.code == 2) {
        CHECK(o.out.empty());
        CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
        CHECK(o.err.find("fa-bench: --autotune needs a CUDA GPU") == 0);
        CHECK_FALSE(fs::exists(cache));
        return;
    }
    REQUIRE(o.code == 0);
    CHECK(o.out.find("autotune mma [BFloat16 b1 h2 sq256 sk256 d64 c0]") != std::string::npos);
    CHECK(o.out.find("best: ") != std::string::npos);
    CHECK(slurp(cache).rfind("gpu\tkernel\t", 0) == 0);
    const Outcome run = run_fa_bench(shape, f.dir);
    INFO("run stdout: " << run.out << "\nstderr: " << run.err);
    CHECK(run.code == 0);
    CHECK(run.out.find("autotuned") != std::string::npos);
    std::vector<std::string> plain = shape;
    plain.push_back("--no_tune_cache");
    plain.erase(std::find(plain.begin(), plain.end(), "--tune_cache"), plain.end() - 1);
    const Outcome untuned = run_fa_bench(plain, f.dir);
    CHECK(untuned.code == 0);
    CHECK(untuned.out.find("autotuned") == std::string::npos);
}
