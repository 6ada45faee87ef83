#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <memory>
#include <numeric>
#include <random>

#include "timing.h"

namespace {

fa::TimingPolicy rule_policy() {
    fa::TimingPolicy p;
    p.rule.min_samples = 10;
    p.rule.min_time_s = 0.2;
    p.rule.max_noise_pct = 0.5;
    p.rule.max_time_s = 2.0;
    return p;
}

// Launch times of a kernel whose median is `ms` with relative noise `pct` (normal), from a fixed
// seed, so every run of the test sees the same sequence.
std::function<double()> kernel_times(double ms, double pct, unsigned seed = 12) {
    auto gen = std::make_shared<std::mt19937>(seed);
    auto dist = std::make_shared<std::normal_distribution<double>>(ms, ms * pct / 100);
    return [gen, dist] { return (*dist)(*gen); };
}

// The GPU side of the timed loop, simulated: a batch's launches take the times `next_time` gives,
// one after the other, and the wall clock advances by them as they are collected. It checks the
// loop's promises: never more than two batches in flight, a slot collected before it is reused,
// the last batch announced once and before it is collected.
class SimulatedGpu : public fa::TimedBatches {
  public:
    explicit SimulatedGpu(std::function<double()> next_time) : next_time_(std::move(next_time)) {}

    void enqueue(int slot, int count) override {
        REQUIRE((slot == 0 || slot == 1));
        REQUIRE(pending_[slot].empty());  // collected before reuse
        REQUIRE(count >= 1);
        REQUIRE_FALSE(last_announced_);
        for (int i = 0; i < count; ++i) pending_[slot].push_back(next_time_());
        batches.push_back(count);
        in_flight = static_cast<int>(!pending_[0].empty()) + static_cast<int>(!pending_[1].empty());
        max_in_flight = std::max(max_in_flight, in_flight);
    }
    void collect(int slot, int count, std::vector<double>* ms) override {
        REQUIRE(static_cast<int>(pending_[slot].size()) == count);
        for (double t : pending_[slot]) {
            ms->push_back(t);
            wall_ += t / 1e3;
        }
        pending_[slot].clear();
        if (last_announced_) ++collects_after_last;
    }
    double wall_s() override { return wall_; }
    void last_batch_enqueued() override {
        REQUIRE_FALSE(last_announced_);
        last_announced_ = true;
    }
    bool all_collected() const { return pending_[0].empty() && pending_[1].empty(); }
    bool last_announced() const { return last_announced_; }

    std::vector<int> batches;
    int in_flight = 0, max_in_flight = 0, collects_after_last = 0;

  private:
    std::function<double()> next_time_;
    std::vector<double> pending_[2];
    double wall_ = 0;
    bool last_announced_ = false;
};

struct Run {
    fa::StopReason why;
    std::vector<double> ms;
    fa::Timing timing;
};

Run run(SimulatedGpu& gpu, double est_ms, const fa::TimingPolicy& p) {
    Run r;
    r.why = fa::run_timed_batches(gpu, est_ms, p, &r.ms);
    r.timing = fa::summarize(r.ms);
    CHECK(gpu.all_collected());
    CHECK(gpu.last_announced());
    CHECK(gpu.collects_after_last == 1);
    CHECK(gpu.max_in_flight <= 2);
    return r;
}

}  // namespace

TEST_CASE("summarize: median, extremes and noise of per-launch times", "[timing]") {
    // Unsorted input; odd count: the middle value. Sample standard deviation 1 over mean 2: 50 %.
    const fa::Timing odd = fa::summarize({3.0, 1.0, 2.0});
    CHECK(odd.median == 2.0);
    CHECK(odd.min == 1.0);
    CHECK(odd.max == 3.0);
    CHECK(odd.noise_pct == Approx(50.0));
    CHECK(odd.launches == 3);
    // Even count: the mean of the two middle values.
    CHECK(fa::summarize({4.0, 1.0, 3.0, 2.0}).median == 2.5);
    // One launch has no spread to report.
    const fa::Timing one = fa::summarize({0.7});
    CHECK(one.median == 0.7);
    CHECK(one.noise_pct == 0.0);
    CHECK(std::isnan(one.median_noise_pct));
}

