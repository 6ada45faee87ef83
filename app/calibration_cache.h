// The small file where `fa-bench --calibrate` keeps the measured ceilings, one row per GPU name,
// so later runs (and their CSV rows) use them: peak_source = calibrated:<when>; and --calibrate
// itself.
#pragma once

#include <string>

#include "device.h"
#include "fa/model.h"

namespace fa {

// $XDG_CACHE_HOME/fa-bench/peaks.csv, else $HOME/.cache/fa-bench/peaks.csv, else ./fa-bench-peaks.csv.
std::string default_peaks_file();

// Why `path` is not a peaks cache fa-bench can read (empty: it is, or it does not exist yet): a
// directory or other non-file, an unreadable file, or a line that is neither the header nor a row
// of a GPU name, a timestamp and three positive numbers, tab-separated, then optionally the FP8
// GEMM's rate or 0 (the sixth column; five-column rows of older caches load with it 0).
std::string check_peaks_file(const std::string& path);

// The row for `gpu` in `path`; false when the file or the row is missing or malformed.
bool load_calibration(const std::string& path, const std::string& gpu, Calibration* out);

// Writes `cal` into `path`, replacing an earlier row of the same GPU and keeping the others.
// Returns an error message, or an empty string.
std::string save_calibration(const std::string& path, const Calibration& cal);

// --calibrate: measures the ceilings on `dev`, prints them and saves them into `peaks_file` (the
// flag's value; empty: default_peaks_file()). Returns the exit status: 0, 1 when measuring or
// saving failed, 2 without a GPU.
int run_calibration(const std::string& peaks_file, const DeviceInfo& dev);

}  // namespace fa
