#include <catch2/catch.hpp>

#include <string>

#include "fa/registry.h"
#include "plan.h"

namespace {

// An H100 as the device query reports it, without needing one.
fa::DeviceInfo h100(std::size_t free_bytes = 80ull << 30) {
    fa::DeviceInfo d;
    d.present = true;
    d.sm = 90;
    d.sm_count = 132;
    d.smem_optin = 227 * 1024;
    d.free_bytes = free_bytes;
    return d;
}

}  // namespace

TEST_CASE("expand_sweep: the cartesian product of the flags, kernels in registry order", "[plan]") {
    fa::Options o;
    o.dtypes = {fa::DType::BFloat16, fa::DType::Float16};
    o.head_dim = {64, 128};
    o.causal = {0, 1};
    o.kernels = {"mma", "naive"};
    const fa::Sweep s = fa::expand_sweep(o);
    REQUIRE(s.problems.size() == 8);
    CHECK(s.problems.front().dtype == fa::DType::BFloat16);  // dtype is the outermost axis
    CHECK(s.problems.back().dtype == fa::DType::Float16);
    CHECK(s.problems[1].causal);  // causal the innermost
    CHECK(s.tiles.empty());
    REQUIRE(s.kernels.size() == 2);
    CHECK(std::string(s.kernels[0]->slug) == "naive");
    CHECK(std::string(s.kernels[1]->slug) == "mma");

    o.kernels = {};
    CHECK(fa::expand_sweep(o).kernels.size() == fa::kernel_registry().size());
    o.m_block_size = {64, 128};
    o.n_block_size = {64};
    o.num_threads = {128};
    CHECK(fa::expand_sweep(o).tiles.size() == 2);
}

TEST_CASE("plan_jobs: one job per kernel and tile, untiled kernels once, memory checked", "[plan]") {
    fa::Options o;
    o.kernels = {"naive", "mma"};
    fa::Sweep s = fa::expand_sweep(o);
    const fa::ProblemShape& p = s.problems.front();

    std::vector<fa::Job> jobs = fa::plan_jobs(p, s, h100(), true);
    REQUIRE(jobs.size() == 2);
    for (const fa::Job& j : jobs) {
        INFO(j.kernel->slug << ": " << j.reason);
        CHECK(j.inst != nullptr);
    }
    CHECK(jobs[0].workspace > 0);  // naive materializes S and P

    // Two tiles: mma gets a job per tile (runnable or not), naive still one.
    s.tiles = {{128, 64, 128}, {64, 64, 128}};
    jobs = fa::plan_jobs(p, s, h100(), true);
    CHECK(jobs.size() == 3);

    // Too little free memory: the job says how much it needs instead of running.
    s.tiles.clear();
    jobs = fa::plan_jobs(p, s, h100(512ull << 20), true);
    for (const fa::Job& j : jobs) {
        INFO(j.kernel->slug);
        CHECK(j.inst == nullptr);
        CHECK(j.reason.find("GB of device memory") != std::string::npos);
    }
}

TEST_CASE("plan_jobs without a GPU: what is known statically, no memory check", "[plan]") {
    fa::Options o;
    o.kernels = {"tiled", "mma"};
    o.dtypes = {fa::DType::Float32};
    fa::Sweep s = fa::expand_sweep(o);
    const fa::DeviceInfo none;  // present = false, free_bytes = 0
    const std::vector<fa::Job> jobs = fa::plan_jobs(s.problems.front(), s, none, true);
    REQUIRE(jobs.size() == 2);
    CHECK(jobs[0].inst != nullptr);  // tiled has Float32 head_dim 128: runnable, no device memory asked
    CHECK(jobs[1].inst == nullptr);  // mma has no Float32 instance
    CHECK(jobs[1].reason.find("not instantiated for Float32 head_dim 128") == 0);
}

TEST_CASE("check_jobs without a GPU: a split count above a kernel's key blocks is refused up front", "[plan]") {
    fa::Options o;
    o.kernels = {"mma"};
    o.seqlen_k = {128};
    o.num_splits = {64};
    fa::Sweep s = fa::expand_sweep(o);
    const fa::DeviceInfo none;
    const std::vector<fa::Job> jobs = fa::plan_jobs(s.problems.front(), s, none, false);
    REQUIRE(jobs.size() == 1);
    REQUIRE(jobs[0].inst != nullptr);  // the tile is known without a device, so are its key blocks
    CHECK(fa::check_jobs(s.problems.front(), jobs).find("--num_splits 64: must be at most the key blocks") == 0);
    o.num_splits = {jobs[0].plan.key_blocks};
    s = fa::expand_sweep(o);
    CHECK(fa::check_jobs(s.problems.front(), fa::plan_jobs(s.problems.front(), s, none, false)).empty());
}

