// Measuring one runnable (kernel, problem): the checked launch against the FP32 reference, the
// --save_tensors export, the timed launches under the stopping rule while NVML samples the
// clocks, and the verdict on how far the row's time can be trusted (README: reading a flagged
// row). The runner (runner.cpp) decides what runs and emits rows; this file fills them.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "device.h"
#include "nvml.h"
#include "options.h"
#include "plan.h"
#include "report.h"
#include "tensors.h"
#include "timing.h"

namespace fa {

class Measurer {
  public:
    Measurer(const Options& o, const DeviceInfo& dev);
    ~Measurer();
    Measurer(const Measurer&) = delete;
    Measurer& operator=(const Measurer&) = delete;

    // The stream every launch of the run goes to; with --use_cold_l2 also the flush buffer.
    // Opens NVML for the timed modes (not --profile or --explain) and prints what it found.
    void start();
    cudaStream_t stream() const { return stream_; }

    // Fills the row's check, timing and trust columns for `job` on `tensors`. `label`
    // ("<kernel> <shape_tag>") names the NVTX ranges README's ncu filters select. Throws
    // std::runtime_error on a CUDA fault (the context is then unusable).
    void measure(const Job& job, ProblemTensors& tensors, const std::string& label, ResultRow* r);

    // Each timed kernel's output is compared with the FP32 reference first.
    bool checks_outputs() const { return !o_.skip_ref_check && !o_.profile && !o_.explain; }
    int failures() const { return failures_; }

    // One line per kind of doubt on `out`, naming the rows (slowed clocks or caps; noise).
    void warn_about_untrusted_rows(std::FILE* out) const;

  private:
    void open_clock_sensor();
    void fill_trust(const Timing& t, const std::string& label, ResultRow* r);

    const Options& o_;
    DeviceInfo dev_;
    cudaStream_t stream_ = nullptr;
    std::unique_ptr<DeviceBuffer> flush_;
    TimingPolicy policy_;
    std::unique_ptr<GpuSensor> sensor_;  // null: no NVML
    SensorLimits limits_{};
    bool gpu_warmed_up_ = false;  // the first timed row of the process has run (--gpu_warmup_time)
    std::vector<std::string> slowed_rows_, noisy_rows_;
    int failures_ = 0;
};

}  // namespace fa
