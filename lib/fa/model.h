// The napkin model of seed 003 ("FlashAttention on a Napkin"): how many HBM bytes a kernel's
// tiling must move, and the time no implementation of that tiling can beat.
#pragma once

#include <string>

#include "fa/kernel_api.h"
#include "fa/problem.h"

namespace fa {

struct Peaks {
    double matmul_tflops = 0;  // dense tensor-core rate for 16-bit inputs (CUDA-core fp32 for Float32)
    double dram_gbs = 0;       // device memory bandwidth, bytes read + written
    double exp_per_s = 0;      // SFU exponentials per second
    std::string source;        // "calibrated:<when>", "table:<gpu>" or "derived" (SM count, clocks, bus width)
};

// Ceilings measured on the GPU in use by `fa-bench --calibrate` and cached in a small file.
struct Calibration {
    std::string gpu;         // device name the numbers belong to
    std::string timestamp;   // UTC, when measured
    double gemm16_tflops = 0;  // cuBLAS bf16 GEMM 8192³, fp32 accumulate
    double gemm32_tflops = 0;  // cuBLAS fp32 GEMM 8192³, CUBLAS_COMPUTE_32F (no TF32)
    double copy_gbs = 0;       // 1 GiB device-to-device copy, bytes read + written
    // cuBLASLt e4m3 x e4m3 -> bf16 GEMM 8192³, fp32 accumulate (FP8 rows' compute ceiling); 0: not
    // measured (a GPU without FP8 tensor cores, or a cache row written before the column existed).
    double gemm8_tflops = 0;
};

// Times the three ceilings on the current device (each the median of 20 runs after 5 warm-ups,
// CUDA events). Needs ~0.8 GB of device memory for the GEMMs, then 2 GiB for the copy. Returns the first CUDA or cuBLAS failure as text.
std::string calibrate_peaks(Calibration* out);

// Calibrated numbers for this GPU when `calibration` is one (non-null, same device name); else
// the built-in table keyed by the device name (ceilings measured on this project's H100/H200);
// else numbers derived from the device's own attributes.
Peaks peaks_for(const std::string& gpu_name, int sm_major, int sm_count, double sm_clock_mhz,
                double mem_clock_mhz, int bus_width_bits, DType dtype, const Calibration* calibration = nullptr);

// Predicted HBM traffic of a tiled forward: Q read once, O written once, and K and V streamed once
// per query tile of `m_block` rows (no L2 reuse assumed) — per (batch, head)
//   bytes = D·sizeof(T)·(2·Sq + 2·Σ_t keys(t)),  keys(t) = Sk, or min(Sk, (t+1)·m_block) when causal.
// This is seed 003's H = 2qd + 4x·q·d²/M with one query tile of m_block rows in on-chip memory.
// With grouped K/V heads each query head's tiles stream its K/V head; with packed GQA the tiles
// of one K/V head's row space (its query heads interleaved, block_info.cuh) stream it once. A
// split launch adds its fp32 partials (O and LSE of every split, written and read back).
// A kernel with no tile (m_block = 0, the naive one) also writes and reads S (fp32) and P (dtype).
double model_bytes(const ProblemShape& p, int m_block, bool pack_gqa = false, int num_splits = 1);

// Exponentials the softmax must evaluate: one per unmasked score.
double model_exponentials(const ProblemShape& p);

struct Bound {
    double ms = 0;
    std::string term;  // which term binds: "compute", "memory" or "exp"
};
// time >= max(FLOPs / matmul peak, model bytes / bandwidth, exponentials / SFU rate).
Bound napkin_bound(double flops, double bytes, double exps, const Peaks& peaks);

}  // namespace fa