TEST_CASE("the noise of the median is 1.2533 * (IQR / 1.349) / sqrt(n), relative to the median", "[timing]") {
    // 1..10: quartiles 3.25 and 7.75 (linear between order statistics, numpy's default), median 5.5.
    const std::vector<double> ten = {7, 3, 10, 1, 5, 9, 2, 8, 4, 6};
    CHECK(fa::median_noise_pct(ten) == Approx(100.0 * 1.2533 * (4.5 / 1.349) / (std::sqrt(10.0) * 5.5)));
    // Two launches: quartiles 1.5 and 2.5, median 2.
    CHECK(fa::median_noise_pct({1.0, 3.0}) == Approx(100.0 * 1.2533 * (1.0 / 1.349) / (std::sqrt(2.0) * 2)));
    CHECK(std::isnan(fa::median_noise_pct({1.0})));
    // Identical times (a clock-quantized short kernel): no uncertainty left.
    CHECK(fa::median_noise_pct(std::vector<double>(50, 0.25)) == 0.0);
}

TEST_CASE("for normal launch times the noise of the median is 1.2533 sigma / sqrt(n)", "[timing]") {
    for (const int n : {4000, 40000}) {
        INFO(n);
        const auto next = kernel_times(100.0, 2.0);
        std::vector<double> ms(n);
        for (double& x : ms) x = next();
        const double expected = 1.2533 * 2.0 / std::sqrt(n);  // % of the median (100 ms)
        CHECK(fa::median_noise_pct(ms) == Approx(expected).epsilon(0.2));
    }
}

TEST_CASE("a few slow launches inflate the per-launch noise, not the noise of the median", "[timing]") {
    const auto next = kernel_times(3.3, 0.3);
    std::vector<double> ms(200);
    for (double& x : ms) x = next();
    for (int i = 0; i < 8; ++i) ms[i * 25] = 6.6;  // 4 % of launches twice as slow (a clock dip)
    const fa::Timing t = fa::summarize(ms);
    CHECK(t.noise_pct > 15);
    CHECK(t.median_noise_pct < 0.1);
    // The normal-theory error from sigma would have called this row noisy.
    CHECK(1.2533 * t.noise_pct / std::sqrt(200.0) > 1.0);
}

TEST_CASE("the stopping rule: min_samples, min_time and max_noise together, max_time alone", "[timing]") {
    const fa::TimingPolicy p = rule_policy();
    const std::vector<double> quiet(60, 3.3);  // 0.198 s: just short of min_time
    CHECK(fa::should_stop(quiet, 0.25, p) == fa::StopReason::kContinue);
    std::vector<double> enough = quiet;
    enough.push_back(3.3);  // 0.2013 s
    CHECK(fa::should_stop(enough, 0.25, p) == fa::StopReason::kNoiseTarget);
    // Long launches reach min_time before min_samples.
    CHECK(fa::should_stop(std::vector<double>(9, 61.0), 0.6, p) == fa::StopReason::kContinue);
    CHECK(fa::should_stop(std::vector<double>(10, 61.0), 0.7, p) == fa::StopReason::kNoiseTarget);
    // Noisy: going on until max_time, which then stops it with the target unmet.
    std::vector<double> noisy;
    for (int i = 0; i < 100; ++i) noisy.push_back(i % 2 ? 3.0 : 3.6);
    CHECK(fa::median_noise_pct(noisy) > 0.5);
    CHECK(fa::should_stop(noisy, 1.9, p) == fa::StopReason::kContinue);
    CHECK(fa::should_stop(noisy, 2.0, p) == fa::StopReason::kMaxTime);
    // max_time is a hard limit, as nvbench's --timeout: one 3 s launch ends the row.
    CHECK(fa::should_stop({3000.0}, 3.0, p) == fa::StopReason::kMaxTime);
    CHECK(fa::should_stop({}, 3.0, p) == fa::StopReason::kContinue);
}

TEST_CASE("with --iterations only the count matters", "[timing]") {
    fa::TimingPolicy p = rule_policy();
    p.iterations = 7;
    std::vector<double> noisy = {1, 9, 1, 9, 1, 9};
    CHECK(fa::should_stop(noisy, 100.0, p) == fa::StopReason::kContinue);  // past max_time, noisy
    noisy.push_back(1);
    CHECK(fa::should_stop(noisy, 0.0, p) == fa::StopReason::kIterations);
}

TEST_CASE("batches hold about 10 ms of launches, within --iterations and max_time", "[timing]") {
    fa::TimingPolicy p = rule_policy();
    CHECK(fa::next_batch_size(0, 0.0, 0, p) == 1);      // unknown length: one launch first
    CHECK(fa::next_batch_size(0, 3.3, 0, p) == 4);      // ceil(10 / 3.3)
    CHECK(fa::next_batch_size(0, 61.0, 0, p) == 1);     // longer than a batch: one at a time
    CHECK(fa::next_batch_size(0, 0.01, 0, p) == 1000);  // short kernels: many per host wake-up
    CHECK(fa::next_batch_size(0, 0.0001, 0, p) == fa::kMaxBatch);
    CHECK(fa::next_batch_size(500, 0.01, 1.9995, p) == 50);  // what fits in max_time's last 0.5 ms
    CHECK(fa::next_batch_size(500, 0.01, 2.5, p) == 1);
    p.iterations = 10;
    CHECK(fa::next_batch_size(8, 0.01, 0, p) == 2);
    CHECK(fa::next_batch_size(0, 3.3, 5.0, p) == 4);  // max_time plays no part
}

