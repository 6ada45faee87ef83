// Every registered kernel, every instantiated (dtype, head_dim, tile), against the FP64 CPU
// reference on small random shapes: sequence lengths 1, 17, 127 and 1000, seqlen_q != seqlen_k,
// causal and not, both layouts. Inputs come from the same seeded device generator fa-bench uses.
#include <catch2/catch.hpp>
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "fa/reference.h"
#include "fa/registry.h"

namespace {

struct Shape {
    int batch, heads, seqlen_q, seqlen_k;
};

// Lengths that are not multiples of any tile, the single-row case, and both Sq > Sk and Sq < Sk.
const std::vector<Shape> kShapes = {
    {1, 1, 1, 1}, {2, 3, 17, 17}, {1, 2, 127, 127}, {1, 2, 1000, 1000}, {2, 2, 17, 1000}, {1, 2, 1000, 17},
    {1, 1, 300, 129},
};
const std::vector<int> kHeadDims = {32, 64, 96, 128, 256};
const std::vector<fa::DType> kDTypes = {fa::DType::BFloat16, fa::DType::Float16, fa::DType::Float32};

void cuda_ok(cudaError_t e) { REQUIRE(cudaGetErrorString(e) == std::string(cudaGetErrorString(cudaSuccess))); }

struct DeviceTensors {
    void *q = nullptr, *k = nullptr, *v = nullptr, *o = nullptr, *ws = nullptr;
    ~DeviceTensors() {
        for (void* p : {q, k, v, o, ws}) cudaFree(p);
    }
};

// The GPU the tests run on, as the registry's device checks need it.
struct Device {
    int sm = 0;
    std::size_t smem_optin = 0;
};

const Device& this_device() {
    static const Device d = [] {
        int dev = 0;
        cudaGetDevice(&dev);
        cudaDeviceProp prop{};
        cudaGetDeviceProperties(&prop, dev);
        return Device{prop.major * 10 + prop.minor, prop.sharedMemPerBlockOptin};
    }();
    return d;
}

using Selection = std::vector<std::pair<const fa::KernelInfo*, const fa::KernelInstance*>>;

// The instances the matrix runs for (dtype, head_dim): every row the registry says this GPU can
// launch. The shape does not enter the choice, so each of them runs on every shape of kShapes.
Selection matrix_instances(fa::DType dtype, int head_dim) {
    Selection out;
    for (const fa::KernelInfo& k : fa::kernel_registry())
        for (const fa::KernelInstance* inst :
             fa::runnable_instances(k, dtype, head_dim, this_device().sm, this_device().smem_optin))
            out.emplace_back(&k, inst);
    return out;
}

bool matrix_selects(const fa::KernelInfo& kernel, const fa::KernelInstance& inst) {
    for (fa::DType dtype : kDTypes)
        for (int d : kHeadDims)
            for (auto [k, i] : matrix_instances(dtype, d))
                if (k == &kernel && i == &inst) return true;
    return false;
}

void run_case(fa::DType dtype, int head_dim, const Shape& sh, bool causal, fa::Layout layout) {
    fa::ProblemShape p;
    p.batch = sh.batch;
    p.heads = sh.heads;
    p.seqlen_q = sh.seqlen_q;
    p.seqlen_k = sh.seqlen_k;
    p.head_dim = head_dim;
    p.causal = causal;
    p.dtype = dtype;
    p.layout = layout;

    const Selection work = matrix_instances(dtype, head_dim);
    if (work.empty()) return;  // skip the reference work

    const std::size_t es = fa::dtype_bytes(dtype);
    const std::size_t q_elems = static_cast<std::size_t>(p.batch) * p.seqlen_q * p.heads * head_dim;
    const std::size_t kv_elems = static_cast<std::size_t>(p.batch) * p.seqlen_k * p.heads * head_dim;
    DeviceTensors t;
    cuda_ok(cudaMalloc(&t.q, q_elems * es));
    cuda_ok(cudaMalloc(&t.k, kv_elems * es));
    cuda_ok(cudaMalloc(&t.v, kv_elems * es));
    cuda_ok(cudaMalloc(&t.o, q_elems * es));
    const uint64_t seed = 1234 + static_cast<uint64_t>(sh.seqlen_q) * 7919 + sh.seqlen_k + head_dim;
    cuda_ok(fa::fill_random_normal(t.q, dtype, q_elems, seed, 0, nullptr));
    cuda_ok(fa::fill_random_normal(t.k, dtype, kv_elems, seed, 1, nullptr));
    cuda_ok(fa::fill_random_normal(t.v, dtype, kv_elems, seed, 2, nullptr));
    cuda_ok(cudaDeviceSynchronize());

    auto host_float = [&](const void* d, std::size_t n) {
        std::vector<unsigned char> raw(n * es);
        cuda_ok(cudaMemcpy(raw.data(), d, raw.size(), cudaMemcpyDeviceToHost));
        return fa::to_float_vector(raw.data(), dtype, n);
    };
    const std::vector<double> ref64 =
        fa::attention_reference_cpu(p, host_float(t.q, q_elems), host_float(t.k, kv_elems), host_float(t.v, kv_elems));
    const std::vector<float> ref(ref64.begin(), ref64.end());

    for (auto [kernel, inst] : work) {
        const std::string label = fmt::format("{} {} d{} {}x{}x{} b{} h{} sq{} sk{} causal{} {}", kernel->slug,
                                              fa::dtype_name(dtype), head_dim, inst->tile.m_block_size,
                                              inst->tile.n_block_size, inst->tile.num_threads, p.batch, p.heads,
                                              p.seqlen_q, p.seqlen_k, causal, fa::layout_name(layout));
        INFO(label);
        std::size_t ws_bytes = kernel->workspace_bytes ? kernel->workspace_bytes(p) : 0;
        if (t.ws) cudaFree(t.ws), t.ws = nullptr;
        if (ws_bytes) cuda_ok(cudaMalloc(&t.ws, ws_bytes));
        const fa::FwdParams prm = fa::make_fwd_params(p, t.q, t.k, t.v, t.o, t.ws, ws_bytes);
        cuda_ok(cudaMemset(t.o, 0xFF, q_elems * es));  // NaN poison: unwritten outputs fail
        cuda_ok(inst->launch(prm, nullptr));
        cuda_ok(cudaDeviceSynchronize());
        const fa::CheckResult c = fa::compare_outputs(host_float(t.o, q_elems), ref, dtype);
        INFO("rel_l2_err " << c.rel_l2_err << " max_abs_err " << c.max_abs_err << " " << c.reason);
        CHECK(c.pass);
    }
}

}  // namespace

