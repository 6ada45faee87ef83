// The napkin model, version 2 (seed 003, "FlashAttention on a Napkin", issue #14): one time term
// per resource a forward pass must use — the math unit, the SFU's exponentials, HBM, the L2→SM
// path — each its work divided by a ceiling no kernel can exceed. The bound is the largest term
// (perfect overlap); their sum is the bound without overlap. README "The napkin model" states
// every formula and where each ceiling comes from.
#pragma once

#include <string>
#include <vector>

#include "fa/kernel_api.h"
#include "fa/problem.h"

namespace fa {

// What the model needs to know about a GPU. The ceilings are computed from these, never measured:
// a measured figure (a cuBLAS GEMM, a copy) is what one program reached, and peers beat it.
struct GpuSpec {
    std::string name;
    int sm = 0;                // compute capability, major*10+minor
    int sm_count = 0;
    double sm_clock_mhz = 0;   // maximum SM clock (boost), the clock no kernel runs above
    double mem_clock_mhz = 0;  // memory clock as the device reports it (DDR: two transfers a clock)
    int bus_width_bits = 0;
    double l2_bytes = 0;
    double smem_per_sm = 0;    // shared memory per SM, bytes (bounds the CTAs in flight); 0: unknown
};

// The GPUs whose spec fa-bench knows without one present (--model_gpu), by the name the CUDA
// runtime reports; null for another name.
const GpuSpec* known_gpu(const std::string& name);
std::vector<std::string> known_gpu_names();

// The ceilings of each term, for one GPU, math unit and input element size.
struct Ceilings {
    double math_tflops = 0;  // dense FLOP/s of the unit that runs the GEMMs, /1e12
    const char* math_term = "tensor";  // "tensor" or "fp32": the name of the math term
    double exp_per_s = 0;    // SFU exponentials (MUFU.EX2) per second
    double hbm_gbs = 0;      // DRAM pin bandwidth, read + write, /1e9
    double l2_gbs = 0;       // L2→SM fill bandwidth of all SMs, /1e9
    double l2_bytes = 0;     // L2 capacity (what it can hold between two reads of a byte)
};
// Math: FP32 FFMA = 2 FLOP per lane per clock (64 lanes/SM on sm_80, 128 on sm_86+), used for
// CudaCoreFp32 and for 4-byte inputs (fa-bench uses no TF32); dense tensor FLOP per SM per clock
// for 16-bit inputs 2048 (sm_8x) or 4096 (sm_90), twice that for 1-byte (FP8) inputs on sm_89+.
// SFU: 16 exp2 per SM per clock. HBM: 2 · memory clock · bus width. L2: 64 B per SM per clock.
// All at the maximum SM clock.
Ceilings ceilings_for(const GpuSpec& gpu, MathUnit unit, double in_bytes);

// What `fa-bench --calibrate` measures on a GPU, cached in a small file: practical figures
// (Practical below), not the model's ceilings.
struct Calibration {
    std::string gpu;         // device name the numbers belong to
    std::string timestamp;   // UTC, when measured
    double gemm16_tflops = 0;  // cuBLAS bf16 GEMM 8192³, fp32 accumulate
    double gemm32_tflops = 0;  // cuBLAS fp32 GEMM 8192³, CUBLAS_COMPUTE_32F (no TF32)
    double copy_gbs = 0;       // 1 GiB device-to-device copy, bytes read + written
    // cuBLASLt e4m3 x e4m3 -> bf16 GEMM 8192³, fp32 accumulate (FP8 rows' compute ceiling); 0: not
    // measured (a GPU without FP8 tensor cores, or a cache row written before the column existed).
    double gemm8_tflops = 0;
    std::string gemm8_error;  // why the FP8 GEMM could not be timed (not saved; --calibrate prints it)
};

// Times the three ceilings on the current device (each the median of 20 runs after 5 warm-ups,
// CUDA events). Needs ~0.8 GB of device memory for the GEMMs, then 2 GiB for the copy. Returns the first CUDA or cuBLAS failure as text.
std::string calibrate_peaks(Calibration* out);

// What a good program reaches on this GPU: a cuBLAS GEMM and a device copy. Not ceilings (FA4
// runs at 775 TFLOP/s where the GEMM does 761; a decode row reads 3058 GB/s where the copy does
// 2975), so the bound does not use them; pct_of_copy does.
struct Practical {
    double gemm_tflops = 0;  // 0: unknown
    double copy_gbs = 0;
    std::string source;      // "calibrated:<when>", "table:<gpu>", or empty
};
// `calibration` when it is this GPU's, else the figures measured on this project's H100/H200.
Practical practical_for(const std::string& gpu_name, DType dtype, const Calibration* calibration = nullptr);

// Element sizes the bytes are counted in: Q, K and V (in) and O (out). FP8 attention reads 1-byte
// inputs and writes a 2-byte (bf16) output; the other dtypes use one size for both.
struct Elements {
    double in_bytes = 2;
    double out_bytes = 2;
};
Elements elements_of(DType dtype);

// How the kernel covers the problem: its query tile (0: untiled, S and P materialized), packed
// GQA and split-KV (fa/launch_plan.h), and the CTAs that run at once (SMs × CTAs per SM; 0:
// unknown, then no re-read is counted).
struct TileOrder {
    int m_block = 0;
    bool pack_gqa = false;
    int num_splits = 1;
    long long ctas_in_flight = 0;
};

// L2→SM bytes: Q read and O written once, K and V streamed once per query tile (seed 003's
// H = 2qd + 4x·q·d²/M with one tile of m_block rows on chip). Per head slot (block_info.cuh)
//   Σ_t keys(t) K and V rows,  keys(t) = Sk, or min(Sk, last query position of tile t + 1) causal.
// Packed GQA: the tiles of a K/V head's row space stream it once for the whole group. Split-KV
// adds its fp32 partials (O and LSE of every split) written and read back. Untiled (m_block 0,
// naive): adds S (fp32) and P written and read, over all Sq·Sk scores.
double model_l2_bytes(const ProblemShape& p, const Elements& e, const TileOrder& order);
// model_l2_bytes in the problem's dtype (the CSV's model_bytes).
double model_bytes(const ProblemShape& p, int m_block, bool pack_gqa = false, int num_splits = 1);

// HBM bytes, predicted: Q, K, V read and O written once (compulsory), plus re-reads of K/V the L2
// cannot hold, plus the round trips of intermediates (split partials; naive's S and P) beyond
// the L2. A K/V chunk is re-read when its readers (the row tiles sharing it, consecutive in grid
// x) span more than one set of CTAs in flight and the chunk is larger than the L2: each later
// set re-reads at least the part of it the L2 could not keep. (The causal tile order interleaves
// the row tiles of several heads only where each head's K/V is at most half the L2,
// fa/launch_plan.h, where this count is 0 in either order.)
struct HbmBytes {
    double compulsory_in = 0;   // Q, K, V read once
    double compulsory_out = 0;  // O written once
    double rereads = 0;         // K/V re-read past the L2 (tile order, L2 size)
    double intermediates = 0;   // 2 · max(0, X − L2) per intermediate X written then read back
    // naive with grouped K/V heads: cuBLAS's batched GEMMs run one query head per batch entry, all
    // entries at once, so when the K (or V) of every K/V head together exceeds the L2 each query
    // head of a group reads its K/V head from DRAM again: (heads_per_kv − 1) × the K/V bytes.
    // Measured (ncu, H100, 1×32(kv 8)×1/131072×128): 2,188.7 MB against 2,147.5 predicted with it,
    // 536.9 without. A prediction of cuBLAS's schedule, not a bound, so at_least leaves it out.
    double batched_gemm_rereads = 0;
    double predicted() const {
        return compulsory_in + compulsory_out + rereads + intermediates + batched_gemm_rereads;
    }
    // A lower bound on one launch's DRAM traffic with a warm L2: up to one L2 of the inputs may
    // still be there from the previous launch, and up to one L2 of O may still be dirty in it
    // when the launch ends.
    double at_least(double l2_bytes) const;
};
HbmBytes model_hbm_bytes(const ProblemShape& p, const Elements& e, const TileOrder& order, double l2_bytes);

// Exponentials the softmax must evaluate: one exp2 per unmasked score.
double model_exponentials(const ProblemShape& p);

// The four terms, ms.
struct Terms {
    double math = 0, sfu = 0, hbm = 0, l2 = 0;
};
struct Bound {
    double ms = 0;      // the largest term: no kernel is faster
    double sum_ms = 0;  // all terms one after another: the bound without overlap
    std::string term;   // which term binds: the math term's name, "sfu", "hbm" or "l2"
    // How much the terms must overlap for a kernel to reach the bound: sum / max (1 = none).
    double overlap() const { return ms > 0 ? sum_ms / ms : 0.0; }
};
Bound binding(const Terms& t, const char* math_term);

struct Model {
    double l2_bytes = 0;
    HbmBytes hbm;
    double exponentials = 0;
    Terms terms;
    Bound bound;
};
// Every term of problem `p` run in tile order `order`, with `flops` of math, against `c` (the
// ceilings of the kernel's math unit, ceilings_for).
Model evaluate_model(const ProblemShape& p, const Elements& e, const TileOrder& order, double flops,
                     const Ceilings& c);

}  // namespace fa
