// What the GPU's clocks, power, energy and throttling were while a row's timed launches ran. A
// sensor (NVML on a real GPU, app/nvml.h; a fake in the tests) is read on a background thread every
// kClockSamplePeriod, plus once when sampling starts and once when it stops, so even a row of a
// few launches gets two samples. The samples are summarized per row and judged: a row whose mean
// SM clock is below 95 % of the device's maximum, or that saw a power or thermal cap, is flagged.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace fa {

// One reading. NaN marks a quantity the sensor could not read (a GPU without a power sensor, an
// NVML without the temperature call); `event_reasons` is empty when the reasons were unreadable.
struct SensorSample {
    double sm_clock_mhz;
    double power_w;
    double temperature_c;
    std::optional<uint64_t> event_reasons;  // NVML's clock event ("throttle") reason bits
    // NVML's energy counter: mJ the board used since the driver loaded (Volta and newer).
    double energy_mj = std::numeric_limits<double>::quiet_NaN();
    // When the sampler took the reading, seconds on the steady clock (set by ClockSampler).
    double time_s = 0;
};

// Facts that do not change during a run, read once. NaN: unknown.
struct SensorLimits {
    double max_sm_clock_mhz;  // the highest SM clock the device can run at
    double power_limit_w;     // the power limit the driver enforces
};

// The interface the sampler reads through, so the tests can feed it made-up readings.
struct GpuSensor {
    virtual ~GpuSensor() = default;
    virtual SensorLimits limits() const = 0;
    // One reading, or nothing when the device stopped answering (the row's clock columns then
    // summarize the readings that did arrive).
    virtual std::optional<SensorSample> read() = 0;
};

// NVML's clock event reason bits (nvml.h, nvmlClocksEventReason* / nvmlClocksThrottleReason*),
// written out here because fa-bench builds without nvml.h and loads NVML at run time.
inline constexpr uint64_t kReasonGpuIdle = 0x1;             // nothing running
inline constexpr uint64_t kReasonApplicationsClocks = 0x2;  // clocks held at the application setting
inline constexpr uint64_t kReasonSwPowerCap = 0x4;          // the driver lowers clocks to stay under the power limit
inline constexpr uint64_t kReasonHwSlowdown = 0x8;          // hardware halves clocks (heat, power brake, fast trigger)
inline constexpr uint64_t kReasonSyncBoost = 0x10;          // clocks matched to the other GPUs of a sync-boost group
inline constexpr uint64_t kReasonSwThermal = 0x20;          // the driver lowers clocks to keep GPU or memory cool
inline constexpr uint64_t kReasonHwThermal = 0x40;          // hardware slowdown because of temperature
inline constexpr uint64_t kReasonHwPowerBrake = 0x80;       // an external power-brake signal (the system's PSU)
inline constexpr uint64_t kReasonDisplayClocks = 0x100;     // clocks held by the display setting

// The reasons that mean "this GPU ran slower than it could because of power or heat". Idle,
// application clocks, sync boost and display clocks are settings or states, not caps.
inline constexpr uint64_t kPowerReasons = kReasonSwPowerCap | kReasonHwPowerBrake;
inline constexpr uint64_t kThermalReasons = kReasonSwThermal | kReasonHwThermal;
inline constexpr uint64_t kCapReasons = kPowerReasons | kThermalReasons | kReasonHwSlowdown;

// The names of the set bits, lowest first ("sw_power_cap", "hw_thermal", ...); an unknown bit as
// "0x...". Names are those of nvidia-smi -q -d PERFORMANCE, in snake case.
std::vector<std::string> event_reason_names(uint64_t reasons);
// The same joined with '|' ("" for no bit): one CSV cell, no comma.
std::string event_reason_list(uint64_t reasons);

struct ClockSummary {
    int samples = 0;                // readings summarized
    double sm_clock_mean_mhz = 0;   // NaN when no reading had a clock
    double sm_clock_min_mhz = 0;
    double power_w_mean = 0;        // NaN when no reading had a power
    double temperature_c_max = 0;   // NaN when no reading had a temperature
    bool reasons_known = false;     // at least one reading had its reason bits
    uint64_t reasons = 0;           // OR of the reason bits of every reading
    double capped_pct = 0;          // readings with a kCapReasons bit, % of readings with reason bits
    // Mean board power from the energy counter (energy_power_w below); NaN when it cannot say.
    double energy_power_w = std::numeric_limits<double>::quiet_NaN();
};
ClockSummary summarize_clock_samples(const std::vector<SensorSample>& samples);

// The mean power between the energy counter's first and last changes among `samples` (in the
// order taken): (E_last - E_first) / (t_last - t_first). Between changes, not between the first
// and last readings, because the counter advances in steps: on the H100 every 100 ms (session 19
// call 9), while a reading comes every ~10 ms (96 in call 10's 1 s rows). A change is
// seen up to one reading late at each end, so the span must be long against a reading:
// kMinEnergySpan, 0.5 s (5 steps), keeps that error to a few %; shorter (a row of the default
// 0.2 s --min_time, a burst) gives NaN, as do fewer than two changes or a counter that went back.
// Unlike power_w_mean (NVML's power reading, a 1 s running average on Ampere and newer, which
// carries what ran before a short row) it covers only the sampled window.
inline constexpr double kMinEnergySpan = 0.5;  // s
double energy_power_w(const std::vector<SensorSample>& samples);

// The 95 % rule: a row whose mean SM clock is below this fraction of the device's maximum was
// measured on a slowed GPU. 95 % leaves room for the few tens of MHz boost clocks dither by
// (H100 SXM: 1980 MHz maximum, flagged below 1881).
inline constexpr double kLowClockFraction = 0.95;

// What a row's clocks say about its time. `tags` is what the table's flags column prints
// ("!clk", "!pwr", "!thm", "!hw"), `cause` what the end-of-run warning says
// ("1702 of 1980 MHz, sw_power_cap").
struct ClockVerdict {
    bool low_clock = false;
    bool capped = false;
    std::vector<std::string> tags;
    std::string cause;
    bool flagged() const { return low_clock || capped; }
};
ClockVerdict judge_clocks(const ClockSummary& s, double max_sm_clock_mhz);

// 10 ms: a row of --min_time 0.2 s gets ~20 readings plus its two end readings; each reading is
// five NVML queries (on Hopper each an RPC to the GPU's GSP firmware), so 500 queries per second.
inline constexpr std::chrono::milliseconds kClockSamplePeriod{10};

// Reads `sensor` from start() to stop(): once at each end, every `period` in between, on a
// thread of its own, so the thread that launches kernels never waits for NVML.
class ClockSampler {
  public:
    explicit ClockSampler(GpuSensor& sensor, std::chrono::milliseconds period = kClockSamplePeriod);
    ~ClockSampler();
    ClockSampler(const ClockSampler&) = delete;
    ClockSampler& operator=(const ClockSampler&) = delete;

    void start();
    // Stops the thread, takes the last reading and returns every reading since start().
    std::vector<SensorSample> stop();

  private:
    void take_sample();
    void loop();

    GpuSensor& sensor_;
    std::chrono::milliseconds period_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::vector<SensorSample> samples_;
    std::thread thread_;
};

}  // namespace fa
