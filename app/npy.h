// Minimal .npy (format 1.0) writer: little-endian float32, C order. Lets any outside tool
// (numpy, torch) re-check a run's output from --save_tensors.
#pragma once

#include <string>
#include <vector>

namespace fa {

// Returns an error message, or an empty string.
std::string write_npy_f32(const std::string& path, const std::vector<float>& data, const std::vector<long>& shape);

}  // namespace fa
