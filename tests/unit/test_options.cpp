#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "options.h"

namespace {

struct Parsed {
    int code;
    std::string message;
    fa::Options opts;
};

Parsed parse(std::vector<const char*> args) {
    args.insert(args.begin(), "fa-bench");
    Parsed p;
    p.code = fa::parse_options(static_cast<int>(args.size()), args.data(), &p.opts, &p.message);
    return p;
}

}  // namespace

TEST_CASE("defaults are the CuTe DSL example's", "[options]") {
    const Parsed p = parse({});
    REQUIRE(p.code == 0);
    REQUIRE(p.message.empty());
    const fa::Options& o = p.opts;
    CHECK(o.dtypes == std::vector<fa::DType>{fa::DType::BFloat16});
    CHECK(o.batch_size == std::vector<int>{4});
    CHECK(o.seqlen_q == std::vector<int>{8192});
    CHECK(o.seqlen_k == std::vector<int>{8192});
    CHECK(o.num_head == std::vector<int>{16});
    CHECK(o.head_dim == std::vector<int>{128});
    CHECK(o.causal == std::vector<int>{0});
    CHECK(o.warmup_iterations == 3);
    CHECK_FALSE(o.iterations);  // no fixed count: the stopping rule decides
    CHECK(o.warmup_time == 0.2);
    CHECK(o.gpu_warmup_time == 1.0);
    CHECK(o.min_samples == 10);
    CHECK(o.min_time == 0.2);
    CHECK(o.max_noise == 0.5);
    CHECK(o.max_time == 2.0);
    CHECK(o.device == 0);
    CHECK_FALSE(o.device_given);  // no GPU then means the static rows, not an error
    CHECK_FALSE(o.skip_ref_check);
    CHECK_FALSE(o.use_cold_l2);
    CHECK_FALSE(o.tile_given());  // each kernel takes its tuned tile
    CHECK(o.softmax_scale == 0.0f);
    CHECK(o.layout == fa::Layout::BSHD);
}

TEST_CASE("every flag is parsed", "[options]") {
    const Parsed p = parse({"--dtype", "Float16", "--batch_size", "2", "--seqlen_q", "1280", "--seqlen_k", "1536",
                            "--num_head", "8", "--head_dim", "64", "--softmax_scale", "0.5", "--m_block_size", "64",
                            "--n_block_size", "32", "--num_threads", "64", "--is_causal", "--warmup_iterations", "0",
                            "--iterations", "7", "--skip_ref_check", "--use_cold_l2", "--kernel", "naive", "--csv",
                            "x.csv", "--seed", "42", "--layout", "bhsd", "--save_tensors", "dir", "--device", "1"});
    REQUIRE(p.message.empty());
    REQUIRE(p.code == 0);
    const fa::Options& o = p.opts;
    CHECK(o.dtypes == std::vector<fa::DType>{fa::DType::Float16});
    CHECK(o.batch_size == std::vector<int>{2});
    CHECK(o.seqlen_q == std::vector<int>{1280});
    CHECK(o.seqlen_k == std::vector<int>{1536});
    CHECK(o.num_head == std::vector<int>{8});
    CHECK(o.head_dim == std::vector<int>{64});
    CHECK(o.softmax_scale == 0.5f);
    CHECK(o.m_block_size == std::vector<int>{64});
    CHECK(o.n_block_size == std::vector<int>{32});
    CHECK(o.num_threads == std::vector<int>{64});
    CHECK(o.causal == std::vector<int>{1});
    CHECK(o.warmup_iterations == 0);
    CHECK(o.iterations == 7);
    CHECK(o.skip_ref_check);
    CHECK(o.use_cold_l2);
    CHECK(o.kernels == std::vector<std::string>{"naive"});
    CHECK(o.csv == "x.csv");
    CHECK(o.seed == 42);
    CHECK(o.layout == fa::Layout::BHSD);
    CHECK(o.save_tensors == "dir");
    CHECK(o.device == 1);
    CHECK_FALSE(o.profile);
    CHECK(o.was_given("csv"));
    CHECK_FALSE(o.was_given("list"));
}

