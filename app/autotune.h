// --autotune: per requested problem and selected kernel, every instantiated tile that can run on
// this device is checked against the FP32 reference and timed under a short stopping rule (the
// same Measurer as a normal run); the tiles that PASS are ranked by median time, the fastest is
// printed first and written into the tune cache (tune_cache.h) for the problem's bucket, so that
// later runs without tile flags take it (plan.cpp). README: Autotuning.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "device.h"
#include "fa/kernel_api.h"
#include "options.h"
#include "tune_cache.h"

namespace fa {

// The stopping rule --autotune uses where its flag is not given: a ranking needs each tile's
// median to ~1 %, not the 0.5 % of a reported row, and a kernel has up to ~10 tiles per problem.
// 0.5 s per tile bounds a kernel's tuning of one problem at ~5-6 s with warm-up; 1 % noise of
// the median is reached after ~30 launches at the 4.5 % per-launch noise timing.h names.
struct AutotuneRule {
    double warmup_time_s = 0.1;
    double min_time_s = 0.05;
    double max_noise_pct = 1.0;
    double max_time_s = 0.5;
};

// One tile's outcome on one problem.
struct TileTiming {
    TileConfig tile;
    bool is_default = false;  // the kernel's default tile for this dtype and head_dim
    std::string check;        // PASS, FAIL, UNSUPPORTED (reason says why)
    std::string reason;
    double median_ms = 0, tflops = 0, noise_pct = 0;  // median_noise_pct of the timed launches
};

// Index of the fastest tile whose check is PASS (lowest median; ties: the earlier row, i.e. the
// registry's order, defaults first), or -1 when none passed.
int fastest_passing(const std::vector<TileTiming>& tiles);

// The ranking as printed: PASS tiles by median (rank, tile, ms, TFLOP/s, best/this, noise), then
// the others with their check and reason. One line per tile, `indent` before each.
std::string format_ranking(const std::vector<TileTiming>& tiles, const std::string& indent = "  ");

// The cache a normal run (not --autotune) takes its tiles from: empty with --no_tune_cache, with
// tile flags (they take precedence) and without a GPU (entries are per GPU name); else --tune_cache
// or default_tune_file(), read by TuneCache::load, whose warning is printed here as one line.
TuneCache load_run_tune_cache(const Options& o, const DeviceInfo& dev);

// --autotune on `dev`: exit status 0; 1 when a CUDA fault, an unwritable cache or no passing tile
// for some (kernel, problem); 2 without a GPU (one line, nothing run).
int run_autotune(const Options& o, const DeviceInfo& dev);

}  // namespace fa
