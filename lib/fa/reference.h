// References and the output check. Both references are independent of the kernels under test:
// they share no device code with lib/kernels and use the plain two-pass softmax (max first,
// then sum) rather than the online rescaling the kernels use.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "fa/params.h"
#include "fa/problem.h"

namespace fa {

// FP64 on the CPU, for tests on small shapes. q, k, v, and the result are in p.layout; k and v
// have p.kv_heads() heads, query head h reads K/V head h / p.heads_per_kv(). A query row that
// sees no key (only possible with seqlen_k = 0) yields zeros. If `lse` is given it receives each
// row's natural-log log-sum-exp of the scaled scores, [batch, heads, seqlen_q], -inf for no key.
std::vector<double> attention_reference_cpu(const ProblemShape& p, const std::vector<float>& q,
                                            const std::vector<float>& k, const std::vector<float>& v,
                                            std::vector<double>* lse = nullptr);

// FP32 on the GPU, for every fa-bench run: reads prm.q/k/v (prm.dtype, each value times its
// tensor's descale: FP8 inputs are dequantized, so only the kernel's own error is measured) with
// prm's strides and writes o_ref (float) with prm's O strides, and, if lse_ref is given, the rows'
// log-sum-exp as attention_reference_cpu does. Uses expf, not the SFU's exp2 approximation.
cudaError_t attention_reference_gpu(const FwdParams& prm, float* o_ref, cudaStream_t stream,
                                    float* lse_ref = nullptr);

// Standard-normal inputs from a counter-based hash of (seed, index): the same seed gives the same
// tensor on any GPU, and no state is kept. `stream_id` separates q, k and v drawn from one seed.
// Float8E4M3FN: the same standard-normal values x, stored as float_to_e4m3(x · 2^k) with 2^k =
// fp8_scale_exponent(amax of the tensor) (fa/fp8.h), and *descale = 2^-k: one more pass over the
// hash for the amax, and a synchronization of `stream` to read it back. descale must then be
// given (cudaErrorInvalidValue otherwise); other dtypes set it to 1 when it is.
cudaError_t fill_random_normal(void* dst, DType dtype, std::size_t count, uint64_t seed, uint64_t stream_id,
                               cudaStream_t stream, float* descale = nullptr);

// Host-side conversions of the stored 16-bit formats (round to nearest even).
float bf16_bits_to_float(uint16_t bits);
float fp16_bits_to_float(uint16_t bits);
uint16_t float_to_bf16_bits(float x);
uint16_t float_to_fp16_bits(float x);
// Device-format buffer (host copy) -> float, element by element, each times `scale` (an FP8
// tensor's descale gives the dequantized input; a power of two, so exact).
std::vector<float> to_float_vector(const void* host_data, DType dtype, std::size_t count, float scale = 1.0f);

struct CheckResult {
    double max_abs_err = 0.0;  // max |out - ref|
    double max_abs_ref = 0.0;  // max |ref|, the scale max_abs_err is judged against
    double rel_l2_err = 0.0;   // ||out - ref||₂ / ||ref||₂
    std::size_t non_finite = 0;  // NaN/Inf in out: unwritten (poisoned) or overflowed elements
    bool pass = false;
    std::string reason;  // why it failed, one line
};

// Tolerances per dtype (README: Correctness). The output's own rounding to the storage type is
// 2^-9 (bf16) / 2^-12 (fp16) relative; P is rounded to the same type before the second GEMM, so a
// correct kernel lands near those; the limits leave ~4x headroom and stay far below a real bug.
// Float8E4M3FN: the reference reads the same dequantized inputs, so the error is the kernel's
// own, dominated by P rounded to e4m3 before P·V (unit roundoff u = 2^-4, fa/fp8.h): every term of
// O's sum carries an independent relative error of at most u, rms ~u/2.5, and O inherits that
// rms (~0.025, measured on a CPU model of the kernel's numerics: tests/unit/test_fp8.cpp); the
// limits are rel_l2 <= u and max_rel <= 2u, 2.5-4x the model's worst.
struct Tolerance {
    double rel_l2;   // limit on rel_l2_err
    double max_rel;  // limit on max_abs_err / max_abs_ref
};
Tolerance tolerance_for(DType dtype);

// Compares out (converted to float) with ref under tolerance_for(dtype), dtype being the problem's
// (input) dtype; fails on any non-finite value.
CheckResult compare_outputs(const std::vector<float>& out, const std::vector<float>& ref, DType dtype);

// The row log-sum-exp a kernel wrote (FwdParams::lse) against the reference's. Both sides are fp32
// sums of fp32 exponentials of the same scores, so a correct kernel differs by rounding alone
// (~1e-6 relative: ~1e-5 at the lse ~ 10 of long rows); the limit 1e-4 + 1e-5·|ref| keeps ~10x
// headroom and still catches a dropped key tile (e.g. 64 of 33,000 keys moves lse by ~2e-3). A
// row that sees no key must be -inf on both sides; NaN, or -inf on one side only, fails.
CheckResult compare_lse(const std::vector<float>& out, const std::vector<float>& ref);

}  // namespace fa
