#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

#include "clock_sampler.h"
#include "nvml.h"

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

fa::SensorSample sample(double mhz, double watts, double celsius, std::optional<uint64_t> reasons) {
    return {mhz, watts, celsius, reasons};
}

// A reading of the energy counter only: `mj` at `t` seconds.
fa::SensorSample energy(double t, double mj) {
    fa::SensorSample s{kNaN, kNaN, kNaN, std::nullopt};
    s.energy_mj = mj;
    s.time_s = t;
    return s;
}

// What the fake NVML entry points answer: a device at 1755 MHz of 1980, drawing 612.345 W of a
// 700 W limit, at 61 °C, under the software power cap. 3 is NVML_ERROR_NOT_SUPPORTED.
struct FakeNvml {
    int clock_rc = 0, power_rc = 0, temperature_rc = 0, reasons_rc = 0, energy_rc = 0;
    int clock_calls = 0, power_calls = 0;
    int last_clock_type = -1;
};
FakeNvml fake;

int fake_clock(void*, int type, unsigned* mhz) {
    ++fake.clock_calls;
    fake.last_clock_type = type;
    *mhz = 1755;
    return fake.clock_rc;
}
int fake_max_clock(void*, int, unsigned* mhz) {
    *mhz = 1980;
    return 0;
}
int fake_power(void*, unsigned* mw) {
    ++fake.power_calls;
    *mw = 612345;
    return fake.power_rc;
}
int fake_power_limit(void*, unsigned* mw) {
    *mw = 700000;
    return 0;
}
int fake_temperature(void*, int, unsigned* c) {
    *c = 61;
    return fake.temperature_rc;
}
int fake_reasons(void*, unsigned long long* bits) {
    *bits = fa::kReasonSwPowerCap;
    return fake.reasons_rc;
}
int fake_energy(void*, unsigned long long* mj) {
    *mj = 123456789012ull;  // mJ since the driver loaded: past 2^32, so 64 bits are needed
    return fake.energy_rc;
}

fa::NvmlFunctions fake_functions() {
    fa::NvmlFunctions f;
    f.clock_info = fake_clock;
    f.max_clock_info = fake_max_clock;
    f.power_usage = fake_power;
    f.enforced_power_limit = fake_power_limit;
    f.temperature = fake_temperature;
    f.event_reasons = fake_reasons;
    f.total_energy = fake_energy;
    return f;
}

// Readings from a script, one per read(); after the script, the last one again.
class ScriptedSensor : public fa::GpuSensor {
  public:
    explicit ScriptedSensor(std::vector<std::optional<fa::SensorSample>> script) : script_(std::move(script)) {}
    fa::SensorLimits limits() const override { return {1980, 700}; }
    std::optional<fa::SensorSample> read() override {
        const std::size_t i = std::min<std::size_t>(reads_++, script_.size() - 1);
        return script_[i];
    }
    int reads() const { return reads_; }

  private:
    std::vector<std::optional<fa::SensorSample>> script_;
    std::atomic<int> reads_{0};
};

}  // namespace

TEST_CASE("clock event reasons decode to nvidia-smi's names", "[clocks]") {
    CHECK(fa::event_reason_names(0).empty());
    CHECK(fa::event_reason_names(0x4) == std::vector<std::string>{"sw_power_cap"});
    // The H100 reported 0x4 after the slow runs: the software power cap.
    CHECK(fa::event_reason_list(0x4) == "sw_power_cap");
    CHECK(fa::event_reason_list(0x1 | 0x2 | 0x8 | 0x10 | 0x20 | 0x40 | 0x80 | 0x100) ==
          "idle|applications_clocks|hw_slowdown|sync_boost|sw_thermal|hw_thermal|hw_power_brake|display_clocks");
    // A bit newer than this table is named by its value rather than dropped.
    CHECK(fa::event_reason_list(0x4 | 0x400) == "sw_power_cap|0x400");
}

