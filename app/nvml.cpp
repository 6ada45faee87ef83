#include "nvml.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace fa {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// nvml.h's values, written out (fa-bench builds without nvml.h): nvmlReturn_t NVML_SUCCESS,
// nvmlClockType_t NVML_CLOCK_SM, nvmlTemperatureSensors_t NVML_TEMPERATURE_GPU.
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;
constexpr int kNvmlTemperatureGpu = 0;

using InitFn = int (*)();
using ErrorStringFn = const char* (*)(int);
using DriverVersionFn = int (*)(char*, unsigned);
using HandleByBusIdFn = int (*)(const char*, void**);

// The library, initialized; shut down and closed when the last user lets go.
class NvmlLibrary {
  public:
    static std::shared_ptr<NvmlLibrary> open(std::string* why_not) {
        void* handle = dlopen("libnvidia-ml.so.1", RTLD_LAZY | RTLD_LOCAL);
        if (handle == nullptr) {
            const char* e = dlerror();
            *why_not = e ? e : "libnvidia-ml.so.1 not found";
            return nullptr;
        }
        std::shared_ptr<NvmlLibrary> lib(new NvmlLibrary(handle));
        if (!lib->init_ || !lib->shutdown_) {
            *why_not = "libnvidia-ml.so.1 lacks nvmlInit_v2";
            return nullptr;
        }
        if (const int rc = lib->init_(); rc != kNvmlSuccess) {
            *why_not = "nvmlInit_v2: " + lib->error(rc);
            return nullptr;
        }
        lib->initialized_ = true;
        return lib;
    }
    ~NvmlLibrary() {
        if (initialized_) shutdown_();
        dlclose(handle_);
    }
    NvmlLibrary(const NvmlLibrary&) = delete;
    NvmlLibrary& operator=(const NvmlLibrary&) = delete;

    template <typename Fn>
    Fn symbol(const char* name) const {
        return reinterpret_cast<Fn>(dlsym(handle_, name));
    }
    template <typename Fn>
    void bind(Fn* slot, const char* name) const {
        *slot = symbol<Fn>(name);
    }
    std::string error(int rc) const {
        const char* text = error_string_ ? error_string_(rc) : nullptr;
        return text ? text : fmt::format("NVML error {}", rc);
    }

  private:
    explicit NvmlLibrary(void* handle)
        : handle_(handle),
          init_(symbol<InitFn>("nvmlInit_v2")),
          shutdown_(symbol<InitFn>("nvmlShutdown")),
          error_string_(symbol<ErrorStringFn>("nvmlErrorString")) {}

    void* handle_;
    InitFn init_;
    InitFn shutdown_;
    ErrorStringFn error_string_;
    bool initialized_ = false;
};

class NvmlSensor final : public GpuSensor {
  public:
    NvmlSensor(const NvmlFunctions& f, void* device, std::shared_ptr<const void> library)
        : f_(f), device_(device), library_(std::move(library)) {
        unsigned v = 0;
        limits_.max_sm_clock_mhz =
            f_.max_clock_info && f_.max_clock_info(device_, kNvmlClockSm, &v) == kNvmlSuccess ? double(v) : kNaN;
        limits_.power_limit_w =
            f_.enforced_power_limit && f_.enforced_power_limit(device_, &v) == kNvmlSuccess ? v / 1000.0 : kNaN;
        // A query the device does not support fails the same way every time: probe each once
        // and stop asking, so a reading costs only the queries that answer.
        const SensorSample first = read_all();
        if (std::isnan(first.sm_clock_mhz)) f_.clock_info = nullptr;
        if (std::isnan(first.power_w)) f_.power_usage = nullptr;
        if (std::isnan(first.temperature_c)) f_.temperature = nullptr;
        if (!first.event_reasons) f_.event_reasons = nullptr;
        if (std::isnan(first.energy_mj)) f_.total_energy = nullptr;
    }

    SensorLimits limits() const override { return limits_; }

    std::optional<SensorSample> read() override {
        SensorSample s = read_all();
        if (std::isnan(s.sm_clock_mhz) && std::isnan(s.power_w) && std::isnan(s.temperature_c) && !s.event_reasons)
            return std::nullopt;
        return s;
    }