TEST_CASE("every kernel matches the FP64 reference on the shape matrix", "[gpu]") {
    for (fa::DType dtype : kDTypes)
        for (int d : kHeadDims)
            for (const Shape& sh : kShapes)
                for (bool causal : {false, true}) {
                    // bhsd on the odd shapes only: it changes strides, not the arithmetic.
                    run_case(dtype, d, sh, causal, fa::Layout::BSHD);
                    if (sh.seqlen_q != sh.seqlen_k || sh.seqlen_q == 17) run_case(dtype, d, sh, causal, fa::Layout::BHSD);
                }
}

// Asks the matrix's definition, not what another test case ran, so it means the same run alone.
TEST_CASE("the matrix runs every registered instance this GPU can launch", "[gpu]") {
    const Device& dev = this_device();
    for (const fa::KernelInfo& k : fa::kernel_registry()) {
        if (!fa::kernel_runs_on(k, dev.sm)) {
            WARN(k.slug << " needs sm_" << k.min_sm << ": not covered on this GPU");
            continue;
        }
        for (const fa::KernelInstance& inst : k.instances()) {
            const std::string row = fmt::format("{} {} head_dim {} tile {}x{}x{}", k.slug, fa::dtype_name(inst.dtype),
                                                inst.head_dim, inst.tile.m_block_size, inst.tile.n_block_size,
                                                inst.tile.num_threads);
            const auto runnable = fa::runnable_instances(k, inst.dtype, inst.head_dim, dev.sm, dev.smem_optin);
            if (std::find(runnable.begin(), runnable.end(), &inst) == runnable.end()) {
                const std::string built_for = inst.only_sm ? fmt::format("sm_{}a", inst.only_sm) : "any SM";
                WARN(row << " (built for " << built_for << ", " << inst.smem_bytes << " B shared memory) cannot run"
                         << " on this GPU (sm_" << dev.sm << ", " << dev.smem_optin << " B per block): not covered");
                continue;
            }
            INFO(row);
            CHECK(matrix_selects(k, inst));
        }
    }
}
