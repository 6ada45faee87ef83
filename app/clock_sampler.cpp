#include "clock_sampler.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace fa {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct ReasonName {
    uint64_t bit;
    const char* name;
};
constexpr ReasonName kReasonNames[] = {
    {kReasonGpuIdle, "idle"},
    {kReasonApplicationsClocks, "applications_clocks"},
    {kReasonSwPowerCap, "sw_power_cap"},
    {kReasonHwSlowdown, "hw_slowdown"},
    {kReasonSyncBoost, "sync_boost"},
    {kReasonSwThermal, "sw_thermal"},
    {kReasonHwThermal, "hw_thermal"},
    {kReasonHwPowerBrake, "hw_power_brake"},
    {kReasonDisplayClocks, "display_clocks"},
};

}  // namespace

std::vector<std::string> event_reason_names(uint64_t reasons) {
    std::vector<std::string> names;
    for (int bit = 0; bit < 64; ++bit) {
        const uint64_t mask = uint64_t{1} << bit;
        if (!(reasons & mask)) continue;
        const auto* known = std::find_if(std::begin(kReasonNames), std::end(kReasonNames),
                                         [&](const ReasonName& r) { return r.bit == mask; });
        names.push_back(known != std::end(kReasonNames) ? known->name : fmt::format("{:#x}", mask));
    }
    return names;
}

std::string event_reason_list(uint64_t reasons) {
    std::string out;
    for (const std::string& name : event_reason_names(reasons)) out += (out.empty() ? "" : "|") + name;
    return out;
}

ClockSummary summarize_clock_samples(const std::vector<SensorSample>& samples) {
    ClockSummary s;
    s.samples = static_cast<int>(samples.size());
    double clock_sum = 0, power_sum = 0;
    int clocks = 0, powers = 0, with_reasons = 0, capped = 0;
    double clock_min = kNaN, temperature_max = kNaN;
    for (const SensorSample& x : samples) {
        if (!std::isnan(x.sm_clock_mhz)) {
            clock_sum += x.sm_clock_mhz;
            ++clocks;
            clock_min = std::isnan(clock_min) ? x.sm_clock_mhz : std::min(clock_min, x.sm_clock_mhz);
        }
        if (!std::isnan(x.power_w)) {
            power_sum += x.power_w;
            ++powers;
        }
        if (!std::isnan(x.temperature_c))
            temperature_max =
                std::isnan(temperature_max) ? x.temperature_c : std::max(temperature_max, x.temperature_c);
        if (x.event_reasons) {
            ++with_reasons;
            s.reasons |= *x.event_reasons;
            if (*x.event_reasons & kCapReasons) ++capped;
        }
    }
    s.sm_clock_mean_mhz = clocks ? clock_sum / clocks : kNaN;
    s.sm_clock_min_mhz = clock_min;
    s.power_w_mean = powers ? power_sum / powers : kNaN;
    s.temperature_c_max = temperature_max;
    s.reasons_known = with_reasons > 0;
    s.capped_pct = with_reasons ? 100.0 * capped / with_reasons : kNaN;
    s.energy_power_w = energy_power_w(samples);
    return s;
}

double energy_power_w(const std::vector<SensorSample>& samples) {
    const SensorSample* first = nullptr;  // the reading that saw the counter's first change
    const SensorSample* last = nullptr;   // ... and its last
    const SensorSample* prev = nullptr;   // the previous reading with a counter
    for (const SensorSample& x : samples) {
        if (std::isnan(x.energy_mj)) continue;
        if (prev && x.energy_mj != prev->energy_mj) {
            if (x.energy_mj < prev->energy_mj) return kNaN;  // a counter reset: nothing to trust
            if (!first) first = &x;
            last = &x;
        }
        prev = &x;
    }
    if (!first || last == first || last->time_s - first->time_s < kMinEnergySpan) return kNaN;
    return (last->energy_mj - first->energy_mj) / (last->time_s - first->time_s) / 1e3;  // mJ / s -> W
}

ClockVerdict judge_clocks(const ClockSummary& s, double max_sm_clock_mhz) {
    ClockVerdict v;
    std::vector<std::string> causes;
    // The mean, not the minimum: the time is what the launches took at the clocks they ran at
    // on average, and one reading in a dip would otherwise flag a row the dip hardly touched.
    if (!std::isnan(s.sm_clock_mean_mhz) && max_sm_clock_mhz > 0 &&
        s.sm_clock_mean_mhz < kLowClockFraction * max_sm_clock_mhz) {
        v.low_clock = true;
        v.tags.push_back("!clk");
        causes.push_back(fmt::format("{:.0f} of {:.0f} MHz", s.sm_clock_mean_mhz, max_sm_clock_mhz));
    }
    const uint64_t caps = s.reasons & kCapReasons;
    if (caps) {
        v.capped = true;
        if (caps & kPowerReasons) v.tags.push_back("!pwr");
        if (caps & kThermalReasons) v.tags.push_back("!thm");
        if (caps & kReasonHwSlowdown) v.tags.push_back("!hw");
        causes.push_back(fmt::format("{} in {:.0f} % of readings", event_reason_list(caps), s.capped_pct));
    }
    for (const std::string& c : causes) v.cause += (v.cause.empty() ? "" : ", ") + c;
    return v;
}

ClockSampler::ClockSampler(GpuSensor& sensor, std::chrono::milliseconds period) : sensor_(sensor), period_(period) {}

ClockSampler::~ClockSampler() {
    if (thread_.joinable()) stop();
}

void ClockSampler::take_sample() {
    // The time before the read: the sensor reads the energy counter first (nvml.cpp), and the
    // other queries after it take milliseconds each.
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    std::optional<SensorSample> s = sensor_.read();
    if (s) s->time_s = t;
    std::lock_guard<std::mutex> lock(mutex_);
    if (s) samples_.push_back(*s);
}

void ClockSampler::start() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        samples_.clear();
        stopping_ = false;
    }
    take_sample();
    thread_ = std::thread([this] { loop(); });
}

void ClockSampler::loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    // wait_until against a fixed schedule, so the time a reading takes does not stretch the period.
    auto next = std::chrono::steady_clock::now() + period_;
    while (!wake_.wait_until(lock, next, [this] { return stopping_; })) {
        lock.unlock();
        take_sample();
        lock.lock();
        next += period_;
        const auto now = std::chrono::steady_clock::now();
        if (next < now) next = now + period_;  // a reading slower than the period: skip, do not burst
    }
}

std::vector<SensorSample> ClockSampler::stop() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    take_sample();
    std::lock_guard<std::mutex> lock(mutex_);
    return std::move(samples_);
}

}  // namespace fa