  private:
    SensorSample read_all() const {
        SensorSample s{kNaN, kNaN, kNaN, std::nullopt};
        // The energy counter first: the sampler stamps the reading with the time just before it.
        unsigned long long mj = 0;
        if (f_.total_energy && f_.total_energy(device_, &mj) == kNvmlSuccess) s.energy_mj = static_cast<double>(mj);
        unsigned v = 0;
        if (f_.clock_info && f_.clock_info(device_, kNvmlClockSm, &v) == kNvmlSuccess) s.sm_clock_mhz = v;
        // mW. Since Ampere (GA100 excepted) NVML reports a 1 s running average here, so a short
        // row's power partly reflects what ran before it (README: clocks and throttling).
        if (f_.power_usage && f_.power_usage(device_, &v) == kNvmlSuccess) s.power_w = v / 1000.0;
        if (f_.temperature && f_.temperature(device_, kNvmlTemperatureGpu, &v) == kNvmlSuccess) s.temperature_c = v;
        unsigned long long bits = 0;
        if (f_.event_reasons && f_.event_reasons(device_, &bits) == kNvmlSuccess) s.event_reasons = bits;
        return s;
    }

    NvmlFunctions f_;
    void* device_;
    std::shared_ptr<const void> library_;
    SensorLimits limits_{kNaN, kNaN};
};

}  // namespace

std::string nvml_driver_version() {
    std::string why_not;
    const std::shared_ptr<NvmlLibrary> lib = NvmlLibrary::open(&why_not);
    if (!lib) return {};
    const auto version = lib->symbol<DriverVersionFn>("nvmlSystemGetDriverVersion");
    char buf[96] = {};
    return version && version(buf, sizeof buf) == kNvmlSuccess ? std::string(buf) : std::string();
}

std::unique_ptr<GpuSensor> make_nvml_sensor(const NvmlFunctions& functions, void* device,
                                            std::shared_ptr<const void> library) {
    return std::make_unique<NvmlSensor>(functions, device, std::move(library));
}

std::unique_ptr<GpuSensor> open_nvml_sensor(const std::string& pci_bus_id, std::string* why_not) {
    std::shared_ptr<NvmlLibrary> lib = NvmlLibrary::open(why_not);
    if (!lib) return nullptr;
    const auto by_bus_id = lib->symbol<HandleByBusIdFn>("nvmlDeviceGetHandleByPciBusId_v2");
    if (!by_bus_id) {
        *why_not = "libnvidia-ml.so.1 lacks nvmlDeviceGetHandleByPciBusId_v2";
        return nullptr;
    }
    void* device = nullptr;
    if (const int rc = by_bus_id(pci_bus_id.c_str(), &device); rc != kNvmlSuccess) {
        *why_not = fmt::format("no NVML device at PCI bus id {}: {}", pci_bus_id, lib->error(rc));
        return nullptr;
    }
    NvmlFunctions f;
    lib->bind(&f.clock_info, "nvmlDeviceGetClockInfo");
    lib->bind(&f.max_clock_info, "nvmlDeviceGetMaxClockInfo");
    lib->bind(&f.power_usage, "nvmlDeviceGetPowerUsage");
    lib->bind(&f.enforced_power_limit, "nvmlDeviceGetEnforcedPowerLimit");
    lib->bind(&f.temperature, "nvmlDeviceGetTemperature");
    // Newer drivers call them clock "event" reasons; older ones export only the "throttle" name,
    // which newer ones keep as an alias.
    lib->bind(&f.event_reasons, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!f.event_reasons) lib->bind(&f.event_reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
    lib->bind(&f.total_energy, "nvmlDeviceGetTotalEnergyConsumption");
    std::unique_ptr<GpuSensor> sensor = make_nvml_sensor(f, device, std::move(lib));
    if (!sensor->read()) {
        *why_not = fmt::format("NVML answers none of SM clock, power, temperature, clock event reasons for {}",
                               pci_bus_id);
        return nullptr;
    }
    return sensor;
}

}  // namespace fa
