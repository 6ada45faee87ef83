// The measured region, as nvbench measures: a warm-up that lasts long enough for the GPU to reach
// its clocks, then every timed launch between its own pair of CUDA events, as many as the
// stopping rule asks for (or exactly --iterations), each phase inside an NVTX range, while a
// sampler reads the GPU's clocks, power and throttle reasons; the per-launch times summarized
// as median, min, max, per-launch noise and the noise of the median.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "clock_sampler.h"
#include "device_buffer.h"

namespace fa {

// One launch of the work under test on the given stream (a KernelInstance's launch bound to its
// FwdParams): returns the first CUDA error and never synchronizes.
using Launch = std::function<cudaError_t(cudaStream_t)>;

// When to stop launching (README: the stopping rule). Launch until at least min_samples
// launches and min_time_s of timed launches are in and the noise of the median is at most
// max_noise_pct, or until max_time_s of wall time has passed, whichever comes first.
struct StoppingRule {
    // nvbench's default: the median's confidence interval (below) needs a few launches on each
    // side of it; at 10 its ranks are the 2nd and 9th.
    int min_samples = 10;
    // 0.2 s: 60 launches of the fastest rungs on the default problem (3.3 ms on an H100); nvbench's
    // 0.5 s would add ~2 s to the README's default run (six of its eight rows are that fast).
    double min_time_s = 0.2;
    // 0.5 %: the median known to +-1 % (95 %), half the 2 % by which repeated processes may
    // differ (issue #12). Per-launch noise of 4.5 % (the H100) reaches it after ~130
    // launches: n = (1.2533 * 4.5 / 0.5)^2.
    double max_noise_pct = 0.5;
    // 2 s per row bounds the README's 8-row default run at ~20 s even when no row gets quiet.
    double max_time_s = 2.0;
};

struct TimingPolicy {
    int warmup_iterations = 3;   // at least this many untimed launches before the timed ones
    double warmup_time_s = 0.2;  // and at least this long (GPU time of the warm-up launches)
    int iterations = 0;          // > 0: exactly this many timed launches, the rule is off
    StoppingRule rule;
    // --use_cold_l2: a buffer of twice the L2 size, overwritten before every timed launch (outside
    // its events) so the launch finds nothing of the previous one in L2. Null: warm L2.
    const DeviceBuffer* l2_flush = nullptr;
    // Read during the timed launches (null: no NVML, the clock columns stay empty).
    GpuSensor* sensor = nullptr;
};

struct Timing {
    double median = 0, min = 0, max = 0;  // ms per launch
    double noise_pct = 0;                 // per-launch noise: sample standard deviation / mean, %
    int launches = 0;                     // timed launches
    double median_noise_pct = 0;          // median_noise_pct() below; NaN after one launch
    bool rule_applied = false;            // false: --iterations fixed the count
    bool noise_target_met = false;        // median_noise_pct <= max_noise_pct (only with the rule)
    int warmup_launches = 0;
    double warmup_ms = 0;                 // GPU time of the warm-up launches
    std::optional<ClockSummary> clocks;   // readings during the timed launches (none: no sensor)
};

// Summarizes per-launch times in ms (at least one): median, extremes, both noises, launches.
Timing summarize(std::vector<double> ms);

// The noise of the median, in percent of it: its standard error 1.2533 * sigma / sqrt(n) (the
// median's asymptotic error for normal data), with sigma estimated robustly as IQR / 1.349 (the
// sigma of a normal distribution with this interquartile range). Why not the sample standard
// deviation: launch times are skewed (a launch can only be slowed down), and a few slow ones
// inflate it while hardly moving the median. Why not a distribution-free confidence interval
// from the order statistics n/2 -+ 0.98 sqrt(n): those ranks are only 2 sqrt(n) apart, so its
// width jumps from batch to batch, and a rule that compares it with max_noise after every batch
// stops on its first lucky dip (in the tests: at 68 launches where ~127 were needed); the
// quartiles are n/2 ranks apart and steady early. Quartiles interpolate linearly between order
// statistics (numpy's default). NaN for fewer than 2 launches.
double median_noise_pct(std::vector<double> ms);

enum class StopReason {
    kContinue,
    kIterations,   // --iterations launches done
    kNoiseTarget,  // min_samples, min_time and max_noise all met
    kMaxTime,      // max_time passed first; the noise target may be unmet
};

// The stopping rule on the per-launch times so far (ms) after `wall_s` seconds of timed launches.
// max_time_s is a hard limit, as nvbench's --timeout: it stops a row of slow launches even
// before min_samples. With policy.iterations > 0 only the count matters.
StopReason should_stop(const std::vector<double>& ms, double wall_s, const TimingPolicy& policy);

// Launches are enqueued in batches of about kBatchMs of GPU time: the host evaluates the rule
// once per batch while the next batch runs (at most two in flight), so the GPU never waits for
// the host between timed launches, and a row runs at most one batch past the rule's stop.
inline constexpr double kBatchMs = 10.0;
// And at most this many launches: 8192 events per batch slot for a kernel of a few microseconds,
// and a warm-up of many short launches still returns to the host now and then.
inline constexpr int kMaxBatch = 4096;

// The size of the next batch after `done` launches of about `est_ms` each (0: unknown), `wall_s`
// into the timed launches: kBatchMs worth, at least 1, at most kMaxBatch, no more than
// --iterations leaves nor than fits in what remains of max_time.
int next_batch_size(int done, double est_ms, double wall_s, const TimingPolicy& policy);

// The next warm-up batch after `done` warm-up launches that took `done_ms`: 0 when both
// warmup_iterations and warmup_time_s are reached; a single launch first, to learn its time;
// then what is left of both in one batch (of at most kMaxBatch launches).
int next_warmup_batch(int done, double done_ms, const TimingPolicy& policy);

// What the timed loop needs from the GPU, so that tests can run it with made-up launch times.
// Batches go to two slots in turn; a slot is collected before it is used again.
class TimedBatches {
  public:
    virtual ~TimedBatches() = default;
    // Starts `count` timed launches in `slot` (0 or 1) without waiting for them.
    virtual void enqueue(int slot, int count) = 0;
    // Waits for the batch in `slot` and appends its `count` per-launch times (ms) to `ms`.
    virtual void collect(int slot, int count, std::vector<double>* ms) = 0;
    // Seconds since the first enqueue.
    virtual double wall_s() = 0;
    // Called once, as soon as no further batch will be enqueued (the last ones are still running).
    virtual void last_batch_enqueued() {}
};

// The timed launches: batches of next_batch_size, the next one enqueued before the current one is
// collected, the rule asked after each collect. A batch still in flight when the rule says stop
// is waited for and left out, so the row summarizes exactly the launches the rule judged (a
// median noise under max_noise is then under it in the row too); leaving launches out by
// position, not by value, biases nothing. Returns why it stopped; `ms` holds the launches' times.
// `est_ms`: the time of one launch as far as known (from the warm-up; 0: unknown).
StopReason run_timed_batches(TimedBatches& gpu, double est_ms, const TimingPolicy& policy, std::vector<double>* ms);

// The warm-up inside NVTX range "<label> warmup", the timed launches inside "<label> timed", then
// their summary. Throws std::runtime_error on a CUDA error.
Timing time_launches(const Launch& launch, const TimingPolicy& policy, cudaStream_t stream, const std::string& label);

// One launch inside NVTX range `range`, waited for: the checked launch, and --profile's only one.
void launch_once(const Launch& launch, cudaStream_t stream, const std::string& range);

}  // namespace fa
