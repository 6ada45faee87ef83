#include "plan.h"

#include "fa/splitkv.h"
#include "row_columns.h"
#include "schema.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <ctime>

namespace fa {
namespace {

std::vector<ProblemShape> expand_problems(const Options& o) {
    std::vector<ProblemShape> out;
    // No --num_head_kv: one entry meaning "as many K/V heads as query heads" (0).
    const std::vector<int> kv_heads = o.num_head_kv.empty() ? std::vector<int>{0} : o.num_head_kv;
    for (DType t : o.dtypes)
        for (int b : o.batch_size)
            for (int h : o.num_head)
                for (int kv : kv_heads)
                    for (int d : o.head_dim)
                        for (int sq : o.seqlen_q)
                            for (int sk : o.seqlen_k)
                                for (int c : o.causal)
                                    for (int splits : o.num_splits) {
                                        ProblemShape p;
                                        p.dtype = t;
                                        p.batch = b;
                                        p.heads = h;
                                        p.heads_kv = kv == h ? 0 : kv;
                                        p.head_dim = d;
                                        p.seqlen_q = sq;
                                        p.seqlen_k = sk;
                                        p.causal = c != 0;
                                        p.layout = o.layout;
                                        p.softmax_scale = o.softmax_scale;
                                        p.num_splits = splits;
                                        out.push_back(p);
                                    }
    return out;
}

std::vector<TileConfig> expand_tiles(const Options& o) {
    std::vector<TileConfig> out;
    for (int m : o.m_block_size)
        for (int n : o.n_block_size)
            for (int t : o.num_threads) out.push_back({m, n, t});
    return out;
}

std::vector<const KernelInfo*> selected_kernels(const Options& o) {
    std::vector<const KernelInfo*> out;
    const bool all = o.kernels.empty() || std::find(o.kernels.begin(), o.kernels.end(), "all") != o.kernels.end();
    for (const KernelInfo& k : kernel_registry())
        if (all || std::find(o.kernels.begin(), o.kernels.end(), k.slug) != o.kernels.end()) out.push_back(&k);
    return out;
}

}  // namespace

Sweep expand_sweep(const Options& o, const TuneCache* tune_cache) {
    return {expand_problems(o), expand_tiles(o), selected_kernels(o), tune_cache};
}

std::string shape_tag(const ProblemShape& p) { return nvtx_problem_tag(p); }

namespace {

// The tile precedence's middle step for kernel `k`: the cached --autotune tile for p's bucket on
// this GPU, when no tile flag is given, the kernel can run p at all (its default is supported)
// and the cached tile is still instantiated and runnable here. Null otherwise; a stale entry adds
// a line to `warnings`.
const TuneEntry* cached_choice(const KernelInfo& k, const ProblemShape& p, const Sweep& sweep, const DeviceInfo& dev,
                               std::vector<std::string>* warnings) {
    if (!sweep.tiles.empty() || sweep.tune_cache == nullptr || dev.name.empty()) return nullptr;
    const TuneEntry* e = sweep.tune_cache->find(tune_key(dev.name, k.slug, p));
    if (e == nullptr) return nullptr;
    const KernelInstance* inst = nullptr;
    if (!check_support(k, p, nullptr, dev.sm, dev.smem_optin, &inst).empty()) return nullptr;
    const std::string why = check_support(k, p, &e->tile, dev.sm, dev.smem_optin, &inst);
    if (why.empty()) return e;
    const std::string line = fmt::format("tune cache: {} [{}]: cached tile {}x{}x{} is stale ({}); using the "
                                         "default tile (--autotune re-tunes it)",
                                         k.slug, shape_tag(p), e->tile.m_block_size, e->tile.n_block_size,
                                         e->tile.num_threads, why);
    if (warnings && std::find(warnings->begin(), warnings->end(), line) == warnings->end()) warnings->push_back(line);
    return nullptr;
}

}  // namespace

std::vector<Job> plan_jobs(const ProblemShape& p, const Sweep& sweep, const DeviceInfo& dev, bool with_reference,
                           std::vector<std::string>* warnings) {
    std::vector<Job> jobs;
    const std::size_t io = static_cast<std::size_t>(compulsory_bytes(p));
    const std::size_t ref =
        with_reference ? static_cast<std::size_t>(p.batch) * p.heads * p.seqlen_q * p.head_dim * 4 : 0;
    const std::size_t reserve = 256u << 20;  // CUDA context, cuBLAS workspace, L2 flush buffer
    std::vector<const TileConfig*> tile_choices;
    for (const TileConfig& t : sweep.tiles) tile_choices.push_back(&t);
    if (tile_choices.empty()) tile_choices.push_back(nullptr);
    const std::int64_t now = static_cast<std::int64_t>(std::time(nullptr));
    for (const KernelInfo* k : sweep.kernels) {
        const TuneEntry* tuned = cached_choice(*k, p, sweep, dev, warnings);
        for (const TileConfig* t : tile_choices) {
            Job j;
            j.kernel = k;
            // tile_choices is {nullptr} when a cached tile exists: no tile flag was given.
            const TileConfig* tile = tuned ? &tuned->tile : t;
            if (tuned) j.tile_note = fmt::format("autotuned {} ago", tune_age(tuned->tuned_at, now));
            j.reason = check_support(*k, p, tile, dev.sm, dev.smem_optin, &j.inst);
            if (j.inst) {
                j.plan = plan_launch(*k, *j.inst, p, dev.sm_count, resident_ctas_per_sm(dev, *j.inst),
                                     static_cast<long long>(dev.l2_bytes));
                if (k->workspace_bytes) j.kernel_workspace = k->workspace_bytes(p);
                j.workspace = (j.kernel_workspace + 255) / 256 * 256 + plan_workspace_bytes(p, j.plan);
            }
            // Without a device nothing is allocated, so there is no memory to check.
            if (j.inst && dev.present && io + ref + j.workspace + reserve > dev.free_bytes) {
                j.reason = fmt::format("needs {:.1f} GB of device memory ({:.1f} GB workspace), {:.1f} GB free",
                                       (io + ref + j.workspace + reserve) / 1e9, j.workspace / 1e9,
                                       dev.free_bytes / 1e9);
                j.inst = nullptr;
            }
            // A non-tiled kernel runs once for the whole tile sweep, not once per tile.
            if (j.inst && j.inst->tile.m_block_size == 0 && t != tile_choices.front()) continue;
            jobs.push_back(j);
        }
    }
    return jobs;
}

std::string check_jobs(const ProblemShape& p, const std::vector<Job>& jobs) {
    if (p.num_splits <= 1) return {};
    for (const Job& j : jobs)
        if (j.inst && p.num_splits > j.plan.key_blocks)
            return fmt::format(
                "--num_splits {}: must be at most the key blocks of each selected kernel; {} has ceil({} / {}) = {} at "
                "seqlen_k {}",
                p.num_splits, j.kernel->slug, p.seqlen_k, j.inst->tile.n_block_size, j.plan.key_blocks, p.seqlen_k);
    return {};
}

}  // namespace fa