TEST_CASE("each mode takes the flags it uses", "[options]") {
    Parsed p = parse({"--profile", "--kernel", "mma", "--seed", "7", "--seqlen_q", "512", "--csv", "x.csv"});
    REQUIRE(p.message.empty());
    CHECK(p.opts.profile);
    CHECK(p.opts.seed == 7);
    p = parse({"--explain", "--kernel", "all", "--head_dim", "64,128", "--softmax_scale", "0.125"});
    REQUIRE(p.message.empty());
    CHECK(p.opts.explain);
    p = parse({"--list", "--kernel", "mma", "--dtype", "Float16", "--head_dim", "64"});
    REQUIRE(p.message.empty());
    CHECK(p.opts.list);
    p = parse({"--calibrate", "--device", "0"});
    REQUIRE(p.message.empty());
    CHECK(p.opts.calibrate);
    CHECK(parse({"--schema"}).opts.schema);
}

TEST_CASE("integers are decimal, up to the range of their flag", "[options]") {
    CHECK(parse({"--batch_size", "+3"}).opts.batch_size == std::vector<int>{3});
    CHECK(parse({"--batch_size", "007"}).opts.batch_size == std::vector<int>{7});
    CHECK(parse({"--seqlen_q", "1073741824", "--kernel", "naive"}).code == 0);
    CHECK(parse({"--seed", "18446744073709551615"}).opts.seed == 18446744073709551615ull);
    CHECK(parse({"--softmax_scale", "1.17549435e-38"}).code == 0);
    CHECK(parse({"--softmax_scale", "3.4028235e+38"}).code == 0);
    CHECK(parse({"--softmax_scale", "1.1754944e-38"}).code == 0);
    CHECK(parse({"--softmax_scale", "0.08838834764831845"}).code == 0);  // Python's repr, as the scripts pass it
}

TEST_CASE("the warm-up and stopping-rule flags are parsed", "[options]") {
    const Parsed p = parse({"--warmup_time", "0.5", "--gpu_warmup_time", "3", "--min_samples", "20", "--min_time",
                            "0.25", "--max_noise", "1.5", "--max_time", "4", "--device", "1"});
    REQUIRE(p.code == 0);
    const fa::Options& o = p.opts;
    CHECK(o.warmup_time == 0.5);
    CHECK(o.gpu_warmup_time == 3.0);
    CHECK(o.min_samples == 20);
    CHECK(o.min_time == 0.25);
    CHECK(o.max_noise == 1.5);
    CHECK(o.max_time == 4.0);
    CHECK(o.device == 1);
    CHECK(o.device_given);
    CHECK_FALSE(o.iterations);
    // Zero warm-up is allowed: the old behaviour, a count of launches only.
    CHECK(parse({"--warmup_time", "0", "--gpu_warmup_time", "0"}).code == 0);
    CHECK(parse({"--device", "0"}).opts.device_given);
}

TEST_CASE("an iterations count fixes the launches and excludes the stopping rule's flags", "[options]") {
    const Parsed p = parse({"--iterations", "7", "--warmup_time", "0"});
    REQUIRE(p.code == 0);
    REQUIRE(p.opts.iterations);
    CHECK(*p.opts.iterations == 7);
    for (const char* flag : {"--min_samples", "--min_time", "--max_noise", "--max_time"}) {
        INFO(flag);
        const Parsed both = parse({"--iterations", "7", flag, "1"});
        CHECK(both.code == 2);
        CHECK(both.message.find("--iterations") != std::string::npos);
        CHECK(both.message.find(flag) != std::string::npos);
        CHECK(both.message.find('\n') == std::string::npos);
    }
}

TEST_CASE("save_tensors onto an existing file is refused before anything runs", "[options]") {
    const std::string file = "fa_bench_test_save_tensors_target.txt";
    std::ofstream(file) << "not a directory\n";
    const Parsed p = parse({"--save_tensors", file.c_str()});
    CHECK(p.code == 2);
    CHECK(p.message == "fa-bench: --save_tensors " + file + ": exists and is not a directory");
    std::remove(file.c_str());
    // A directory, existing or not, is what the flag takes.
    CHECK(parse({"--save_tensors", "."}).code == 0);
    CHECK(parse({"--save_tensors", "fa_bench_test_not_there_yet"}).code == 0);
}

