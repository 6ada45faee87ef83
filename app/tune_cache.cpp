#include "tune_cache.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fa {
namespace {

constexpr const char* kHeader =
    "gpu\tkernel\tdtype\thead_dim\tcausal\tseqlen_q_bucket\tseqlen_k_bucket\tgrouped_kv\tm_block_size\t"
    "n_block_size\tnum_threads\tmedian_ms\ttflops\ttuned_at\tproblem";
constexpr std::size_t kColumns = 15;
// A few rows per (GPU, kernel, dtype, head_dim, causal, bucket): thousands at most. A larger file
// is something else given by mistake, and is not read into memory.
constexpr std::uintmax_t kMaxTuneFileBytes = 4 << 20;

// Tab-separated, like the peaks file: GPU names contain spaces.
std::vector<std::string> split_tabs(const std::string& line) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        const std::size_t tab = line.find('\t', start);
        out.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
        if (tab == std::string::npos) return out;
        start = tab + 1;
    }
}

// A decimal integer in lo..hi and nothing else (std::stoll would take "12abc").
bool int_cell(const std::string& s, long long lo, long long hi, long long* out) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 18) return false;
    *out = std::strtoll(s.c_str(), nullptr, 10);
    return *out >= lo && *out <= hi;
}

bool number_cell(const std::string& s, double* out) {
    char* end = nullptr;
    *out = std::strtod(s.c_str(), &end);
    return !s.empty() && end == s.c_str() + s.size() && std::isfinite(*out) && *out >= 0;
}

bool power_of_two(long long v) { return v > 0 && (v & (v - 1)) == 0; }

// Commas, tabs and control characters in a name become '_', so that a name is one cell and the
// key of a lookup matches the key that was written.
std::string clean_cell(const std::string& s) {
    std::string out = s;
    for (char& c : out)
        if (c == '\t' || c == ',' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '_';
    return out;
}

// One row, or why it is not one.
std::string parse_row(const std::vector<std::string>& c, TuneEntry* e) {
    if (c.size() != kColumns) return fmt::format("has {} columns, expected {}", c.size(), kColumns);
    long long v[9] = {};
    double ms = 0, tflops = 0;
    if (c[0].empty() || c[1].empty()) return "has an empty gpu or kernel";
    if (!parse_dtype(c[2], &e->key.dtype)) return fmt::format("dtype '{}' is not Float16, BFloat16 or Float32", c[2]);
    const struct {
        int column;
        long long lo, hi;
    } ints[] = {{3, 1, 1024}, {4, 0, 1}, {5, 1, 1 << 30}, {6, 1, 1 << 30}, {7, 0, 1},
                {8, 1, 1 << 20}, {9, 1, 1 << 20}, {10, 1, 1024}, {13, 0, 1LL << 40}};
    for (int i = 0; i < 9; ++i)
        if (!int_cell(c[ints[i].column], ints[i].lo, ints[i].hi, &v[i]))
            return fmt::format("column {} ('{}') is not an integer in {}..{}", ints[i].column + 1, c[ints[i].column],
                               ints[i].lo, ints[i].hi);
    if (!power_of_two(v[2]) || !power_of_two(v[3])) return "a seqlen bucket is not a power of two";
    if (!number_cell(c[11], &ms) || !(ms > 0)) return fmt::format("median_ms '{}' is not a positive number", c[11]);
    if (!number_cell(c[12], &tflops)) return fmt::format("tflops '{}' is not a number >= 0", c[12]);
    e->key.gpu = c[0];
    e->key.kernel = c[1];
    e->key.head_dim = static_cast<int>(v[0]);
    e->key.causal = v[1] != 0;
    e->key.seqlen_q_bucket = static_cast<int>(v[2]);
    e->key.seqlen_k_bucket = static_cast<int>(v[3]);
    e->key.grouped_kv = v[4] != 0;
    e->tile = {static_cast<int>(v[5]), static_cast<int>(v[6]), static_cast<int>(v[7])};
    e->median_ms = ms;
    e->tflops = tflops;
    e->tuned_at = v[8];
    e->problem = c[14];
    return {};
}

std::string format_row(const TuneEntry& e) {
    const TuneKey& k = e.key;
    return fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.6g}\t{:.1f}\t{}\t{}", clean_cell(k.gpu),
                       clean_cell(k.kernel), dtype_name(k.dtype), k.head_dim, k.causal ? 1 : 0, k.seqlen_q_bucket,
                       k.seqlen_k_bucket, k.grouped_kv ? 1 : 0, e.tile.m_block_size, e.tile.n_block_size,
                       e.tile.num_threads, e.median_ms, e.tflops, e.tuned_at, clean_cell(e.problem));
}

}  // namespace

bool TuneKey::operator==(const TuneKey& o) const {
    return gpu == o.gpu && kernel == o.kernel && dtype == o.dtype && head_dim == o.head_dim && causal == o.causal &&
           seqlen_q_bucket == o.seqlen_q_bucket && seqlen_k_bucket == o.seqlen_k_bucket && grouped_kv == o.grouped_kv;
}

