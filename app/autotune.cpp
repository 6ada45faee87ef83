// --autotune (autotune.h): the tiles of each kernel, one problem at a time, measured by the same
// Measurer as a normal run, ranked, and the fastest cached.
#include "autotune.h"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <memory>
#include <new>
#include <numeric>
#include <stdexcept>

#include "fa/registry.h"
#include "measurer.h"
#include "plan.h"
#include "row_columns.h"
#include "tensors.h"
#include "tune_cache.h"

namespace fa {
namespace {

std::string tile_text(const TileConfig& t) {
    return fmt::format("{}x{}x{}", t.m_block_size, t.n_block_size, t.num_threads);
}

// The options the tuning runs under: AutotuneRule's values where the flag is not given.
Options tuning_options(const Options& o) {
    Options t = o;
    const AutotuneRule rule;
    if (!o.was_given("warmup_time")) t.warmup_time = rule.warmup_time_s;
    if (!o.was_given("min_time")) t.min_time = rule.min_time_s;
    if (!o.was_given("max_noise")) t.max_noise = rule.max_noise_pct;
    if (!o.was_given("max_time")) t.max_time = rule.max_time_s;
    return t;  // min_time <= max_time: options.cpp's cross rule checks it with these defaults
}

// "seqlen_q <= 8192, seqlen_k <= 8192, K/V heads not grouped": the bucket a result is cached for.
std::string bucket_text(const TuneKey& k) {
    return fmt::format("seqlen_q {}..{}, seqlen_k {}..{}, {}", k.seqlen_q_bucket / 2 + 1, k.seqlen_q_bucket,
                       k.seqlen_k_bucket / 2 + 1, k.seqlen_k_bucket,
                       k.grouped_kv ? "grouped K/V heads" : "K/V heads not grouped");
}

// One kernel's candidate tiles on one problem: a Job per runnable tile (plan_jobs with the
// tiles as if given by flag, so memory and the kernel's own limits are checked as in a run).
struct KernelTiles {
    const KernelInfo* kernel;
    std::vector<TileConfig> tiles;
    std::vector<Job> jobs;  // jobs[i] runs tiles[i]
    TileConfig default_tile;
};

class Autotuner {
  public:
    Autotuner(const Options& o, const DeviceInfo& dev, std::string path, TuneCache cache)
        : o_(o), dev_(dev), prov_(make_provenance(dev)), path_(std::move(path)), cache_(std::move(cache)),
          measurer_(o, dev) {}

    int run() {
        const Sweep sweep = expand_sweep(o_);
        fmt::print("device {}: {} (sm_{}, {} SMs); autotuning into {}\n", dev_.ordinal, dev_.name, dev_.sm,
                   dev_.sm_count, path_);
        measurer_.start();
        int status = 0;
        for (const ProblemShape& p : sweep.problems)
            if (int s = tune_problem(p, sweep); s != 0) {
                status = s;
                if (s == kCacheWriteFailed) return 1;
            }
        measurer_.warn_about_untrusted_rows(stderr);
        return status != 0 || measurer_.failures() ? 1 : 0;
    }

  private:
    static constexpr int kCacheWriteFailed = 3;

