// The tensors of one problem on the device: Q, K and V filled from the seed, O, the kernels'
// workspace and, when outputs are checked, the FP32 reference; the check of O against it; and
// --save_tensors' export (q, k, v and each kernel's o as float32 .npy, the flags as JSON). FP8
// inputs: Q, K, V in e4m3 with their descales, O in bf16 (fa/params.h).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "device_buffer.h"
#include "fa/launch_plan.h"
#include "fa/problem.h"
#include "fa/reference.h"

namespace fa {

class ProblemTensors {
  public:
    // Allocates Q, K, V, O, `workspace_bytes` of workspace and, when `with_reference`, the
    // reference's output; fills Q, K and V on `stream` from `seed` (generator tensors 0, 1, 2).
    ProblemTensors(const ProblemShape& p, std::size_t workspace_bytes, uint64_t seed, bool with_reference,
                   cudaStream_t stream);

    // What every kernel of this problem is launched with (its plan applied on top: with_plan).
    const FwdParams& params() const { return params_; }

    // params() with a launch plan applied: pack_gqa, the split count and its partials, which live
    // in the workspace after `kernel_workspace` bytes (the kernel's own scratch). `with_lse`:
    // the kernel also writes the rows' log-sum-exp into this problem's LSE buffer.
    FwdParams with_plan(const LaunchPlan& plan, std::size_t kernel_workspace, bool with_lse);

    // Runs the FP32 GPU reference and keeps its output on the host for check_output.
    void compute_reference(cudaStream_t stream);

    // Fills O with NaN (0xFF bytes are NaN in fp32, fp16 and bf16): an element the kernel forgets
    // to write fails the check instead of passing on stale data.
    void poison_output(cudaStream_t stream);

    // O, once the launch has finished, against the reference.
    CheckResult check_output() const;

    // Fills the LSE buffer with NaN, and compares it with the reference's LSE after a launch
    // that wrote it (with_plan(..., true)).
    void poison_lse(cudaStream_t stream);
    CheckResult check_lse() const;

    // --save_tensors: q, k, v and flags.json into <root>/<problem>/, and each kernel's
    // o_<kernel>.npy beside them.
    void save_inputs(const std::string& root, uint64_t seed, const std::string& git_commit, cudaStream_t stream) const;
    void save_output(const std::string& root, const std::string& kernel, cudaStream_t stream) const;
    // lse_<kernel>.npy: the rows' log-sum-exp, [batch, heads, seqlen_q] float32.
    void save_lse(const std::string& root, const std::string& kernel, cudaStream_t stream) const;

  private:
    ProblemShape p_;
    std::size_t q_elems_, kv_elems_, rows_;  // rows_: B·H·Sq, one LSE each
    DeviceBuffer q_, k_, v_, o_, workspace_, reference_, lse_, lse_reference_;
    InputDescales descale_;  // FP8: from the generator (each tensor's amax); 1 otherwise
    FwdParams params_;
    std::vector<float> reference_host_, lse_reference_host_;
};

}  // namespace fa
