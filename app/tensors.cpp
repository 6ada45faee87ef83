#include "tensors.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <tuple>

#include "npy.h"

namespace fa {
namespace {

// `dtype` is the buffer's own element type; `scale` as to_float_vector (an FP8 input's descale).
std::vector<float> copy_to_host_float(const void* dptr, DType dtype, std::size_t count, float scale = 1.0f) {
    std::vector<unsigned char> raw(count * input_bytes(dtype));
    cuda_check(cudaMemcpy(raw.data(), dptr, raw.size(), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return to_float_vector(raw.data(), dtype, count, scale);
}

std::vector<long> logical_shape(const ProblemShape& p, int seqlen, int heads) {
    if (p.layout == Layout::BSHD) return {p.batch, seqlen, heads, p.head_dim};
    return {p.batch, heads, seqlen, p.head_dim};
}

std::vector<float> copy_floats(const void* dptr, std::size_t count) {
    std::vector<float> host(count);
    cuda_check(cudaMemcpy(host.data(), dptr, count * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return host;
}

std::string tensor_dir(const std::string& root, const ProblemShape& p) {
    const std::string dir = fmt::format("{}/{}_{}_b{}_h{}_hkv{}_sq{}_sk{}_d{}_c{}", root, dtype_name(p.dtype),
                                        layout_name(p.layout), p.batch, p.heads, p.kv_heads(), p.seqlen_q,
                                        p.seqlen_k, p.head_dim, p.causal ? 1 : 0);
    std::filesystem::create_directories(dir);
    return dir;
}

}  // namespace

ProblemTensors::ProblemTensors(const ProblemShape& p, std::size_t workspace_bytes, uint64_t seed,
                               bool with_reference, cudaStream_t stream)
    : p_(p),
      q_elems_(static_cast<std::size_t>(p.batch) * p.seqlen_q * p.heads * p.head_dim),
      kv_elems_(static_cast<std::size_t>(p.batch) * p.seqlen_k * p.kv_heads() * p.head_dim),
      rows_(static_cast<std::size_t>(p.batch) * p.heads * p.seqlen_q),
      q_(q_elems_ * input_bytes(p.dtype)),
      k_(kv_elems_ * input_bytes(p.dtype)),
      v_(kv_elems_ * input_bytes(p.dtype)),
      o_(q_elems_ * output_bytes(p.dtype)),
      workspace_(workspace_bytes),
      reference_(with_reference ? q_elems_ * sizeof(float) : 0),
      lse_(rows_ * sizeof(float)),
      lse_reference_(with_reference ? rows_ * sizeof(float) : 0),
      params_(make_fwd_params(p, q_.ptr, k_.ptr, v_.ptr, o_.ptr, workspace_.ptr, workspace_.bytes)) {
    // FP8: the same standard-normal draws as every other dtype, quantized with a per-tensor scale
    // from each tensor's amax (fill_random_normal); the descales go into the kernels' parameters.
    cuda_check(fill_random_normal(q_.ptr, p.dtype, q_elems_, seed, 0, stream, &descale_.q), "fill q");
    cuda_check(fill_random_normal(k_.ptr, p.dtype, kv_elems_, seed, 1, stream, &descale_.k), "fill k");
    cuda_check(fill_random_normal(v_.ptr, p.dtype, kv_elems_, seed, 2, stream, &descale_.v), "fill v");
    params_ = make_fwd_params(p, q_.ptr, k_.ptr, v_.ptr, o_.ptr, workspace_.ptr, workspace_.bytes, descale_);
}

FwdParams ProblemTensors::with_plan(const LaunchPlan& plan, std::size_t kernel_workspace, bool with_lse) {
    FwdParams prm = params_;
    // The split partials follow the kernel's own scratch, 256-byte aligned (fa/splitkv.h).
    const std::size_t offset = (kernel_workspace + 255) / 256 * 256;
    apply_launch_plan(plan, static_cast<unsigned char*>(workspace_.ptr) + offset, &prm);
    prm.lse = with_lse ? static_cast<float*>(lse_.ptr) : nullptr;
    return prm;
}

void ProblemTensors::compute_reference(cudaStream_t stream) {
    cuda_check(attention_reference_gpu(params_, static_cast<float*>(reference_.ptr), stream,
                                       static_cast<float*>(lse_reference_.ptr)),
               "reference");
    cuda_check(cudaStreamSynchronize(stream), "reference");
    reference_host_ = copy_floats(reference_.ptr, q_elems_);
    lse_reference_host_ = copy_floats(lse_reference_.ptr, rows_);
}

void ProblemTensors::poison_lse(cudaStream_t stream) {
    cuda_check(cudaMemsetAsync(lse_.ptr, 0xFF, lse_.bytes, stream), "poison lse");
}

CheckResult ProblemTensors::check_lse() const { return compare_lse(copy_floats(lse_.ptr, rows_), lse_reference_host_); }

void ProblemTensors::poison_output(cudaStream_t stream) {
    cuda_check(cudaMemsetAsync(o_.ptr, 0xFF, o_.bytes, stream), "poison o");
}

CheckResult ProblemTensors::check_output() const {
    return compare_outputs(copy_to_host_float(o_.ptr, output_dtype(p_.dtype), q_elems_), reference_host_, p_.dtype);
}

void ProblemTensors::save_inputs(const std::string& root, uint64_t seed, const std::string& git_commit,
                                 cudaStream_t stream) const {
    cuda_check(cudaStreamSynchronize(stream), "inputs");
    const std::string dir = tensor_dir(root, p_);
    // FP8 inputs are written dequantized (e4m3 value x descale, exact: the descale is a power of
    // two), so every dtype's q, k, v are float32 a peer can read as they are, and dividing by the
    // descale recorded in flags.json gives back the e4m3 values exactly.
    for (auto [name, buf, n, s, h, scale] : {std::tuple{"q", &q_, q_elems_, p_.seqlen_q, p_.heads, descale_.q},
                                             {"k", &k_, kv_elems_, p_.seqlen_k, p_.kv_heads(), descale_.k},
                                             {"v", &v_, kv_elems_, p_.seqlen_k, p_.kv_heads(), descale_.v}}) {
        if (std::string e = write_npy_f32(fmt::format("{}/{}.npy", dir, name),
                                          copy_to_host_float(buf->ptr, p_.dtype, n, scale), logical_shape(p_, s, h));
            !e.empty())
            throw std::runtime_error(e);
    }
    std::ofstream json(dir + "/flags.json");
    json << fmt::format(
        "{{\"dtype\": \"{}\", \"layout\": \"{}\", \"batch_size\": {}, \"seqlen_q\": {}, \"seqlen_k\": {}, "
        "\"num_head\": {}, \"num_head_kv\": {}, \"head_dim\": {}, \"softmax_scale\": {:.9g}, \"is_causal\": {}, "
        "\"causal_alignment\": \"top-left\", \"seed\": {}, \"git_commit\": \"{}\", \"stored_as\": \"float32\", "
        "\"output_dtype\": \"{}\", \"input_descale\": {{\"q\": {:.9g}, \"k\": {:.9g}, \"v\": {:.9g}}}, "
        "\"inputs\": \"{}\", "
        "\"lse\": \"natural log, [batch, num_head, seqlen_q], -inf for a row that sees no key\"}}\n",
        dtype_name(p_.dtype), layout_name(p_.layout), p_.batch, p_.seqlen_q, p_.seqlen_k, p_.heads, p_.kv_heads(),
        p_.head_dim, effective_scale(p_), p_.causal ? "true" : "false", seed, git_commit,
        dtype_name(output_dtype(p_.dtype)), descale_.q, descale_.k, descale_.v,
        p_.dtype == DType::Float8E4M3FN ? "dequantized: the e4m3 value times input_descale (a power of two, exact)"
                                         : "the stored values");
}

void ProblemTensors::save_output(const std::string& root, const std::string& kernel, cudaStream_t stream) const {
    cuda_check(cudaStreamSynchronize(stream), "output");
    if (std::string e = write_npy_f32(fmt::format("{}/o_{}.npy", tensor_dir(root, p_), kernel),
                                      copy_to_host_float(o_.ptr, output_dtype(p_.dtype), q_elems_),
                                      logical_shape(p_, p_.seqlen_q, p_.heads));
        !e.empty())
        throw std::runtime_error(e);
}

void ProblemTensors::save_lse(const std::string& root, const std::string& kernel, cudaStream_t stream) const {
    cuda_check(cudaStreamSynchronize(stream), "lse");
    if (std::string e = write_npy_f32(fmt::format("{}/lse_{}.npy", tensor_dir(root, p_), kernel),
                                      copy_floats(lse_.ptr, rows_), {p_.batch, p_.heads, p_.seqlen_q});
        !e.empty())
        throw std::runtime_error(e);
}

}  // namespace fa
