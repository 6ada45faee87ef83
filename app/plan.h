// Planning the sweep: the problems, tiles and kernels the flags ask for, and per (kernel,
// problem) the Job that says which instance runs it, or why none can (README: Sweeps).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "device.h"
#include "fa/launch_plan.h"
#include "fa/registry.h"
#include "options.h"
#include "tune_cache.h"

namespace fa {

struct Sweep {
    std::vector<ProblemShape> problems;      // dtype x batch x heads x head_dim x seqlen_q x seqlen_k x causal
    std::vector<TileConfig> tiles;           // empty: the cached --autotune tile, else each kernel's default
    std::vector<const KernelInfo*> kernels;  // --kernel, in registry order
    const TuneCache* tune_cache = nullptr;   // --autotune's choices (null: none; --no_tune_cache)
};
// `tune_cache`: the cache whose choices apply when no tile flag is given (null: none).
Sweep expand_sweep(const Options& o, const TuneCache* tune_cache = nullptr);

// The problem in NVTX range names and skip reasons: "BFloat16 b4 h16 sq8192 sk8192 d128 c0".
std::string shape_tag(const ProblemShape& p);

struct Job {
    const KernelInfo* kernel = nullptr;
    const KernelInstance* inst = nullptr;  // null: cannot run, see reason
    std::string reason;
    std::size_t kernel_workspace = 0;  // scratch bytes the instance itself needs for this problem
    std::size_t workspace = 0;         // that plus the split partials (fa/splitkv.h), 256-byte aligned
    LaunchPlan plan;                   // packed GQA and split count (fa/launch_plan.h)
    std::string tile_note;             // "autotuned 3d ago" when the tile is the cached --autotune choice
};

// One Job per (kernel, tile) of the sweep for problem `p` on `dev`; a kernel without tiles gets
// one Job for the whole tile sweep. `with_reference`: the FP32 reference output will be
// allocated too, so it counts against the device's free memory. Without a device (dev.present
// false) only what is known statically is checked: instances, tiles, the kernels' own limits.
// Tile precedence, highest first: the tile flags (sweep.tiles); the cached --autotune choice for
// (dev.name, kernel, p's bucket) in sweep.tune_cache; the kernel's default (its first instance
// for the dtype and head_dim). A cached tile the kernel no longer instantiates (or that cannot run
// here) falls back to the default and adds one line to `warnings` (each line once).
std::vector<Job> plan_jobs(const ProblemShape& p, const Sweep& sweep, const DeviceInfo& dev, bool with_reference,
                           std::vector<std::string>* warnings = nullptr);

// Up-front rules that need the kernels' tiles (checked before anything runs, README: bad input):
// an explicit --num_splits N above a runnable kernel's key blocks (ceil(seqlen_k / n_block_size))
// would leave splits without keys. Returns one line naming the flag and the rule, or "".
std::string check_jobs(const ProblemShape& p, const std::vector<Job>& jobs);

}  // namespace fa
