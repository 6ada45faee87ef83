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
