// The measured region, as nvbench measures: untimed warm-up launches, then every timed launch
// between its own pair of CUDA events, each phase inside an NVTX range; the per-launch times
// summarized as median, min, max and noise.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <string>
#include <vector>

#include "device_buffer.h"

namespace fa {

// One launch of the work under test on the given stream (a KernelInstance's launch bound to its
// FwdParams): returns the first CUDA error and never synchronizes.
using Launch = std::function<cudaError_t(cudaStream_t)>;

struct TimingPolicy {
    int warmup_iterations = 3;  // untimed launches before the timed ones
    int iterations = 10;        // timed launches, one CUDA-event pair each
    // --use_cold_l2: a buffer of twice the L2 size, overwritten before every timed launch (outside
    // its events) so the launch finds nothing of the previous one in L2. Null: warm L2.
    const DeviceBuffer* l2_flush = nullptr;
};

struct Timing {
    double median = 0, min = 0, max = 0;  // ms per launch
    double noise_pct = 0;                 // sample standard deviation / mean, in percent
};

// Summarizes per-launch times in ms (at least one).
Timing summarize(std::vector<double> ms);

// The warm-up inside NVTX range "<label> warmup", the timed launches inside "<label> timed", then
// their summary. Throws std::runtime_error on a CUDA error.
Timing time_launches(const Launch& launch, const TimingPolicy& policy, cudaStream_t stream, const std::string& label);

// One launch inside NVTX range `range`, waited for: the checked launch, and --profile's only one.
void launch_once(const Launch& launch, cudaStream_t stream, const std::string& range);

}  // namespace fa