TEST_CASE("readings summarize to mean and min clock, mean power, max temperature, OR of reasons", "[clocks]") {
    const fa::ClockSummary s = fa::summarize_clock_samples({
        sample(1980, 500, 50, uint64_t{0}),
        sample(1700, 700, 60, fa::kReasonSwPowerCap),
        sample(kNaN, kNaN, kNaN, std::nullopt),  // a reading with nothing in it counts, adds nothing
        sample(1840, 600, 55, fa::kReasonGpuIdle),
    });
    CHECK(s.samples == 4);
    CHECK(s.sm_clock_mean_mhz == Approx((1980 + 1700 + 1840) / 3.0));
    CHECK(s.sm_clock_min_mhz == 1700);
    CHECK(s.power_w_mean == Approx(600));
    CHECK(s.temperature_c_max == 60);
    CHECK(s.reasons_known);
    CHECK(s.reasons == (fa::kReasonSwPowerCap | fa::kReasonGpuIdle));
    CHECK(s.capped_pct == Approx(100.0 / 3));  // idle is not a cap

    const fa::ClockSummary none = fa::summarize_clock_samples({});
    CHECK(none.samples == 0);
    CHECK(std::isnan(none.sm_clock_mean_mhz));
    CHECK(std::isnan(none.power_w_mean));
    CHECK_FALSE(none.reasons_known);
}

TEST_CASE("the energy counter gives the mean power between its first and last steps", "[clocks][energy]") {
    // A counter that steps every 100 ms (700 W: 70 J a step), as the H100's, read every 10 ms from
    // t = 4 ms. The readings between steps repeat the last value.
    std::vector<fa::SensorSample> readings;
    for (int i = 0; i <= 80; ++i) {
        const double t = 0.004 + 0.010 * i;
        readings.push_back(energy(t, 1e9 + 70000.0 * std::floor(t / 0.100)));
    }
    // First step seen at t = 0.104 (the step at 0.100), last at 0.804 (the step at 0.800): 7 steps
    // of 70 J in 0.7 s = 700 W. Each end is seen up to one reading late; here both by 4 ms.
    const double w = fa::energy_power_w(readings);
    CHECK(w == Approx(7 * 70.0 / 0.7));
    CHECK(w == Approx(700));
    // Seen late by different amounts (4 and 13 ms), the error is that difference over the span.
    std::vector<fa::SensorSample> skewed = readings;
    skewed.back().time_s += 0.009;
    CHECK(fa::energy_power_w(skewed) == Approx(490.0 / 0.709));
    CHECK(fa::summarize_clock_samples(readings).energy_power_w == Approx(w));

    // Readings without the counter are skipped; a counter that never steps twice says nothing.
    readings.insert(readings.begin() + 5, sample(1980, 700, 50, uint64_t{0}));
    CHECK(fa::energy_power_w(readings) == Approx(w));
    CHECK(std::isnan(fa::energy_power_w({energy(0.0, 5.0), energy(0.1, 5.0), energy(0.2, 9.0)})));
    CHECK(std::isnan(fa::energy_power_w({})));
    CHECK(std::isnan(fa::energy_power_w({sample(1980, 700, 50, uint64_t{0}), sample(1980, 700, 50, uint64_t{0})})));
    // Steps closer than kMinEnergySpan (0.5 s): too short to trust, e.g. a 0.2 s row's two steps.
    CHECK(std::isnan(fa::energy_power_w({energy(0.00, 5e3), energy(0.10, 75e3), energy(0.30, 215e3)})));
    CHECK(fa::energy_power_w({energy(0.00, 5e3), energy(0.10, 75e3), energy(0.60, 425e3)}) == Approx(700.0));
    // A counter that goes back (a driver reload) voids the window.
    CHECK(std::isnan(fa::energy_power_w({energy(0.0, 5.0), energy(0.1, 90.0), energy(0.2, 3.0), energy(0.3, 9.0)})));
}

TEST_CASE("a row is flagged below 95 % of the maximum clock or under a power or thermal cap", "[clocks]") {
    fa::ClockSummary s;
    s.sm_clock_mean_mhz = 1900;  // 96 % of 1980: boost dithering, not a slowdown
    s.reasons_known = true;
    s.reasons = fa::kReasonGpuIdle | fa::kReasonApplicationsClocks;
    CHECK_FALSE(fa::judge_clocks(s, 1980).flagged());

    s.sm_clock_mean_mhz = 1880;  // 94.9 %
    fa::ClockVerdict v = fa::judge_clocks(s, 1980);
    CHECK(v.low_clock);
    CHECK_FALSE(v.capped);
    CHECK(v.tags == std::vector<std::string>{"!clk"});
    CHECK(v.cause == "1880 of 1980 MHz");

    s.sm_clock_mean_mhz = 1980;
    s.reasons = fa::kReasonSwPowerCap | fa::kReasonHwThermal | fa::kReasonHwSlowdown;
    s.capped_pct = 25;
    v = fa::judge_clocks(s, 1980);
    CHECK(v.capped);
    CHECK_FALSE(v.low_clock);
    CHECK(v.tags == std::vector<std::string>{"!pwr", "!thm", "!hw"});
    CHECK(v.cause == "sw_power_cap|hw_slowdown|hw_thermal in 25 % of readings");

    // Without a known maximum or a clock reading, only the reasons can flag a row.
    s.sm_clock_mean_mhz = 1000;
    s.reasons = 0;
    CHECK_FALSE(fa::judge_clocks(s, kNaN).flagged());
    s.sm_clock_mean_mhz = kNaN;
    CHECK_FALSE(fa::judge_clocks(s, 1980).flagged());
}

