// What fa-bench learns about the GPU before running anything; also the rows' provenance.
#pragma once

#include <cstddef>
#include <string>

#include "report.h"

namespace fa {

struct DeviceInfo {
    bool present = false;
    std::string why_absent;  // set when present is false
    int ordinal = 0;
    int device_count = 0;    // CUDA devices visible to this process (0: no GPU or no driver)
    std::string pci_bus_id;  // "0000:1b:00.0": how NVML finds this device (app/nvml.h)
    std::string name;
    int sm = 0;  // compute capability, major*10+minor
    int sm_count = 0;
    std::size_t smem_optin = 0;  // opt-in dynamic shared memory per block
    std::size_t l2_bytes = 0;
    double sm_clock_mhz = 0, mem_clock_mhz = 0;
    int bus_width_bits = 0;
    std::size_t free_bytes = 0, total_bytes = 0;
};

DeviceInfo query_device(int ordinal);
Provenance make_provenance(const DeviceInfo& dev);

}  // namespace fa
