// NVML, the driver's management library, opened at run time (dlopen "libnvidia-ml.so.1") so that
// fa-bench builds without nvml.h and starts on a machine with no driver at all (CI).
#pragma once

#include <memory>
#include <string>

#include "clock_sampler.h"

namespace fa {

// The NVIDIA driver's version ("580.65.06"), or "" without NVML.
std::string nvml_driver_version();

// A sensor for the GPU at `pci_bus_id` (cudaDeviceGetPCIBusId's "0000:1b:00.0"). The bus id, not
// the CUDA ordinal, names the device: CUDA_VISIBLE_DEVICES renumbers CUDA's ordinals and NVML
// ignores it, so ordinal 0 in fa-bench can be NVML's device 3. Returns null and says why in
// `why_not` when NVML is missing, fails to start or does not know the device; a sensor whose
// device lacks one quantity (power, temperature, reasons, energy) still reads the others.
std::unique_ptr<GpuSensor> open_nvml_sensor(const std::string& pci_bus_id, std::string* why_not);

// The NVML entry points a sensor reads through (nvml.h's signatures, with nvmlDevice_t as void*,
// enums as int and nvmlReturn_t as int, 0 = success); null for one the library lacks. The
// tests fill it with fakes.
struct NvmlFunctions {
    int (*clock_info)(void* device, int clock_type, unsigned* mhz) = nullptr;
    int (*max_clock_info)(void* device, int clock_type, unsigned* mhz) = nullptr;
    int (*power_usage)(void* device, unsigned* milliwatts) = nullptr;
    int (*enforced_power_limit)(void* device, unsigned* milliwatts) = nullptr;
    int (*temperature)(void* device, int sensor, unsigned* celsius) = nullptr;
    int (*event_reasons)(void* device, unsigned long long* reasons) = nullptr;
    int (*total_energy)(void* device, unsigned long long* millijoules) = nullptr;
};

// A sensor on `device` through `functions`; `library` is kept alive as long as the sensor (the
// loaded NVML; null in the tests). Probes each query once and stops asking those that fail.
std::unique_ptr<GpuSensor> make_nvml_sensor(const NvmlFunctions& functions, void* device,
                                            std::shared_ptr<const void> library);

}  // namespace fa