TEST_CASE("the warm-up lasts warmup_time and at least warmup_iterations", "[timing]") {
    fa::TimingPolicy p;
    p.warmup_iterations = 3;
    p.warmup_time_s = 0.2;
    CHECK(fa::next_warmup_batch(0, 0, p) == 1);         // one launch to learn its length
    CHECK(fa::next_warmup_batch(1, 3.3, p) == 60);      // ceil((200 - 3.3) / 3.3)
    CHECK(fa::next_warmup_batch(61, 201.3, p) == 0);
    CHECK(fa::next_warmup_batch(1, 150.0, p) == 2);     // time nearly met, count not yet
    CHECK(fa::next_warmup_batch(3, 450.0, p) == 0);
    CHECK(fa::next_warmup_batch(1, 0.001, p) == fa::kMaxBatch);  // 1 us launches: 200k, in batches
    p.warmup_time_s = 0;
    CHECK(fa::next_warmup_batch(1, 3.3, p) == 2);
    p.warmup_iterations = 0;
    CHECK(fa::next_warmup_batch(0, 0, p) == 0);         // --warmup_iterations 0 --warmup_time 0: none
}

TEST_CASE("a quiet kernel stops at min_time with the noise target met", "[timing]") {
    SimulatedGpu gpu(kernel_times(3.3, 0.3));
    const Run r = run(gpu, 3.3, rule_policy());
    CHECK(r.why == fa::StopReason::kNoiseTarget);
    // min_time 0.2 s at 3.3 ms is 61 launches; the rule looks after every 4-launch batch.
    CHECK(r.timing.launches >= 61);
    CHECK(r.timing.launches <= 64);
    CHECK(r.timing.median_noise_pct <= 0.5);
    CHECK(gpu.batches.front() == 4);
}

TEST_CASE("a noisy kernel launches until the median is known to max_noise", "[timing]") {
    // 4.5 % per-launch noise, the H100: n ~ (1.2533 * 4.5 / 0.5)^2 = 127 launches.
    SimulatedGpu gpu(kernel_times(3.3, 4.5));
    const Run r = run(gpu, 3.3, rule_policy());
    CHECK(r.why == fa::StopReason::kNoiseTarget);
    CHECK(r.timing.launches > 80);
    CHECK(r.timing.launches < 250);
    CHECK(r.timing.median_noise_pct <= 0.5);
}

TEST_CASE("a kernel too noisy for max_noise stops at max_time", "[timing]") {
    SimulatedGpu gpu(kernel_times(3.3, 20));  // would need ~2500 launches, 8 s
    const Run r = run(gpu, 3.3, rule_policy());
    CHECK(r.why == fa::StopReason::kMaxTime);
    const double total_s = std::accumulate(r.ms.begin(), r.ms.end(), 0.0) / 1e3;
    CHECK(total_s >= 2.0);
    CHECK(total_s < 2.0 + fa::kBatchMs / 1e3 + 0.01);  // the batch that crossed max_time, no more
    CHECK(r.timing.median_noise_pct > 0.5);
}

TEST_CASE("a kernel slower than max_time / min_samples stops at max_time below min_samples", "[timing]") {
    SimulatedGpu gpu([] { return 700.0; });  // 0.7 s per launch
    const Run r = run(gpu, 700.0, rule_policy());
    CHECK(r.why == fa::StopReason::kMaxTime);
    CHECK(r.timing.launches == 3);  // the third ends at 2.1 s; the fourth, in flight, is left out
    CHECK(gpu.batches == std::vector<int>{1, 1, 1, 1});
}

TEST_CASE("an iterations count N launches exactly N, whatever the noise", "[timing]") {
    fa::TimingPolicy p = rule_policy();
    for (const int n : {1, 4, 10, 333}) {
        INFO(n);
        p.iterations = n;
        SimulatedGpu gpu(kernel_times(3.3, 20));
        const Run r = run(gpu, 3.3, p);
        CHECK(r.why == fa::StopReason::kIterations);
        CHECK(r.timing.launches == n);
    }
}