    int tune_problem(const ProblemShape& p, const Sweep& sweep) {
        std::vector<KernelTiles> kernels;
        std::size_t workspace = 0;
        for (const KernelInfo* k : sweep.kernels) {
            KernelTiles kt{k, {}, {}, {}};
            const KernelInstance* def = nullptr;
            const std::string why = check_support(*k, p, nullptr, dev_.sm, dev_.smem_optin, &def);
            if (def != nullptr && def->tile.m_block_size == 0) {
                fmt::print("autotune {} [{}]: nothing to tune (no tile configuration)\n", k->slug, shape_tag(p));
                continue;
            }
            if (def != nullptr) kt.default_tile = def->tile;
            for (const KernelInstance* inst : runnable_instances(*k, p.dtype, p.head_dim, dev_.sm, dev_.smem_optin))
                if (std::find(kt.tiles.begin(), kt.tiles.end(), inst->tile) == kt.tiles.end())
                    kt.tiles.push_back(inst->tile);
            if (kt.tiles.empty()) {
                fmt::print("autotune {} [{}]: nothing to tune ({})\n", k->slug, shape_tag(p), why);
                continue;
            }
            Sweep one;
            one.kernels = {k};
            one.tiles = kt.tiles;
            kt.jobs = plan_jobs(p, one, dev_, true);
            for (const Job& j : kt.jobs)
                if (j.inst) workspace = std::max(workspace, j.workspace);
            kernels.push_back(std::move(kt));
        }
        if (kernels.empty()) return 0;

        const cudaStream_t stream = measurer_.stream();
        ProblemTensors tensors(p, workspace, o_.seed, true, stream);
        tensors.compute_reference(stream);
        int status = 0;
        for (const KernelTiles& kt : kernels)
            if (int s = tune_kernel(p, kt, tensors); s != 0) {
                status = s;
                if (s == kCacheWriteFailed) return s;
            }
        return status;
    }

    int tune_kernel(const ProblemShape& p, const KernelTiles& kt, ProblemTensors& tensors) {
        std::vector<TileTiming> timings;
        for (std::size_t i = 0; i < kt.jobs.size(); ++i) {
            const Job& j = kt.jobs[i];
            TileTiming t;
            t.tile = kt.tiles[i];
            t.is_default = t.tile == kt.default_tile;
            if (j.inst == nullptr) {
                t.check = "UNSUPPORTED";
                t.reason = j.reason;
            } else {
                ResultRow r = base_row(o_, prov_, p);
                r.kernel = kt.kernel->slug;
                measurer_.measure(j, tensors, fmt::format("{} {} {}", kt.kernel->slug, shape_tag(p), tile_text(t.tile)),
                                  &r);
                t.check = r.check;
                t.reason = r.note;
                t.median_ms = r.time_ms_median;
                t.tflops = r.tflops;
                t.noise_pct = r.median_noise_pct;
            }
            timings.push_back(t);
        }
        const TuneKey key = tune_key(dev_.name, kt.kernel->slug, p);
        fmt::print("autotune {} [{}]: {} tile(s); cached for {}\n{}", kt.kernel->slug, shape_tag(p), timings.size(),
                   bucket_text(key), format_ranking(timings));
        const int best = fastest_passing(timings);
        if (best < 0) {
            fmt::print("  no tile passed the check: nothing cached\n");
            return 1;
        }
        const TileTiming& b = timings[static_cast<std::size_t>(best)];
        TuneEntry e;
        e.key = key;
        e.tile = b.tile;
        e.median_ms = b.median_ms;
        e.tflops = b.tflops;
        e.tuned_at = static_cast<int64_t>(std::time(nullptr));
        e.problem = fmt::format("b{} h{} hkv{} sq{} sk{}", p.batch, p.heads, p.kv_heads(), p.seqlen_q, p.seqlen_k);
        cache_.put(e);
        if (std::string err = cache_.save(path_); !err.empty()) {
            fmt::print(stderr, "fa-bench: {}\n", err);
            return kCacheWriteFailed;
        }
        const auto def = std::find_if(timings.begin(), timings.end(), [](const TileTiming& t) { return t.is_default; });
        if (b.is_default)
            fmt::print("  best: {} (the default tile), cached\n", tile_text(b.tile));
        else if (def != timings.end() && def->check == "PASS")
            fmt::print("  best: {}, {:.1f} % faster than the default {}, cached\n", tile_text(b.tile),
                       100.0 * (def->median_ms / b.median_ms - 1.0), tile_text(def->tile));
        else
            fmt::print("  best: {} (the default {} did not pass), cached\n", tile_text(b.tile), tile_text(kt.default_tile));
        return 0;
    }

