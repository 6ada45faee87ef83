#include "timing.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>

#include "nvtx.h"

namespace fa {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double sum_of(const std::vector<double>& ms) { return std::accumulate(ms.begin(), ms.end(), 0.0); }

// Start and stop events for each launch of one batch, created once and reused batch after batch.
class EventPairs {
  public:
    EventPairs() = default;
    EventPairs(const EventPairs&) = delete;
    EventPairs& operator=(const EventPairs&) = delete;
    ~EventPairs() {
        for (cudaEvent_t e : start_) cudaEventDestroy(e);
        for (cudaEvent_t e : stop_) cudaEventDestroy(e);
    }
    void reserve(int n) {
        while (static_cast<int>(start_.size()) < n) {
            cudaEvent_t a = nullptr, b = nullptr;
            cuda_check(cudaEventCreate(&a), "cudaEventCreate");
            start_.push_back(a);
            cuda_check(cudaEventCreate(&b), "cudaEventCreate");
            stop_.push_back(b);
        }
    }
    cudaEvent_t start(int i) const { return start_[i]; }
    cudaEvent_t stop(int i) const { return stop_[i]; }

  private:
    std::vector<cudaEvent_t> start_, stop_;
};

// Enqueues `count` timed launches, each between its own event pair (the L2 flush, if any, before
// the start event); does not wait.
void enqueue_timed(const Launch& launch, const DeviceBuffer* flush, EventPairs& events, int count,
                   cudaStream_t stream, int* flushes) {
    events.reserve(count);
    for (int i = 0; i < count; ++i) {
        if (flush) cuda_check(cudaMemsetAsync(flush->ptr, (*flushes)++ & 1, flush->bytes, stream), "L2 flush");
        cuda_check(cudaEventRecord(events.start(i), stream), "cudaEventRecord");
        cuda_check(launch(stream), "launch");
        cuda_check(cudaEventRecord(events.stop(i), stream), "cudaEventRecord");
    }
}

// Waits for a batch and appends its per-launch times.
void collect_batch(const EventPairs& events, int count, std::vector<double>* ms) {
    cuda_check(cudaEventSynchronize(events.stop(count - 1)), "kernel");
    for (int i = 0; i < count; ++i) {
        float t = 0;
        cuda_check(cudaEventElapsedTime(&t, events.start(i), events.stop(i)), "cudaEventElapsedTime");
        ms->push_back(t);
    }
}

// The timed batches on a CUDA stream; the clock sampler runs from the first batch until the last
// one is enqueued, so both its end readings find the GPU busy.
class CudaBatches final : public TimedBatches {
  public:
    CudaBatches(const Launch& launch, const DeviceBuffer* flush, cudaStream_t stream, GpuSensor* sensor)
        : launch_(launch), flush_(flush), stream_(stream) {
        if (sensor) sampler_ = std::make_unique<ClockSampler>(*sensor);
    }
    void enqueue(int slot, int count) override {
        if (!started_) t0_ = std::chrono::steady_clock::now();
        enqueue_timed(launch_, flush_, events_[slot], count, stream_, &flushes_);
        if (!started_ && sampler_) sampler_->start();
        started_ = true;
    }
    void collect(int slot, int count, std::vector<double>* ms) override {
        collect_batch(events_[slot], count, ms);
    }
    double wall_s() override { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count(); }
    void last_batch_enqueued() override {
        if (sampler_) readings_ = sampler_->stop();
    }
    // The sampler's readings (none without a sensor).
    std::optional<std::vector<SensorSample>> readings() {
        if (sampler_ && !readings_) readings_ = sampler_->stop();
        return std::move(readings_);
    }

  private:
    const Launch& launch_;
    const DeviceBuffer* flush_;
    cudaStream_t stream_;
    EventPairs events_[2];
    int flushes_ = 0;
    bool started_ = false;
    std::chrono::steady_clock::time_point t0_;
    std::unique_ptr<ClockSampler> sampler_;
    std::optional<std::vector<SensorSample>> readings_;
};

}  // namespace

double median_noise_pct(std::vector<double> ms) {
    const std::size_t n = ms.size();
    if (n < 2) return kNaN;
    // nth_element rather than a sort: the rule evaluates this after every batch, and a noisy row of
    // a 10 us kernel reaches 200k launches by max_time.
    auto quantile = [&](double p) {
        const double h = (n - 1) * p;
        const std::size_t i = static_cast<std::size_t>(h);
        std::nth_element(ms.begin(), ms.begin() + i, ms.end());
        if (i + 1 == n) return ms[i];
        const double next = *std::min_element(ms.begin() + i + 1, ms.end());
        return ms[i] + (h - i) * (next - ms[i]);
    };
    const double median = quantile(0.5);
    const double sigma = (quantile(0.75) - quantile(0.25)) / 1.349;
    return median > 0 ? 100.0 * 1.2533 * sigma / (std::sqrt(static_cast<double>(n)) * median) : kNaN;
}

Timing summarize(std::vector<double> ms) {
    Timing t;
    const std::size_t n = ms.size();
    t.launches = static_cast<int>(n);
    t.median_noise_pct = median_noise_pct(ms);
    std::sort(ms.begin(), ms.end());
    t.median = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
    t.min = ms.front();
    t.max = ms.back();
    const double mean = sum_of(ms) / n;
    double var = 0;
    for (double x : ms) var += (x - mean) * (x - mean);
    t.noise_pct = n > 1 ? 100.0 * std::sqrt(var / (n - 1)) / mean : 0.0;
    return t;
}

