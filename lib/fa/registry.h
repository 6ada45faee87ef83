// The kernel registry: every kernel fa-bench can run, listed once in lib/registry.cpp.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "fa/kernel_api.h"
#include "fa/problem.h"

namespace fa {

// What a kernel does beyond plain attention. Grouped K/V heads (GQA/MQA) are read by every kernel.
struct KernelCaps {
    bool lse = false;       // writes FwdParams::lse when it is set
    bool split_kv = false;  // runs FwdParams::num_splits > 1 (partials + the combine kernel)
    bool pack_gqa = false;  // runs FwdParams::pack_gqa (query heads of a K/V head in one row block)
    MathUnit math = MathUnit::TensorCore;  // where its GEMMs run: the model's math term (fa/model.h)
    // One CTA per SM (or per resident slot) loops over the grid's tiles, drawn in grid order from a
    // counter: the causal tile order may group short problems too (fa/launch_plan.h).
    bool persistent = false;
    // Splits the grid's last wave along keys where it is less than half full (fa/splitkv.h,
    // FwdParams::tail_tiles), merging the chunks in the kernel.
    bool tail_split = false;
    // The split heuristic keeps its chunks to fa/splitkv.h's SplitChunkRule (two key blocks; 64 KB
    // of K/V past the splits one combine warp merges). Rung 10's, where session 42 measured it; at
    // 1k keys it cost rungs 3, 7 and 9 7-10 % (a Hopper key block of 128 keys already holds 64 KB).
    bool split_chunk_rule = false;
};

struct KernelInfo {
    int rung;           // position on the ladder (0 = naive); --list sorts by it
    const char* slug;   // stable name used by --kernel and in the CSV
    const char* title;  // one line for --list
    int min_sm;         // minimum compute capability, major*10+minor (80 = sm_80)
    // The configurations this kernel instantiates. For a given (dtype, head_dim) the first
    // matching row is the kernel's default (its tuned choice), used when no tile flag is given.
    const std::vector<KernelInstance>& (*instances)();
    // Scratch memory the kernel needs for a problem (null: none).
    std::size_t (*workspace_bytes)(const ProblemShape&) = nullptr;
    // Built for an architecture-specific target (sm_90a: wgmma, setmaxnreg): such code runs on
    // compute capability min_sm exactly, not on later GPUs.
    bool arch_specific = false;
    KernelCaps caps;
    // Why the kernel's own launch or index arithmetic cannot take a problem that passed the
    // command line's limits (empty: it can); null: no limit of its own.
    std::string (*problem_limit)(const ProblemShape&) = nullptr;
    // Why this rung's code cannot take `tile` for `problem` at all (empty: it could, whether or
    // not an instance is built), naming the closest tile it can take; check_support adds it to
    // a "not instantiated" reason. Null: no rule beyond the instance list.
    std::string (*tile_limit)(const TileConfig& tile, const ProblemShape& problem) = nullptr;
    // The CuTe DSL example's copy-partition rule, (m_block_size * 2) % num_threads == 0, holds for
    // this rung's tiles (every rung whose warps split the rows); rung 10's 16-row band, its
    // warps splitting the keys, does not follow it.
    bool example_tile_rule = true;
};

const std::vector<KernelInfo>& kernel_registry();

// Whether `kernel`'s code can run on a device of compute capability `sm` (0: no device, assume
// yes): sm_{min_sm} or newer, and exactly sm_{min_sm} when built for an architecture-specific target.
inline bool kernel_runs_on(const KernelInfo& kernel, int sm) {
    return sm == 0 || (sm >= kernel.min_sm && (!kernel.arch_specific || sm == kernel.min_sm));
}
// Whether `inst` can run on a device of compute capability `sm` (0: no device, assume yes).
inline bool instance_runs_on(const KernelInstance& inst, int sm) {
    return sm == 0 || inst.only_sm == 0 || inst.only_sm == sm;
}
const KernelInfo* find_kernel(std::string_view slug);

// What runs on this device: the rows of `kernel` instantiated for (dtype, head_dim) that a device
// of compute capability `sm` with `smem_optin` bytes of opt-in shared memory per block can launch
// (kernel_runs_on, instance_runs_on, shared memory within the limit), in registry order. sm = 0:
// no device, every instantiated row.
std::vector<const KernelInstance*> runnable_instances(const KernelInfo& kernel, DType dtype, int head_dim, int sm,
                                                      std::size_t smem_optin);

// Why `kernel` cannot run `problem` (empty string: it can). `tile` is the requested
// configuration, or null to take the kernel's default. `sm` is the device's compute capability
// (major*10+minor) and `smem_optin` its opt-in shared memory per block, both queried from the
// device; pass sm = 0 to skip the device checks (no GPU). On success *chosen is the instance.
std::string check_support(const KernelInfo& kernel, const ProblemShape& problem,
                          const TileConfig* tile, int sm, std::size_t smem_optin,
                          const KernelInstance** chosen);

}  // namespace fa