    const Options& o_;
    DeviceInfo dev_;
    Provenance prov_;
    std::string path_;
    TuneCache cache_;
    Measurer measurer_;
};

}  // namespace

int fastest_passing(const std::vector<TileTiming>& tiles) {
    int best = -1;
    for (std::size_t i = 0; i < tiles.size(); ++i) {
        const TileTiming& t = tiles[i];
        if (t.check != "PASS" || !(t.median_ms > 0)) continue;
        if (best < 0 || t.median_ms < tiles[static_cast<std::size_t>(best)].median_ms) best = static_cast<int>(i);
    }
    return best;
}

std::string format_ranking(const std::vector<TileTiming>& tiles, const std::string& indent) {
    std::vector<std::size_t> order(tiles.size());
    std::iota(order.begin(), order.end(), 0);
    auto passed = [&](std::size_t i) { return tiles[i].check == "PASS" && tiles[i].median_ms > 0; };
    // PASS rows by median (stable: equal medians keep registry order), then the rest in order.
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        if (passed(a) != passed(b)) return passed(a);
        return passed(a) && tiles[a].median_ms < tiles[b].median_ms;
    });
    const int best = fastest_passing(tiles);
    std::string out = fmt::format("{}{:<5} {:<12} {:>10} {:>8} {:>8} {:>8}\n", indent, "rank", "tile", "median_ms",
                                  "TFLOP/s", "vs_best", "noise_%");
    int rank = 0;
    for (std::size_t i : order) {
        const TileTiming& t = tiles[i];
        const std::string mark = t.is_default ? "  default" : "";
        if (passed(i)) {
            const double rel = tiles[static_cast<std::size_t>(best)].median_ms / t.median_ms;
            out += fmt::format("{}{:<5} {:<12} {:>10.4f} {:>8.1f} {:>8.3f} {:>8.2f}{}\n", indent, ++rank,
                               tile_text(t.tile), t.median_ms, t.tflops, rel, t.noise_pct, mark);
        } else {
            out += fmt::format("{}{:<5} {:<12} {}{}{}{}\n", indent, "-", tile_text(t.tile), t.check,
                               t.reason.empty() ? "" : ": ", t.reason, mark);
        }
    }
    return out;
}

namespace {

// --tune_cache, else the default next to the peaks file.
std::string tune_file(const Options& o) { return o.tune_cache.empty() ? default_tune_file() : o.tune_cache; }

// The cache at `path`; a file that is not a well-formed cache is one warning line and reads empty.
TuneCache load_warning_once(const std::string& path) {
    std::string warning;
    TuneCache cache = TuneCache::load(path, &warning);
    if (!warning.empty()) fmt::print(stderr, "fa-bench: warning: {}\n", warning);
    return cache;
}

}  // namespace

TuneCache load_run_tune_cache(const Options& o, const DeviceInfo& dev) {
    if (o.no_tune_cache || o.tile_given() || !dev.present) return {};
    return load_warning_once(tune_file(o));
}

int run_autotune(const Options& o, const DeviceInfo& dev) {
    if (!dev.present) {
        fmt::print(stderr, "fa-bench: --autotune needs a CUDA GPU to time tiles ({}); nothing was run\n",
                   dev.why_absent);
        return 2;
    }
    const Options tuning = tuning_options(o);
    const std::string path = tune_file(o);
    try {
        Autotuner tuner(tuning, dev, path, load_warning_once(path));
        return tuner.run();
    } catch (const std::runtime_error& e) {
        fmt::print(stderr, "fa-bench: CUDA error: {}\n", e.what());
    } catch (const std::bad_alloc&) {
        fmt::print(stderr, "fa-bench: out of host memory (the check keeps about 10 bytes per element of Q on the "
                           "host)\n");
    }
    return 1;
}

}  // namespace fa
