// The --autotune cache (app/tune_cache.h) and the ranking (app/autotune.h), without a GPU: the
// bucket rule, write and read back, overwrite, and every kind of bad file read as an empty cache
// with one warning line, never a throw.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "autotune.h"
#include "tune_cache.h"

namespace fs = std::filesystem;

namespace {

// A fresh folder per test case, removed at the end.
struct TempDir {
    fs::path path;
    explicit TempDir(const std::string& name)
        : path(fs::temp_directory_path() / ("fa-bench-tune-test-" + std::to_string(::getpid()) + "-" + name)) {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    std::string file(const std::string& name) const { return (path / name).string(); }
};

void write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

fa::ProblemShape problem(int sq, int sk, bool causal = false, int heads_kv = 0) {
    fa::ProblemShape p;
    p.dtype = fa::DType::BFloat16;
    p.batch = 4;
    p.heads = 16;
    p.heads_kv = heads_kv;
    p.head_dim = 128;
    p.seqlen_q = sq;
    p.seqlen_k = sk;
    p.causal = causal;
    return p;
}

fa::TuneEntry entry(const std::string& gpu, const std::string& kernel, const fa::ProblemShape& p,
                    fa::TileConfig tile, double ms = 6.25) {
    fa::TuneEntry e;
    e.key = fa::tune_key(gpu, kernel, p);
    e.tile = tile;
    e.median_ms = ms;
    e.tflops = 351.5;
    e.tuned_at = 1700000000;
    e.problem = "b4 h16 hkv16 sq8192 sk8192";
    return e;
}

const char* kGpu = "NVIDIA H100 80GB HBM3";

// The header a saved cache starts with (first line of any save).
std::string saved_header(const TempDir& dir) {
    const std::string path = dir.file("header.csv");
    REQUIRE(fa::TuneCache().save(path).empty());
    return read_text(path);
}

}  // namespace

TEST_CASE("seqlen buckets: powers of two, b/2 < seqlen <= b", "[tune_cache]") {
    CHECK(fa::seqlen_bucket(1) == 1);
    CHECK(fa::seqlen_bucket(2) == 2);
    CHECK(fa::seqlen_bucket(3) == 4);
    CHECK(fa::seqlen_bucket(4096) == 4096);
    CHECK(fa::seqlen_bucket(4097) == 8192);
    CHECK(fa::seqlen_bucket(8192) == 8192);
    CHECK(fa::seqlen_bucket(8193) == 16384);
    CHECK(fa::seqlen_bucket(1 << 30) == (1 << 30));

    // Decode (seqlen_q 1) never shares a key with prefill at the same seqlen_k.
    CHECK_FALSE(fa::tune_key(kGpu, "mma", problem(1, 8192)) == fa::tune_key(kGpu, "mma", problem(8192, 8192)));
    CHECK_FALSE(fa::tune_key(kGpu, "mma", problem(1, 8192)) == fa::tune_key(kGpu, "mma", problem(2, 8192)));
    // Within a bucket: one key; across its edge: two.
    CHECK(fa::tune_key(kGpu, "mma", problem(4097, 8192)) == fa::tune_key(kGpu, "mma", problem(8192, 5000)));
    CHECK_FALSE(fa::tune_key(kGpu, "mma", problem(8192, 8192)) == fa::tune_key(kGpu, "mma", problem(8193, 8192)));
    // Grouped K/V heads, causal, kernel and GPU are key fields.
    CHECK(fa::tune_key(kGpu, "mma", problem(8192, 8192, false, 4)).grouped_kv);
    CHECK_FALSE(fa::tune_key(kGpu, "mma", problem(8192, 8192, false, 16)).grouped_kv);  // 16 of 16: not grouped
    CHECK_FALSE(fa::tune_key(kGpu, "mma", problem(8192, 8192, false, 4)) ==
                fa::tune_key(kGpu, "mma", problem(8192, 8192)));
    CHECK_FALSE(fa::tune_key(kGpu, "mma", problem(8192, 8192, true)) == fa::tune_key(kGpu, "mma", problem(8192, 8192)));
    CHECK_FALSE(fa::tune_key(kGpu, "mma", problem(8192, 8192)) == fa::tune_key(kGpu, "tiled", problem(8192, 8192)));
    CHECK_FALSE(fa::tune_key(kGpu, "mma", problem(8192, 8192)) ==
                fa::tune_key("NVIDIA A100-SXM4-80GB", "mma", problem(8192, 8192)));
}

TEST_CASE("tune cache: write, read back, overwrite a key, other GPUs do not match", "[tune_cache]") {
    TempDir dir("roundtrip");
    const std::string path = dir.file("sub/folder/tune.csv");  // folders are created by save
    fa::TuneCache c;
    c.put(entry(kGpu, "mma", problem(8192, 8192), {128, 64, 128}));
    c.put(entry(kGpu, "mma", problem(8192, 8192, true), {64, 64, 128}));
    c.put(entry("GPU, with a comma", "tiled", problem(1, 4096), {64, 64, 128}, 0.125));
    REQUIRE(c.save(path).empty());

    std::string warning = "stale";
    fa::TuneCache r = fa::TuneCache::load(path, &warning);
    CHECK(warning.empty());
    REQUIRE(r.entries().size() == 3);
    const fa::TuneEntry* e = r.find(fa::tune_key(kGpu, "mma", problem(5000, 8192)));  // same bucket
    REQUIRE(e != nullptr);
    CHECK(e->tile == fa::TileConfig{128, 64, 128});
    CHECK(e->median_ms == Approx(6.25));
    CHECK(e->tflops == Approx(351.5));
    CHECK(e->tuned_at == 1700000000);
    CHECK(e->problem == "b4 h16 hkv16 sq8192 sk8192");
    REQUIRE(r.find(fa::tune_key(kGpu, "mma", problem(8192, 8192, true))) != nullptr);
    CHECK(r.find(fa::tune_key(kGpu, "mma", problem(8192, 8192, true)))->tile == fa::TileConfig{64, 64, 128});
    // The comma in the GPU name is cleaned the same way on write and on lookup.
    CHECK(r.find(fa::tune_key("GPU, with a comma", "tiled", problem(1, 4096))) != nullptr);
    CHECK(r.find(fa::tune_key("NVIDIA A100-SXM4-80GB", "mma", problem(8192, 8192))) == nullptr);
    CHECK(r.find(fa::tune_key(kGpu, "mma", problem(16384, 8192))) == nullptr);

    // Overwrite: same key, new tile; one entry, the new one, after a second save.
    r.put(entry(kGpu, "mma", problem(8000, 8000), {64, 64, 128}, 7.5));
    CHECK(r.entries().size() == 3);
    REQUIRE(r.save(path).empty());
    const fa::TuneCache again = fa::TuneCache::load(path, &warning);
    CHECK(warning.empty());
    CHECK(again.entries().size() == 3);
    REQUIRE(again.find(fa::tune_key(kGpu, "mma", problem(8192, 8192))) != nullptr);
    CHECK(again.find(fa::tune_key(kGpu, "mma", problem(8192, 8192)))->tile == fa::TileConfig{64, 64, 128});
    // No temporary file is left beside it.
    int files = 0;
    for (const auto& f : fs::directory_iterator(dir.path / "sub/folder")) files += f.is_regular_file() ? 1 : 0;
    CHECK(files == 1);
}

TEST_CASE("tune cache: a missing or empty file is empty without a warning", "[tune_cache]") {
    TempDir dir("missing");
    std::string warning;
    CHECK(fa::TuneCache::load(dir.file("none.csv"), &warning).entries().empty());
    CHECK(warning.empty());
    write_text(dir.file("empty.csv"), "");
    CHECK(fa::TuneCache::load(dir.file("empty.csv"), &warning).entries().empty());
    CHECK(warning.empty());
}

TEST_CASE("tune cache: a corrupt file is empty with one warning line, never a throw", "[tune_cache]") {
    TempDir dir("corrupt");
    const std::string header = saved_header(dir);
    fa::TuneCache good;
    good.put(entry(kGpu, "mma", problem(8192, 8192), {128, 64, 128}));
    REQUIRE(good.save(dir.file("good.csv")).empty());
    const std::string row = read_text(dir.file("good.csv")).substr(header.size());
    REQUIRE(!row.empty());

    struct Case {
        const char* name;
        std::string text;
        const char* says;
    };
    const Case cases[] = {
        {"garbage", "\x7f" "ELF\x01\x02 not a cache at all\n", "header"},
        {"no header", row, "header"},
        {"truncated last line", header + row.substr(0, row.size() / 2), "truncated"},
        {"wrong column count", header + "a\tb\tc\n", "has 3 columns, expected 15"},
        {"extra column", header + row.substr(0, row.size() - 1) + "\textra\n", "has 16 columns"},
        {"bad number", header + std::string(row).replace(row.find("\t128\t"), 5, "\tx28\t"), "column"},
        {"bucket not a power of two", [&] {
             std::string r = row;
             r.replace(r.find("\t8192\t8192\t"), 11, "\t8000\t8192\t");
             return header + r;
         }(),
         "power of two"},
        {"bad dtype", [&] {
             std::string r = row;
             r.replace(r.find("BFloat16"), 8, "BFloat99");
             return header + r;
         }(),
         "dtype"},
        {"good row then garbage", header + row + "garbage\n", "line 3"},
    };
    for (const Case& c : cases) {
        INFO(c.name);
        const std::string path = dir.file(std::string(c.name) + ".csv");
        write_text(path, c.text);
        std::string warning;
        fa::TuneCache cache;
        REQUIRE_NOTHROW(cache = fa::TuneCache::load(path, &warning));
        CHECK(cache.entries().empty());
        CHECK(warning.find(path) != std::string::npos);
        CHECK(warning.find(c.says) != std::string::npos);
        CHECK(warning.find("treated as empty") != std::string::npos);
        CHECK(warning.find('\n') == std::string::npos);  // one line

        // The next --autotune overwrites it: put + save gives a well-formed file again.
        cache.put(entry(kGpu, "mma", problem(8192, 8192), {64, 64, 128}));
        REQUIRE(cache.save(path).empty());
        CHECK(fa::TuneCache::load(path, &warning).entries().size() == 1);
        CHECK(warning.empty());
    }
}

TEST_CASE("tune cache: a directory in place of the file is a warning on read, an error on save", "[tune_cache]") {
    TempDir dir("directory");
    const std::string path = dir.file("tune.csv");
    fs::create_directories(path);
    std::string warning;
    fa::TuneCache cache;
    REQUIRE_NOTHROW(cache = fa::TuneCache::load(path, &warning));
    CHECK(cache.entries().empty());
    CHECK(warning.find("is a directory") != std::string::npos);
    cache.put(entry(kGpu, "mma", problem(8192, 8192), {64, 64, 128}));
    const std::string err = cache.save(path);
    CHECK(err.find("--tune_cache " + path) == 0);
    CHECK(fs::is_directory(path));  // untouched
}

TEST_CASE("tune cache: a failed save leaves the old file as it was", "[tune_cache]") {
    TempDir dir("readonly");
    if (::geteuid() == 0) return;  // root writes into read-only folders: nothing to test
    const std::string path = dir.file("tune.csv");
    fa::TuneCache c;
    c.put(entry(kGpu, "mma", problem(8192, 8192), {128, 64, 128}));
    REQUIRE(c.save(path).empty());
    const std::string before = read_text(path);
    fs::permissions(dir.path, fs::perms::owner_read | fs::perms::owner_exec);
    c.put(entry(kGpu, "mma", problem(8192, 8192), {64, 64, 128}));
    const std::string err = c.save(path);
    fs::permissions(dir.path, fs::perms::owner_all);
    CHECK(err.find("cannot write") != std::string::npos);
    CHECK(read_text(path) == before);
}

TEST_CASE("tune_age: short ages for the row's note", "[tune_cache]") {
    CHECK(fa::tune_age(1000, 1030) == "<1m");
    CHECK(fa::tune_age(1000, 1000 + 5 * 60) == "5m");
    CHECK(fa::tune_age(1000, 1000 + 3 * 3600 + 10) == "3h");
    CHECK(fa::tune_age(1000, 1000 + 2 * 86400) == "2d");
    CHECK(fa::tune_age(2000, 1000) == "<1m");  // a clock set back
}

TEST_CASE("autotune ranking: only PASS tiles rank, fastest first, the rest after with their reason",
          "[autotune]") {
    std::vector<fa::TileTiming> t(4);
    t[0] = {{128, 32, 128}, true, "PASS", "", 6.0, 360.0, 0.4};
    t[1] = {{128, 64, 128}, false, "PASS", "", 5.5, 392.7, 0.3};
    t[2] = {{64, 64, 128}, false, "FAIL", "max_abs_err 0.5 > 0.02", 1.0, 2000.0, 0.1};  // fast but wrong
    t[3] = {{256, 64, 256}, false, "UNSUPPORTED", "needs 300000 B shared memory", 0, 0, 0};
    CHECK(fa::fastest_passing(t) == 1);
    const std::string out = fa::format_ranking(t, "");
    INFO(out);
    const std::size_t first = out.find("\n1 ");
    const std::size_t second = out.find("\n2 ");
    REQUIRE(first != std::string::npos);
    REQUIRE(second != std::string::npos);
    CHECK(out.substr(first, 20).find("128x64x128") != std::string::npos);
    CHECK(out.substr(second, 20).find("128x32x128") != std::string::npos);
    CHECK(out.find("0.917") != std::string::npos);  // 5.5 / 6.0: the default runs at 0.917 of the best
    CHECK(out.find("default") != std::string::npos);
    CHECK(out.find("FAIL: max_abs_err") > second);
    CHECK(out.find("UNSUPPORTED: needs") > second);

    t[1].check = "FAIL";
    t[0].check = "FAIL";
    CHECK(fa::fastest_passing(t) == -1);
}