TEST_CASE("the NVML sensor converts units and asks for the SM clock", "[clocks][nvml]") {
    fake = FakeNvml{};
    const auto sensor = fa::make_nvml_sensor(fake_functions(), nullptr, nullptr);
    CHECK(sensor->limits().max_sm_clock_mhz == 1980);
    CHECK(sensor->limits().power_limit_w == 700);
    const std::optional<fa::SensorSample> s = sensor->read();
    REQUIRE(s);
    CHECK(fake.last_clock_type == 1);  // NVML_CLOCK_SM, not NVML_CLOCK_GRAPHICS (0)
    CHECK(s->sm_clock_mhz == 1755);
    CHECK(s->power_w == Approx(612.345));  // NVML reports milliwatts
    CHECK(s->temperature_c == 61);
    REQUIRE(s->event_reasons);
    CHECK(*s->event_reasons == fa::kReasonSwPowerCap);
    CHECK(s->energy_mj == 123456789012.0);
}

TEST_CASE("the NVML sensor stops asking for what the device does not support", "[clocks][nvml]") {
    fake = FakeNvml{};
    fake.power_rc = 3;  // NVML_ERROR_NOT_SUPPORTED
    fake.reasons_rc = 3;
    fake.energy_rc = 3;
    fa::NvmlFunctions f = fake_functions();
    f.temperature = nullptr;  // an NVML without the entry point
    const auto sensor = fa::make_nvml_sensor(f, nullptr, nullptr);
    const int power_calls_after_probe = fake.power_calls;
    for (int i = 0; i < 3; ++i) {
        const std::optional<fa::SensorSample> s = sensor->read();
        REQUIRE(s);
        CHECK(s->sm_clock_mhz == 1755);
        CHECK(std::isnan(s->power_w));
        CHECK(std::isnan(s->temperature_c));
        CHECK_FALSE(s->event_reasons);
        CHECK(std::isnan(s->energy_mj));
    }
    CHECK(fake.power_calls == power_calls_after_probe);

    // A device that stops answering gives no reading at all (the GPU fell off the bus).
    fake.clock_rc = 15;  // NVML_ERROR_GPU_IS_LOST
    CHECK_FALSE(sensor->read());
}

TEST_CASE("the sampler reads at start, periodically, and at stop", "[clocks]") {
    ScriptedSensor sensor(
        {sample(1980, 400, 40, uint64_t{0}), std::nullopt, sample(1700, 700, 70, fa::kReasonSwPowerCap)});
    fa::ClockSampler sampler(sensor, std::chrono::milliseconds(1));
    sampler.start();
    CHECK(sensor.reads() >= 1);  // the start reading is taken before start() returns
    // Wait for the thread's readings without assuming how fast a loaded machine schedules it.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (sensor.reads() < 5 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const std::vector<fa::SensorSample> samples = sampler.stop();
    const int reads = sensor.reads();
    CHECK(reads >= 6);                                     // start, >= 4 periodic, stop
    CHECK(static_cast<int>(samples.size()) == reads - 1);  // the failed read adds nothing
    CHECK(samples.front().sm_clock_mhz == 1980);
    CHECK(samples.back().sm_clock_mhz == 1700);
    // Each reading carries the time the sampler took it, in order.
    for (std::size_t i = 1; i < samples.size(); ++i) CHECK(samples[i].time_s >= samples[i - 1].time_s);
    CHECK(samples.back().time_s > samples.front().time_s);
    CHECK(fa::summarize_clock_samples(samples).reasons == fa::kReasonSwPowerCap);

    // Stopped and started again: a new row's readings only.
    sampler.start();
    CHECK(sampler.stop().size() >= 2);
}

TEST_CASE("a sampler that is never stopped stops when destroyed", "[clocks]") {
    ScriptedSensor sensor({sample(1980, 400, 40, uint64_t{0})});
    {
        fa::ClockSampler sampler(sensor, std::chrono::milliseconds(1));
        sampler.start();
    }
    const int reads = sensor.reads();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    CHECK(sensor.reads() == reads);
}
