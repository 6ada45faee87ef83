// The small file where `fa-bench --calibrate` keeps the measured ceilings, one row per GPU name,
// so later runs (and their CSV rows) use them: peak_source = calibrated:<when>.
#pragma once

#include <string>

#include "fa/model.h"

namespace fa {

// $XDG_CACHE_HOME/fa-bench/peaks.csv, else $HOME/.cache/fa-bench/peaks.csv, else ./fa-bench-peaks.csv.
std::string default_peaks_file();

// The row for `gpu` in `path`; false when the file or the row is missing or malformed.
bool load_calibration(const std::string& path, const std::string& gpu, Calibration* out);

// Writes `cal` into `path`, replacing an earlier row of the same GPU and keeping the others.
// Returns an error message, or an empty string.
std::string save_calibration(const std::string& path, const Calibration& cal);

}  // namespace fa