TEST_CASE("K/V heads and split counts are parsed as lists", "[options]") {
    const Parsed p = parse({"--num_head", "32,16", "--num_head_kv", "16,8,1", "--num_splits", "0,1,128"});
    REQUIRE(p.message.empty());
    REQUIRE(p.code == 0);
    CHECK(p.opts.num_head_kv == std::vector<int>{16, 8, 1});
    CHECK(p.opts.num_splits == std::vector<int>{0, 1, 128});
    // Left out: as many K/V heads as query heads, and the split heuristic.
    const Parsed d = parse({});
    CHECK(d.opts.num_head_kv.empty());
    CHECK(d.opts.num_splits == std::vector<int>{0});
    // --explain and --profile plan launches too, so they take both.
    CHECK(parse({"--explain", "--num_head_kv", "8", "--num_splits", "4"}).code == 0);
    CHECK(parse({"--profile", "--num_head_kv", "8", "--num_splits", "4"}).code == 0);
}

TEST_CASE("comma lists sweep shapes, dtypes and causal", "[options]") {
    const Parsed p = parse({"--seqlen_q", "1024,2048,4096", "--head_dim", "64,128", "--causal", "0,1", "--dtype",
                            "BFloat16,Float16"});
    REQUIRE(p.code == 0);
    CHECK(p.opts.seqlen_q == std::vector<int>{1024, 2048, 4096});
    CHECK(p.opts.head_dim == std::vector<int>{64, 128});
    CHECK(p.opts.causal == std::vector<int>{0, 1});
    CHECK(p.opts.dtypes == std::vector<fa::DType>{fa::DType::BFloat16, fa::DType::Float16});
}

TEST_CASE("a partly given tile takes the example's defaults for the rest", "[options]") {
    const Parsed p = parse({"--n_block_size", "128"});
    REQUIRE(p.code == 0);
    CHECK(p.opts.m_block_size == std::vector<int>{128});
    CHECK(p.opts.n_block_size == std::vector<int>{128});
    CHECK(p.opts.num_threads == std::vector<int>{128});
}

TEST_CASE("the example's tile rule gives way where a kernel runs the tile without it", "[options]") {
    // Rung 10's 16 x 64 tile at 128 threads (its warps split the keys, not the rows): 2·16 % 128 != 0.
    CHECK(parse({"--kernel", "mma_decode", "--m_block_size", "16", "--num_threads", "128"}).code == 0);
    CHECK(parse({"--m_block_size", "16", "--num_threads", "128"}).code == 0);            // all kernels
    CHECK(parse({"--kernel", "mma,mma_decode", "--m_block_size", "16", "--num_threads", "128"}).code == 0);
    // Without that kernel, or at a tile no exempt kernel instantiates, the rule holds.
    const Parsed mma = parse({"--kernel", "mma", "--m_block_size", "16", "--num_threads", "128"});
    CHECK(mma.code == 2);
    CHECK(mma.message ==
          "fa-bench: --m_block_size 16 with --num_threads 128: (m_block_size * 2) must be divisible by num_threads");
    CHECK(parse({"--kernel", "mma_decode", "--m_block_size", "48", "--num_threads", "128"}).code == 2);
}

