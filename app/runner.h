#pragma once

#include "options.h"

namespace fa {

// Runs what the options ask for (--list, --calibrate or the sweep) and returns the process exit
// code: 0 all ran (and passed), 1 a check failed or CUDA reported an error, 2 nothing could run.
int run(const Options& opts);

}  // namespace fa