// Tile precedence (plan.h): tile flags > the cached --autotune tile > the kernel's default, with an
// in-memory cache. mma at BFloat16 head_dim 128 has the example's 128x64x128 (its default),
// 128x32x128 and 64x64x128.
TEST_CASE("plan_jobs: tile flags, then the cached autotune tile, then the default", "[plan][tune_cache]") {
    fa::DeviceInfo dev = h100();
    dev.name = "NVIDIA H100 80GB HBM3";
    fa::Options o;
    o.kernels = {"mma"};
    const fa::TileConfig kDefault{128, 64, 128}, kTuned{64, 64, 128}, kFlag{128, 32, 128};

    fa::TuneCache cache;
    fa::TuneEntry e;
    e.tile = kTuned;
    e.median_ms = 6.0;
    e.tuned_at = 1700000000;
    e.problem = "b4 h16 hkv16 sq8192 sk8192";
    fa::Sweep s = fa::expand_sweep(o, &cache);
    const fa::ProblemShape p = s.problems.front();
    e.key = fa::tune_key(dev.name, "mma", p);
    cache.put(e);

    auto only_job = [&](const fa::Sweep& sweep, const fa::ProblemShape& problem, const fa::DeviceInfo& d,
                        std::vector<std::string>* warnings = nullptr) {
        std::vector<fa::Job> jobs = fa::plan_jobs(problem, sweep, d, true, warnings);
        REQUIRE(jobs.size() == 1);
        INFO(jobs[0].reason);
        REQUIRE(jobs[0].inst != nullptr);
        return jobs[0];
    };

    // The cached tile, with the note the row carries.
    fa::Job j = only_job(s, p, dev);
    CHECK(j.inst->tile == kTuned);
    CHECK(j.tile_note.find("autotuned ") == 0);
    CHECK(j.tile_note.find(" ago") != std::string::npos);

    // Same bucket (seqlen 5000 -> 8192): the same tile; another bucket or GPU: the default.
    fa::ProblemShape q = p;
    q.seqlen_q = 5000;
    CHECK(only_job(s, q, dev).inst->tile == kTuned);
    q.seqlen_q = 1;  // decode is its own bucket
    CHECK(only_job(s, q, dev).inst->tile == kDefault);
    fa::DeviceInfo a100 = dev;
    a100.name = "NVIDIA A100-SXM4-80GB";
    a100.sm = 80;
    a100.smem_optin = 163 * 1024;
    j = only_job(s, p, a100);
    CHECK(j.inst->tile == kDefault);
    CHECK(j.tile_note.empty());

    // Explicit tile flags win over the cache.
    fa::Sweep flagged = s;
    flagged.tiles = {kFlag};
    j = only_job(flagged, p, dev);
    CHECK(j.inst->tile == kFlag);
    CHECK(j.tile_note.empty());

    // No cache (--no_tune_cache): the default.
    fa::Sweep plain = s;
    plain.tune_cache = nullptr;
    CHECK(only_job(plain, p, dev).inst->tile == kDefault);
}

TEST_CASE("plan_jobs: a stale cached tile falls back to the default with one warning line", "[plan][tune_cache]") {
    fa::DeviceInfo dev = h100();
    dev.name = "NVIDIA H100 80GB HBM3";
    fa::Options o;
    o.kernels = {"mma"};
    o.seqlen_q = {4096, 8192};  // two problems, one bucket each: one warning per stale entry
    fa::TuneCache cache;
    fa::Sweep s = fa::expand_sweep(o, &cache);
    fa::TuneEntry e;
    e.tile = {96, 48, 128};  // not an mma instance (e.g. a row removed since it was tuned)
    e.median_ms = 1.0;
    e.problem = "old";
    for (const fa::ProblemShape& p : s.problems) {
        e.key = fa::tune_key(dev.name, "mma", p);
        cache.put(e);
    }
    std::vector<std::string> warnings;
    for (int repeat = 0; repeat < 2; ++repeat)
        for (const fa::ProblemShape& p : s.problems) {
            const std::vector<fa::Job> jobs = fa::plan_jobs(p, s, dev, true, &warnings);
            REQUIRE(jobs.size() == 1);
            REQUIRE(jobs[0].inst != nullptr);
            CHECK(jobs[0].inst->tile == fa::TileConfig{128, 64, 128});
            CHECK(jobs[0].tile_note.empty());
        }
    REQUIRE(warnings.size() == 2);  // one per stale entry, not per lookup
    CHECK(warnings[0].find("cached tile 96x48x128 is stale") != std::string::npos);
    CHECK(warnings[0].find("using the default tile") != std::string::npos);

    // A cached tile for a kernel that cannot run the problem at all says nothing: the row's own
    // reason (not instantiated for Float32) is what the user needs.
    o.dtypes = {fa::DType::Float32};
    o.seqlen_q = {8192};
    s = fa::expand_sweep(o, &cache);
    e.key = fa::tune_key(dev.name, "mma", s.problems.front());
    cache.put(e);
    warnings.clear();
    const std::vector<fa::Job> jobs = fa::plan_jobs(s.problems.front(), s, dev, true, &warnings);
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0].inst == nullptr);
    CHECK(warnings.empty());
}
