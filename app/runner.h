#pragma once

#include "options.h"

namespace fa {

// Runs what the options ask for and returns the process exit code:
// 0 all ran (and passed), 1 a check failed or CUDA reported an error, 2 nothing could run.
int run(const Options& opts);

// --list: every registered kernel with what it supports.
void print_kernel_list(std::FILE* out);

}  // namespace fa
