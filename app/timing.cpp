#include "timing.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "nvtx.h"

namespace fa {

Timing summarize(std::vector<double> ms) {
    Timing t;
    std::sort(ms.begin(), ms.end());
    const std::size_t n = ms.size();
    t.median = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
    t.min = ms.front();
    t.max = ms.back();
    const double mean = std::accumulate(ms.begin(), ms.end(), 0.0) / n;
    double var = 0;
    for (double x : ms) var += (x - mean) * (x - mean);
    t.noise_pct = n > 1 ? 100.0 * std::sqrt(var / (n - 1)) / mean : 0.0;
    return t;
}

void launch_once(const Launch& launch, cudaStream_t stream, const std::string& range) {
    NvtxRange nvtx{range};
    cuda_check(launch(stream), "launch");
    cuda_check(cudaStreamSynchronize(stream), "kernel");
}

Timing time_launches(const Launch& launch, const TimingPolicy& policy, cudaStream_t stream, const std::string& label) {
    {
        NvtxRange nvtx{label + kNvtxWarmupSuffix};
        for (int i = 0; i < policy.warmup_iterations; ++i) cuda_check(launch(stream), "launch");
    }
    const int n = policy.iterations;
    std::vector<cudaEvent_t> start(n), stop(n);
    for (int i = 0; i < n; ++i) {
        cuda_check(cudaEventCreate(&start[i]), "cudaEventCreate");
        cuda_check(cudaEventCreate(&stop[i]), "cudaEventCreate");
    }
    {
        NvtxRange nvtx{label + kNvtxTimedSuffix};
        const DeviceBuffer* flush = policy.l2_flush;
        for (int i = 0; i < n; ++i) {
            if (flush) cuda_check(cudaMemsetAsync(flush->ptr, i & 1, flush->bytes, stream), "L2 flush");
            cuda_check(cudaEventRecord(start[i], stream), "cudaEventRecord");
            cuda_check(launch(stream), "launch");
            cuda_check(cudaEventRecord(stop[i], stream), "cudaEventRecord");
        }
        cuda_check(cudaStreamSynchronize(stream), "kernel");
    }
    std::vector<double> ms(n);
    for (int i = 0; i < n; ++i) {
        float t = 0;
        cuda_check(cudaEventElapsedTime(&t, start[i], stop[i]), "cudaEventElapsedTime");
        ms[i] = t;
        cudaEventDestroy(start[i]);
        cudaEventDestroy(stop[i]);
    }
    return summarize(ms);
}

}  // namespace fa