StopReason should_stop(const std::vector<double>& ms, double wall_s, const TimingPolicy& policy) {
    const int n = static_cast<int>(ms.size());
    if (policy.iterations > 0) return n >= policy.iterations ? StopReason::kIterations : StopReason::kContinue;
    const StoppingRule& rule = policy.rule;
    if (n >= rule.min_samples && sum_of(ms) >= 1e3 * rule.min_time_s && median_noise_pct(ms) <= rule.max_noise_pct)
        return StopReason::kNoiseTarget;
    if (n > 0 && wall_s >= rule.max_time_s) return StopReason::kMaxTime;
    return StopReason::kContinue;
}

int next_batch_size(int done, double est_ms, double wall_s, const TimingPolicy& policy) {
    // Until a launch has been timed its length is unknown: one launch, so a 1 s kernel is not
    // enqueued 10 times before the rule can look at it.
    double n = est_ms > 0 ? std::min(std::ceil(kBatchMs / est_ms), double(kMaxBatch)) : 1;
    if (policy.iterations > 0) return static_cast<int>(std::min<double>(n, policy.iterations - done));
    if (est_ms > 0) n = std::min(n, std::ceil(1e3 * (policy.rule.max_time_s - wall_s) / est_ms));
    return static_cast<int>(std::max(n, 1.0));
}

int next_warmup_batch(int done, double done_ms, const TimingPolicy& policy) {
    const double want_ms = 1e3 * policy.warmup_time_s;
    if (done >= policy.warmup_iterations && done_ms >= want_ms) return 0;
    if (done == 0) return 1;
    const double est_ms = done_ms / done;
    const double for_time = est_ms > 0 ? std::ceil((want_ms - done_ms) / est_ms) : 1;
    const double n = std::max({for_time, static_cast<double>(policy.warmup_iterations - done), 1.0});
    return static_cast<int>(std::min(n, double(kMaxBatch)));
}

StopReason run_timed_batches(TimedBatches& gpu, double est_ms, const TimingPolicy& policy, std::vector<double>* ms) {
    int current = 0;
    int in_flight = next_batch_size(0, est_ms, 0, policy);
    gpu.enqueue(current, in_flight);
    int enqueued = in_flight;
    bool last_announced = false;
    auto announce_last = [&] {
        if (!last_announced) gpu.last_batch_enqueued();
        last_announced = true;
    };
    while (true) {
        int next = 0;
        if (policy.iterations == 0 || enqueued < policy.iterations) {
            next = next_batch_size(enqueued, est_ms, gpu.wall_s(), policy);
            gpu.enqueue(1 - current, next);
            enqueued += next;
        } else {
            announce_last();
        }
        gpu.collect(current, in_flight, ms);
        est_ms = sum_of(*ms) / ms->size();
        if (const StopReason why = should_stop(*ms, gpu.wall_s(), policy); why != StopReason::kContinue) {
            announce_last();
            std::vector<double> past_the_stop;
            if (next > 0) gpu.collect(1 - current, next, &past_the_stop);
            return why;
        }
        current = 1 - current;
        in_flight = next;
    }
}

void launch_once(const Launch& launch, cudaStream_t stream, const std::string& range) {
    NvtxRange nvtx{range};
    cuda_check(launch(stream), "launch");
    cuda_check(cudaStreamSynchronize(stream), "kernel");
}

Timing time_launches(const Launch& launch, const TimingPolicy& policy, cudaStream_t stream, const std::string& label) {
    int warmup_launches = 0;
    double warmup_ms = 0;
    {
        // Each warm-up batch between one event pair: its GPU time is what warmup_time_s counts.
        NvtxRange nvtx{label + kNvtxWarmupSuffix};
        EventPairs events;
        events.reserve(1);
        while (const int n = next_warmup_batch(warmup_launches, warmup_ms, policy)) {
            cuda_check(cudaEventRecord(events.start(0), stream), "cudaEventRecord");
            for (int i = 0; i < n; ++i) cuda_check(launch(stream), "launch");
            cuda_check(cudaEventRecord(events.stop(0), stream), "cudaEventRecord");
            cuda_check(cudaEventSynchronize(events.stop(0)), "kernel");
            float t = 0;
            cuda_check(cudaEventElapsedTime(&t, events.start(0), events.stop(0)), "cudaEventElapsedTime");
            warmup_launches += n;
            warmup_ms += t;
        }
    }

    std::vector<double> ms;
    std::optional<std::vector<SensorSample>> readings;
    {
        NvtxRange nvtx{label + kNvtxTimedSuffix};
        CudaBatches gpu(launch, policy.l2_flush, stream, policy.sensor);
        run_timed_batches(gpu, warmup_launches ? warmup_ms / warmup_launches : 0, policy, &ms);
        readings = gpu.readings();
    }

    Timing t = summarize(ms);
    t.rule_applied = policy.iterations == 0;
    t.noise_target_met = t.rule_applied && t.median_noise_pct <= policy.rule.max_noise_pct;
    t.warmup_launches = warmup_launches;
    t.warmup_ms = warmup_ms;
    if (readings) t.clocks = summarize_clock_samples(*readings);
    return t;
}

}  // namespace fa
