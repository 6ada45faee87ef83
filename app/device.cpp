#include "device.h"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <fmt/format.h>

#include <ctime>

#include "build_info.h"
#include "nvml.h"

namespace fa {
namespace {

std::string cuda_version_string(int v) { return fmt::format("{}.{}", v / 1000, (v % 1000) / 10); }

// cudaGetDeviceCount's failure in words. The runtime reports a missing driver and a driver that
// is too old with one code (cudaErrorInsufficientDriver, "CUDA driver version is insufficient"),
// so whether libcuda loads at all tells them apart.
std::string why_no_device(cudaError_t e) {
    if (e == cudaErrorNoDevice) return "no CUDA device: the driver sees none (is CUDA_VISIBLE_DEVICES hiding them?)";
    if (e == cudaErrorInsufficientDriver) {
        void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
        if (lib == nullptr) return "no NVIDIA driver: libcuda.so.1 cannot be loaded";
        dlclose(lib);
        int driver = 0, runtime = 0;
        cudaDriverGetVersion(&driver);
        cudaRuntimeGetVersion(&runtime);
        return fmt::format("the NVIDIA driver is too old: it supports CUDA {}, this fa-bench needs CUDA {}",
                           cuda_version_string(driver), cuda_version_string(runtime));
    }
    return fmt::format("{} ({})", cudaGetErrorString(e), cudaGetErrorName(e));
}

}  // namespace

DeviceInfo query_device(int ordinal) {
    DeviceInfo d;
    d.ordinal = ordinal;
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        d.why_absent = e != cudaSuccess ? why_no_device(e) : "no CUDA device: the driver sees none";
        cudaGetLastError();  // clear the sticky-free error so later calls start clean
        return d;
    }
    d.device_count = count;
    if (ordinal >= count) {
        d.why_absent = fmt::format("--device {}: only {} CUDA device(s)", ordinal, count);
        return d;
    }
    cudaSetDevice(ordinal);
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, ordinal);
    d.present = true;
    d.name = prop.name;
    d.sm = prop.major * 10 + prop.minor;
    d.sm_count = prop.multiProcessorCount;
    d.smem_optin = prop.sharedMemPerBlockOptin;
    d.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
    int khz = 0;
    cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, ordinal);
    d.sm_clock_mhz = khz / 1000.0;
    cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, ordinal);
    d.mem_clock_mhz = khz / 1000.0;
    cudaDeviceGetAttribute(&d.bus_width_bits, cudaDevAttrGlobalMemoryBusWidth, ordinal);
    cudaMemGetInfo(&d.free_bytes, &d.total_bytes);
    char bus_id[32] = {};
    if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, ordinal) == cudaSuccess) d.pci_bus_id = bus_id;
    return d;
}

Provenance make_provenance(const DeviceInfo& d) {
    Provenance p;
    std::time_t now = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    p.timestamp = buf;
    p.git_commit = fa::build_commit();
    int rt = 0;
    cudaRuntimeGetVersion(&rt);
    p.cuda_runtime = cuda_version_string(rt);
    if (!d.present) return p;
    p.gpu = d.name;
    p.sm_count = d.sm_count;
    p.sm_clock_mhz = static_cast<int>(d.sm_clock_mhz + 0.5);
    p.driver_version = nvml_driver_version();  // opened at run time: no driver is no error
    if (p.driver_version.empty()) {
        int drv = 0;
        cudaDriverGetVersion(&drv);
        p.driver_version = "cuda-" + cuda_version_string(drv);
    }
    return p;
}

}  // namespace fa