int seqlen_bucket(int seqlen) {
    long long b = 1;
    while (b < seqlen) b *= 2;
    return static_cast<int>(b);  // seqlen <= 2^30 (kMaxSeqlen), so b <= 2^30 fits
}

TuneKey tune_key(const std::string& gpu, const std::string& kernel, const ProblemShape& p) {
    TuneKey k;
    k.gpu = clean_cell(gpu);
    k.kernel = kernel;
    k.dtype = p.dtype;
    k.head_dim = p.head_dim;
    k.causal = p.causal;
    k.seqlen_q_bucket = seqlen_bucket(p.seqlen_q);
    k.seqlen_k_bucket = seqlen_bucket(p.seqlen_k);
    k.grouped_kv = p.kv_heads() < p.heads;
    return k;
}

std::string tune_age(int64_t tuned_at, int64_t now) {
    const int64_t s = now > tuned_at ? now - tuned_at : 0;
    if (s < 60) return "<1m";
    if (s < 3600) return fmt::format("{}m", s / 60);
    if (s < 86400) return fmt::format("{}h", s / 3600);
    return fmt::format("{}d", s / 86400);
}

std::string default_tune_file() {
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/fa-bench/tune.csv";
    if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/fa-bench/tune.csv";
    return "fa-bench-tune.csv";
}

TuneCache TuneCache::load(const std::string& path, std::string* warning) {
    namespace fs = std::filesystem;
    warning->clear();
    TuneCache cache;
    auto corrupt = [&](const std::string& why) {
        *warning = fmt::format("tune cache {} {}; treated as empty (the next --autotune rewrites it)", path, why);
        return TuneCache{};
    };
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (!fs::exists(st)) return cache;
    if (fs::is_directory(st)) return corrupt("is a directory");
    if (!fs::is_regular_file(st)) return corrupt("is not a regular file");
    const std::uintmax_t size = fs::file_size(path, ec);
    if (ec) return corrupt("cannot be read");
    if (size > kMaxTuneFileBytes) return corrupt(fmt::format("is {} bytes, more than a tune cache's {}", size,
                                                             kMaxTuneFileBytes));
    std::ifstream in(path, std::ios::binary);
    if (!in) return corrupt("cannot be read");
    std::stringstream text;
    if (size > 0) text << in.rdbuf();
    if (in.bad()) return corrupt("cannot be read");
    const std::string all = text.str();
    if (all.empty()) return cache;  // an empty file holds no entries, as a missing one
    if (all.back() != '\n') return corrupt("ends in a truncated line (no newline after the last row)");
    std::istringstream lines(all);
    std::string line;
    for (int n = 1; std::getline(lines, line); ++n) {
        if (n == 1) {
            if (line != kHeader) return corrupt("does not start with the tune cache header");
            continue;
        }
        TuneEntry e;
        if (std::string why = parse_row(split_tabs(line), &e); !why.empty())
            return corrupt(fmt::format("line {} {}", n, why));
        cache.put(e);
    }
    return cache;
}

const TuneEntry* TuneCache::find(const TuneKey& key) const {
    for (const TuneEntry& e : entries_)
        if (e.key == key) return &e;
    return nullptr;
}

void TuneCache::put(const TuneEntry& e) {
    TuneEntry clean = e;
    clean.key.gpu = clean_cell(e.key.gpu);  // as it will read back
    clean.key.kernel = clean_cell(e.key.kernel);
    clean.problem = clean_cell(e.problem);
    for (TuneEntry& old : entries_)
        if (old.key == clean.key) {
            old = clean;
            return;
        }
    entries_.push_back(clean);
}

std::string TuneCache::save(const std::string& path) const {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path target(path);
    if (fs::is_directory(target, ec)) return fmt::format("--tune_cache {}: is a directory", path);
    if (target.has_parent_path()) {
        fs::create_directories(target.parent_path(), ec);
        if (ec) return fmt::format("--tune_cache {}: cannot create its folder ({})", path, ec.message());
    }
    // In the same folder, so that the rename is one atomic step of one file system; the pid keeps
    // two processes tuning at once from writing into each other's temporary file.
    const std::string tmp = fmt::format("{}.tmp.{}", path, static_cast<long>(::getpid()));
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) return fmt::format("--tune_cache {}: cannot write {} ({})", path, tmp, std::strerror(errno));
        out << kHeader << '\n';
        for (const TuneEntry& e : entries_) out << format_row(e) << '\n';
        out.flush();
        const bool ok = static_cast<bool>(out);
        out.close();
        if (!ok || out.fail()) {
            fs::remove(tmp, ec);
            return fmt::format("--tune_cache {}: writing {} failed (disk full?)", path, tmp);
        }
    }
    fs::rename(tmp, target, ec);
    if (ec) {
        const std::string why = ec.message();
        fs::remove(tmp, ec);
        return fmt::format("--tune_cache {}: cannot replace it ({})", path, why);
    }
    return {};
}

}  // namespace fa
