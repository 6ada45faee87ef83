#include "calibration_cache.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace fa {
namespace {

// gemm8_tflops (FP8) is the sixth column since issue #11: rows of five columns, written before,
// still load (gemm8_tflops = 0, not measured); the old header is recognized too.
constexpr const char* kHeader = "gpu\ttimestamp\tgemm16_tflops\tgemm32_tflops\tcopy_gbs\tgemm8_tflops";
constexpr const char* kHeaderFiveColumns = "gpu\ttimestamp\tgemm16_tflops\tgemm32_tflops\tcopy_gbs";

// Tab-separated: GPU names contain spaces and may contain commas, never tabs.
std::vector<std::string> split_tabs(const std::string& line) {
    std::vector<std::string> out;
    std::stringstream in(line);
    std::string cell;
    while (std::getline(in, cell, '\t')) out.push_back(cell);
    return out;
}

// A cache is a few lines per GPU; a larger file is something else given by mistake.
constexpr std::uintmax_t kMaxPeaksFileBytes = 1 << 20;

// A positive number and nothing else (std::stod would take "12abc" as 12).
bool positive_number(const std::string& s) {
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    return !s.empty() && end == s.c_str() + s.size() && v > 0 && std::isfinite(v);
}

// The FP8 column: a positive number, or 0 (the GPU has no FP8 tensor cores: not measured).
bool fp8_column(const std::string& s) {
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    return !s.empty() && end == s.c_str() + s.size() && v >= 0 && std::isfinite(v);
}

}  // namespace

std::string check_peaks_file(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (!fs::exists(st)) return {};
    if (fs::is_directory(st)) return "is a directory, not a peaks file";
    if (!fs::is_regular_file(st)) return "is not a regular file";
    if (const std::uintmax_t size = fs::file_size(path, ec); size > kMaxPeaksFileBytes)
        return fmt::format("is {} bytes: not a peaks cache (a few lines per GPU)", size);
    std::ifstream in(path, std::ios::binary);
    if (!in) return "cannot be read";
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty() || line == kHeader || line == kHeaderFiveColumns) continue;
        const std::vector<std::string> c = split_tabs(line);
        if ((c.size() != 5 && c.size() != 6) || c[0].empty() || !positive_number(c[2]) || !positive_number(c[3]) ||
            !positive_number(c[4]) || (c.size() == 6 && !fp8_column(c[5])))
            return fmt::format("line {} is not a peaks row (gpu, timestamp and three positive numbers, "
                               "tab-separated, and the FP8 GEMM's rate or 0; --calibrate writes them)",
                               n);
    }
    return {};
}

std::string default_peaks_file() {
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/fa-bench/peaks.csv";
    if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/fa-bench/peaks.csv";
    return "fa-bench-peaks.csv";
}

bool load_calibration(const std::string& path, const std::string& gpu, Calibration* out) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        const std::vector<std::string> c = split_tabs(line);
        if ((c.size() != 5 && c.size() != 6) || c[0] != gpu) continue;
        try {
            out->gpu = c[0];
            out->timestamp = c[1];
            out->gemm16_tflops = std::stod(c[2]);
            out->gemm32_tflops = std::stod(c[3]);
            out->copy_gbs = std::stod(c[4]);
            out->gemm8_tflops = c.size() == 6 ? std::stod(c[5]) : 0.0;  // a five-column row: not measured
        } catch (const std::exception&) {
            return false;
        }
        return out->gemm16_tflops > 0 && out->gemm32_tflops > 0 && out->copy_gbs > 0 && out->gemm8_tflops >= 0;
    }
    return false;
}

std::string save_calibration(const std::string& path, const Calibration& cal) {
    std::vector<std::string> keep;
    {
        std::ifstream in(path);
        std::string line;
        while (std::getline(in, line)) {
            const std::vector<std::string> c = split_tabs(line);
            if (line == kHeader || line == kHeaderFiveColumns || c.empty() || c[0] == cal.gpu) continue;
            keep.push_back(line);
        }
    }
    std::error_code ec;
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    std::ofstream out(path, std::ios::trunc);
    if (!out) return fmt::format("--peaks_file {}: cannot write the file", path);
    out << kHeader << '\n';
    for (const std::string& l : keep) out << l << '\n';
    out << fmt::format("{}\t{}\t{:.1f}\t{:.1f}\t{:.1f}\t{:.1f}\n", cal.gpu, cal.timestamp, cal.gemm16_tflops,
                       cal.gemm32_tflops, cal.copy_gbs, cal.gemm8_tflops);
    return out ? std::string() : fmt::format("--peaks_file {}: write failed", path);
}

int run_calibration(const std::string& peaks_file, const DeviceInfo& dev) {
    if (!dev.present) {
        fmt::print(stderr, "fa-bench: --calibrate needs a CUDA GPU ({})\n", dev.why_absent);
        return 2;
    }
    Calibration cal;
    if (std::string e = calibrate_peaks(&cal); !e.empty()) {
        fmt::print(stderr, "fa-bench: --calibrate: {}\n", e);
        return 1;
    }
    const std::string path = peaks_file.empty() ? default_peaks_file() : peaks_file;
    fmt::print("{}: bf16 GEMM 8192^3 {:.1f} TFLOP/s, fp32 GEMM {:.1f} TFLOP/s, {}, device copy {:.1f} GB/s "
               "(read + write)\n",
               cal.gpu, cal.gemm16_tflops, cal.gemm32_tflops,
               cal.gemm8_tflops > 0      ? fmt::format("FP8 e4m3 GEMM (cuBLASLt) {:.1f} TFLOP/s", cal.gemm8_tflops)
               : cal.gemm8_error.empty() ? std::string("FP8 GEMM not measured (no FP8 tensor cores before sm_89)")
                                         : fmt::format("FP8 GEMM not measured ({})", cal.gemm8_error),
               cal.copy_gbs);
    if (std::string e = save_calibration(path, cal); !e.empty()) {
        fmt::print(stderr, "fa-bench: {}\n", e);
        return 1;
    }
    fmt::print("saved to {}; later runs use these peaks (peak_source = calibrated:{})\n", path, cal.timestamp);
    return 0;
}

}  // namespace fa
