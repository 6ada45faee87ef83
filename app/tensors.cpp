#include "tensors.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <tuple>

#include "npy.h"

namespace fa {
namespace {

std::vector<float> copy_to_host_float(const void* dptr, DType dtype, std::size_t count) {
    std::vector<unsigned char> raw(count * dtype_bytes(dtype));
    cuda_check(cudaMemcpy(raw.data(), dptr, raw.size(), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return to_float_vector(raw.data(), dtype, count);
}

std::vector<long> logical_shape(const ProblemShape& p, int seqlen) {
    if (p.layout == Layout::BSHD) return {p.batch, seqlen, p.heads, p.head_dim};
    return {p.batch, p.heads, seqlen, p.head_dim};
}

std::string tensor_dir(const std::string& root, const ProblemShape& p) {
    const std::string dir = fmt::format("{}/{}_{}_b{}_h{}_sq{}_sk{}_d{}_c{}", root, dtype_name(p.dtype),
                                        layout_name(p.layout), p.batch, p.heads, p.seqlen_q, p.seqlen_k, p.head_dim,
                                        p.causal ? 1 : 0);
    std::filesystem::create_directories(dir);
    return dir;
}

}  // namespace

ProblemTensors::ProblemTensors(const ProblemShape& p, std::size_t workspace_bytes, uint64_t seed,
                               bool with_reference, cudaStream_t stream)
    : p_(p),
      q_elems_(static_cast<std::size_t>(p.batch) * p.seqlen_q * p.heads * p.head_dim),
      kv_elems_(static_cast<std::size_t>(p.batch) * p.seqlen_k * p.heads * p.head_dim),
      q_(q_elems_ * dtype_bytes(p.dtype)),
      k_(kv_elems_ * dtype_bytes(p.dtype)),
      v_(kv_elems_ * dtype_bytes(p.dtype)),
      o_(q_elems_ * dtype_bytes(p.dtype)),
      workspace_(workspace_bytes),
      reference_(with_reference ? q_elems_ * sizeof(float) : 0),
      params_(make_fwd_params(p, q_.ptr, k_.ptr, v_.ptr, o_.ptr, workspace_.ptr, workspace_.bytes)) {
    cuda_check(fill_random_normal(q_.ptr, p.dtype, q_elems_, seed, 0, stream), "fill q");
    cuda_check(fill_random_normal(k_.ptr, p.dtype, kv_elems_, seed, 1, stream), "fill k");
    cuda_check(fill_random_normal(v_.ptr, p.dtype, kv_elems_, seed, 2, stream), "fill v");
}

void ProblemTensors::compute_reference(cudaStream_t stream) {
    cuda_check(attention_reference_gpu(params_, static_cast<float*>(reference_.ptr), stream), "reference");
    cuda_check(cudaStreamSynchronize(stream), "reference");
    reference_host_.resize(q_elems_);
    cuda_check(cudaMemcpy(reference_host_.data(), reference_.ptr, q_elems_ * 4, cudaMemcpyDeviceToHost), "copy ref");
}

void ProblemTensors::poison_output(cudaStream_t stream) {
    cuda_check(cudaMemsetAsync(o_.ptr, 0xFF, o_.bytes, stream), "poison o");
}

CheckResult ProblemTensors::check_output() const {
    return compare_outputs(copy_to_host_float(o_.ptr, p_.dtype, q_elems_), reference_host_, p_.dtype);
}

void ProblemTensors::save_inputs(const std::string& root, uint64_t seed, const std::string& git_commit,
                                 cudaStream_t stream) const {
    cuda_check(cudaStreamSynchronize(stream), "inputs");
    const std::string dir = tensor_dir(root, p_);
    for (auto [name, buf, n, s] : {std::tuple{"q", &q_, q_elems_, p_.seqlen_q}, {"k", &k_, kv_elems_, p_.seqlen_k},
                                   {"v", &v_, kv_elems_, p_.seqlen_k}}) {
        if (std::string e = write_npy_f32(fmt::format("{}/{}.npy", dir, name),
                                          copy_to_host_float(buf->ptr, p_.dtype, n), logical_shape(p_, s));
            !e.empty())
            throw std::runtime_error(e);
    }
    std::ofstream json(dir + "/flags.json");
    json << fmt::format(
        "{{\"dtype\": \"{}\", \"layout\": \"{}\", \"batch_size\": {}, \"seqlen_q\": {}, \"seqlen_k\": {}, "
        "\"num_head\": {}, \"head_dim\": {}, \"softmax_scale\": {:.9g}, \"is_causal\": {}, "
        "\"causal_alignment\": \"top-left\", \"seed\": {}, \"git_commit\": \"{}\", \"stored_as\": \"float32\"}}\n",
        dtype_name(p_.dtype), layout_name(p_.layout), p_.batch, p_.seqlen_q, p_.seqlen_k, p_.heads, p_.head_dim,
        effective_scale(p_), p_.causal ? "true" : "false", seed, git_commit);
}

void ProblemTensors::save_output(const std::string& root, const std::string& kernel, cudaStream_t stream) const {
    cuda_check(cudaStreamSynchronize(stream), "output");
    if (std::string e = write_npy_f32(fmt::format("{}/o_{}.npy", tensor_dir(root, p_), kernel),
                                      copy_to_host_float(o_.ptr, p_.dtype, q_elems_), logical_shape(p_, p_.seqlen_q));
        !e.empty())
        throw std::runtime_error(e);
}

}  // namespace fa
