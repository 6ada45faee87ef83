// The columns of a result row that are computed, not measured: the problem's (FLOPs, compulsory
// bytes, intensity) and how it is run, the tile's resources on this device, and the napkin model's
// bound. --explain prints only these; a timed row adds its times first.
#pragma once

#include "device.h"
#include "fa/kernel_api.h"
#include "fa/launch_plan.h"
#include "fa/model.h"
#include "options.h"
#include "report.h"

namespace fa {

// A row for problem `p` with provenance and the measurement flags; kernel, check and times empty.
ResultRow base_row(const Options& o, const Provenance& prov, const ProblemShape& p);

// CTAs of `inst` resident per SM on `dev` (occupancy API, after the shared-memory opt-in the launch
// makes); 0 when it cannot tell (no GPU, untiled kernel).
int resident_ctas_per_sm(const DeviceInfo& dev, const KernelInstance& inst);

// Shared memory, registers, CTAs per SM and waves of `inst` on `dev` (registers and occupancy from
// the CUDA runtime, left empty when it cannot tell), and how the launch runs (`plan`).
void fill_resources(const DeviceInfo& dev, const KernelInstance& inst, const LaunchPlan& plan, ResultRow* r);

// The napkin model v2 (fa/model.h) for the row's kernel (its math unit), tile and resources run
// as `plan` says: the bytes always; the terms and the bound with the ceilings of --model_gpu, else
// of `dev` when there is one; the practical GEMM and copy figures (`cal` when calibrated); and
// pct_of_bound and pct_of_copy when the row is already timed.
void fill_model(const Options& o, const DeviceInfo& dev, const Calibration* cal, const ProblemShape& p,
                const LaunchPlan& plan, ResultRow* r);

}  // namespace fa