TEST_CASE("bad values get one line naming the flag and the rule", "[options]") {
    struct Case {
        std::vector<const char*> args;
        const char* message;
    };
    const std::vector<Case> cases = {
        {{"--head_dim", "100"}, "fa-bench: --head_dim 100: must be a multiple of 8 (16-byte aligned rows)"},
        {{"--head_dim", "512"}, "fa-bench: --head_dim 512: must be an integer in 8..256"},
        {{"--num_threads", "100"}, "fa-bench: --num_threads 100: must be a multiple of 32 (whole warps)"},
        {{"--m_block_size", "48", "--num_threads", "128"},
         "fa-bench: --m_block_size 48 with --num_threads 128: (m_block_size * 2) must be divisible by num_threads"},
        {{"--batch_size", "0"}, "fa-bench: --batch_size 0: must be an integer in 1..2147483647"},
        {{"--batch_size", "0x10"}, "fa-bench: --batch_size 0x10: must be a decimal integer (digits 0-9 only)"},
        {{"--seqlen_q", "16,-1"}, "fa-bench: --seqlen_q -1: must be an integer in 1..1073741824"},
        {{"--seqlen_q", "16,,32"}, "fa-bench: --seqlen_q 16,,32: has an empty item (a comma list is a,b,c)"},
        {{"--seqlen_q", "16,32,16"}, "fa-bench: --seqlen_q 16,32,16: lists 16 twice (each value runs once)"},
        {{"--seqlen_q", "16,016"},
         "fa-bench: --seqlen_q 16,016: lists 16 and 016, the same value (each value runs once)"},
        {{"--num_head", "0"}, "fa-bench: --num_head 0: must be an integer in 1..1048576"},
        {{"--dtype", "Float64"}, "fa-bench: --dtype Float64: must be one of Float16, BFloat16, Float32, Float8E4M3FN"},
        {{"--layout", "sbhd"}, "fa-bench: --layout sbhd: must be bshd or bhsd"},
        {{"--causal", "0,3"}, "fa-bench: --causal 3: each value must be 0 or 1"},
        {{"--causal", ""}, "fa-bench: --causal '': each value must be 0 or 1"},
        {{"--iterations", "0"}, "fa-bench: --iterations 0: must be an integer in 1..1000000"},
        {{"--warmup_iterations", "-1"}, "fa-bench: --warmup_iterations -1: must be an integer in 0..1000000"},
        {{"--softmax_scale", "-2"},
         "fa-bench: --softmax_scale -2: must be a positive decimal number in 1.1754944e-38..3.4028235e+38 (a normal "
         "float; leave the flag out for 1/sqrt(head_dim))"},
        {{"--softmax_scale", "inf"}, "fa-bench: --softmax_scale inf: must be a decimal number"},
        {{"--seed", "-1"}, "fa-bench: --seed -1: must be an integer in 0..18446744073709551615"},
        {{"--kernel", "naive,bogus"}, "fa-bench: --kernel bogus: unknown kernel (fa-bench --list shows the names)"},
        {{"--kernel", "all,mma"}, "fa-bench: --kernel all,mma: all selects every kernel: give it alone"},
        {{"--batch_size", "2", "--batch_size", "3"},
         "fa-bench: --batch_size given 2 times: give it once; use a comma list to sweep (--batch_size 2,3)"},
        {{"--seed", "1", "--seed", "2"}, "fa-bench: --seed given 2 times: give it once (it takes one value)"},
        {{"--explain", "--profile"}, "fa-bench: --profile with --explain: choose one mode (each runs on its own)"},
        {{"--profile", "--iterations", "5"},
         "fa-bench: --iterations with --profile: --profile launches each kernel once, untimed and unchecked, so "
         "--iterations would be ignored; leave one out"},
        {{"--is_causal=0"},
         "fa-bench: --is_causal=0: --is_causal is a switch and takes no value (leave it out for off)"},
        {{"--num_head"}, "fa-bench: --num_head: needs a value (INT[,INT...])"},
        {{"--num_heads", "4"}, "fa-bench: --num_heads: unknown flag (fa-bench --help lists them)"},
        {{"--batch_size", "70000", "--num_head", "1048576"},
         "fa-bench: --batch_size 70000 with --num_head 1048576 and --seqlen_q 8192: 3.758e+13 CTAs (ceil(8192 / 16) "
         "query tiles x 1048576 heads x 70000) exceed CUDA's grid limit of 2147483647"},
        // GQA and split-KV (#9)
        {{"--num_head_kv", "0"}, "fa-bench: --num_head_kv 0: must be an integer in 1..1048576"},
        {{"--num_head", "16", "--num_head_kv", "3"},
         "fa-bench: --num_head_kv 3 with --num_head 16: num_head_kv must divide num_head"},
        {{"--num_splits", "-1"}, "fa-bench: --num_splits -1: must be 0 (heuristic), 1 (off) or a split count up to 128"},
        {{"--num_splits", "129"},
         "fa-bench: --num_splits 129: must be 0 (heuristic), 1 (off) or a split count up to 128"},
        // warm-up and the stopping rule (#12)
        {{"--iterations", "-3"}, "fa-bench: --iterations -3: must be an integer in 1..1000000"},
        {{"--warmup_time", "-0.1"}, "fa-bench: --warmup_time -0.1: must be seconds >= 0 (a finite decimal number)"},
        {{"--gpu_warmup_time", "-1"}, "fa-bench: --gpu_warmup_time -1: must be seconds >= 0 (a finite decimal number)"},
        {{"--warmup_time", "inf"}, "fa-bench: --warmup_time inf: must be a decimal number"},
        {{"--warmup_time", "1e400"}, "fa-bench: --warmup_time 1e400: must be seconds >= 0 (a finite decimal number)"},
        {{"--min_time", "-1"}, "fa-bench: --min_time -1: must be seconds >= 0 (a finite decimal number)"},
        {{"--max_time", "0"}, "fa-bench: --max_time 0: must be seconds > 0 (a finite decimal number)"},
        {{"--max_time", "nan"}, "fa-bench: --max_time nan: must be a decimal number"},
        {{"--min_time", "3"}, "fa-bench: --min_time 3 with --max_time 2: min_time must not exceed max_time"},
        {{"--min_time", "3", "--max_time", "1"},
         "fa-bench: --min_time 3 with --max_time 1: min_time must not exceed max_time"},
        {{"--max_noise", "0"}, "fa-bench: --max_noise 0: must be a percent > 0 (a finite decimal number)"},
        {{"--max_noise", "-0.5"}, "fa-bench: --max_noise -0.5: must be a percent > 0 (a finite decimal number)"},
        {{"--min_samples", "0"}, "fa-bench: --min_samples 0: must be an integer in 1..1000000"},
        {{"--device", "-1"}, "fa-bench: --device -1: must be an integer in 0..2147483647"},
        {{"--explain", "--max_time", "1"},
         "fa-bench: --max_time with --explain: --explain launches nothing, so --max_time would be ignored; leave one "
         "out"},
    };
    for (const Case& c : cases) {
        INFO(c.args.front());
        const Parsed p = parse(c.args);
        CHECK(p.code == 2);
        CHECK(p.message == c.message);
        CHECK(p.message.find('\n') == std::string::npos);
    }
}

TEST_CASE("is_causal and causal flags exclude each other", "[options]") {
    const Parsed p = parse({"--is_causal", "--causal", "0,1"});
    CHECK(p.code == 2);
    CHECK(p.message ==
          "fa-bench: --is_causal with --causal: give one (--causal 1 is --is_causal; --causal 0,1 sweeps both)");
}

TEST_CASE("unparsable numbers are rejected by name", "[options]") {
    const Parsed p = parse({"--batch_size", "four"});
    CHECK(p.code == 2);
    CHECK(p.message == "fa-bench: --batch_size four: must be a decimal integer (digits 0-9 only)");
}

// README's bad-input section lists every rule the table enforces, word for word.
TEST_CASE("README lists every validation rule", "[options]") {
    std::ifstream in(FA_SOURCE_DIR "/README.md");
    REQUIRE(in);
    std::stringstream text;
    text << in.rdbuf();
    for (const std::string& rule : fa::validation_rules()) {
        INFO(rule);
        CHECK(text.str().find(rule) != std::string::npos);
    }
}

TEST_CASE("help prints usage and exits 0", "[options]") {
    const Parsed p = parse({"--help"});
    CHECK(p.code == 0);
    CHECK(p.message.find("--seqlen_q") != std::string::npos);
}
