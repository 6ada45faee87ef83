// One problem whose Q (and O) has more than 2^32 elements: every rung's default bf16 head_dim-128
// tile against the FP64 CPU reference, so that an offset computed in 32 bits (signed or unsigned)
// anywhere between BlockInfo and the last store shows up. B=2, H=16, D=128, Sq=1,153,434:
// 4.72e9 elements, 9.4 GB per tensor; Sk=1000 keeps K and V small (and the run short: ~2e13 FLOP
// per launch) while still covering a partial key tile. naive is left out by the memory it asks
// for: its S and P would take 16 x 1,153,434 x 1000 x 6 B = 111 GB.
//
// What is checked, per kernel, layout and causal:
//  * every element of O was written: O is poisoned with NaN first and then scanned whole;
//  * sampled rows equal the FP64 reference within the dtype's tolerance. The sample is the rows
//    whose first element sits at or next to the element offsets 2^31 and 2^32 (where a signed or
//    an unsigned 32-bit offset wraps), the first and last rows of the first and last
//    (batch, head), rows Sk - 1 and Sk (where the causal triangle ends), and 96 rows drawn
//    uniformly over (batch, head, row) from a fixed seed.
#include <catch2/catch.hpp>
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "device_buffer.h"
#include "fa/reference.h"
#include "fa/registry.h"

namespace {

constexpr int kBatch = 2, kHeads = 16, kHeadDim = 128, kSeqlenQ = 1153434, kSeqlenK = 1000;
constexpr int kRandomRows = 96;

void cuda_ok(cudaError_t e) { REQUIRE(cudaGetErrorString(e) == std::string(cudaGetErrorString(cudaSuccess))); }

struct RowId {
    int b, h, row;
    bool operator==(const RowId& o) const { return b == o.b && h == o.h && row == o.row; }
};

int64_t row_offset(const fa::FwdParams& s, const RowId& r) {
    return r.b * s.q_batch_stride + r.h * s.q_head_stride + static_cast<int64_t>(r.row) * s.q_row_stride;
}

// The row whose first element is at element offset `e` or the last one before it, and its neighbours.
void rows_at_offset(const fa::ProblemShape& p, const fa::FwdParams& s, int64_t e, std::vector<RowId>* out) {
    const int64_t unit = p.head_dim;
    int64_t flat = e / unit;  // rows of head_dim elements before offset e
    RowId r{};
    if (p.layout == fa::Layout::BSHD) {  // flat = (b * Sq + row) * H + h
        r.h = static_cast<int>(flat % p.heads);
        flat /= p.heads;
        r.row = static_cast<int>(flat % p.seqlen_q);
        r.b = static_cast<int>(flat / p.seqlen_q);
    } else {  // flat = (b * H + h) * Sq + row
        r.row = static_cast<int>(flat % p.seqlen_q);
        flat /= p.seqlen_q;
        r.h = static_cast<int>(flat % p.heads);
        r.b = static_cast<int>(flat / p.heads);
    }
    REQUIRE(row_offset(s, r) == e / unit * unit);
    for (int d : {-1, 0, 1}) {
        RowId n = r;
        n.row += d;
        if (n.row >= 0 && n.row < p.seqlen_q) out->push_back(n);
    }
    if (p.layout == fa::Layout::BSHD)  // the row before in memory is the previous head of the same row
        out->push_back({r.b, r.h > 0 ? r.h - 1 : r.h, r.row});
}

std::vector<RowId> sample_rows(const fa::ProblemShape& p, const fa::FwdParams& s) {
    std::vector<RowId> rows;
    for (int64_t e : {int64_t{1} << 31, int64_t{1} << 32}) rows_at_offset(p, s, e, &rows);
    for (RowId r : {RowId{0, 0, 0}, RowId{0, 0, 1}, RowId{0, 0, p.seqlen_k - 1}, RowId{0, 0, p.seqlen_k},
                    RowId{p.batch - 1, p.heads - 1, p.seqlen_q - 1}, RowId{p.batch - 1, p.heads - 1, p.seqlen_q - 2}})
        rows.push_back(r);
    std::mt19937_64 rng(20261123);
    for (int i = 0; i < kRandomRows; ++i)
        rows.push_back({static_cast<int>(rng() % p.batch), static_cast<int>(rng() % p.heads),
                        static_cast<int>(rng() % p.seqlen_q)});
    std::vector<RowId> unique;
    for (const RowId& r : rows)
        if (std::find(unique.begin(), unique.end(), r) == unique.end()) unique.push_back(r);
    return unique;
}

std::vector<float> read_floats(const void* base, int64_t offset, std::size_t count, fa::DType dtype) {
    const std::size_t es = fa::dtype_bytes(dtype);
    std::vector<unsigned char> raw(count * es);
    cuda_ok(cudaMemcpy(raw.data(), static_cast<const unsigned char*>(base) + offset * static_cast<int64_t>(es),
                       raw.size(), cudaMemcpyDeviceToHost));
    return fa::to_float_vector(raw.data(), dtype, count);
}

// FP64 attention for one query row (top-left causal), from the float values of q, K and V.
std::vector<double> reference_row(const fa::ProblemShape& p, const fa::FwdParams& s, const RowId& r,
                                  const std::vector<float>& q, const std::vector<float>& k,
                                  const std::vector<float>& v) {
    const int visible = p.causal ? std::min(r.row + 1, p.seqlen_k) : p.seqlen_k;
    const double scale = fa::effective_scale(p);
    std::vector<double> score(visible);
    double mx = -INFINITY;
    for (int j = 0; j < visible; ++j) {
        const float* kj = k.data() + r.b * s.k_batch_stride + r.h * s.k_head_stride + j * s.k_row_stride;
        double dot = 0;
        for (int d = 0; d < p.head_dim; ++d) dot += static_cast<double>(q[d]) * kj[d];
        score[j] = dot * scale;
        mx = std::max(mx, score[j]);
    }
    double sum = 0;
    for (double& x : score) sum += (x = std::exp(x - mx));
    std::vector<double> o(p.head_dim, 0.0);
    for (int j = 0; j < visible; ++j) {
        const float* vj = v.data() + r.b * s.v_batch_stride + r.h * s.v_head_stride + j * s.v_row_stride;
        for (int d = 0; d < p.head_dim; ++d) o[d] += score[j] / sum * vj[d];
    }
    return o;
}

// Non-finite elements of a bf16/fp16 tensor (exponent all ones), counted in pinned chunks.
std::size_t count_non_finite_16bit(const void* dptr, std::size_t count, fa::DType dtype) {
    constexpr std::size_t kChunk = std::size_t{1} << 27;  // elements: 256 MB of bf16
    const uint16_t exponent = dtype == fa::DType::BFloat16 ? 0x7F80 : 0x7C00;
    uint16_t* host = nullptr;
    cuda_ok(cudaMallocHost(&host, kChunk * 2));
    std::size_t bad = 0;
    for (std::size_t at = 0; at < count; at += kChunk) {
        const std::size_t n = std::min(kChunk, count - at);
        cuda_ok(cudaMemcpy(host, static_cast<const uint16_t*>(dptr) + at, n * 2, cudaMemcpyDeviceToHost));
        for (std::size_t i = 0; i < n; ++i) bad += (host[i] & exponent) == exponent;
    }
    cudaFreeHost(host);
    return bad;
}

}  // namespace

TEST_CASE("every rung on a Q of more than 2^32 elements matches the FP64 reference on sampled rows",
          "[gpu][large]") {
    int dev = 0;
    cuda_ok(cudaGetDevice(&dev));
    cudaDeviceProp prop{};
    cuda_ok(cudaGetDeviceProperties(&prop, dev));
    const int sm = prop.major * 10 + prop.minor;

    fa::ProblemShape p;
    p.batch = kBatch;
    p.heads = kHeads;
    p.head_dim = kHeadDim;
    p.seqlen_q = kSeqlenQ;
    p.seqlen_k = kSeqlenK;
    p.dtype = fa::DType::BFloat16;
    const std::size_t q_elems = static_cast<std::size_t>(kBatch) * kSeqlenQ * kHeads * kHeadDim;
    const std::size_t kv_elems = static_cast<std::size_t>(kBatch) * kSeqlenK * kHeads * kHeadDim;
    REQUIRE(q_elems > (std::size_t{1} << 32));
    const std::size_t es = fa::dtype_bytes(p.dtype);
    std::size_t free_bytes = 0, total_bytes = 0;
    cuda_ok(cudaMemGetInfo(&free_bytes, &total_bytes));
    const std::size_t needed = (2 * q_elems + 2 * kv_elems) * es + (std::size_t{1} << 30);
    if (free_bytes < needed) {
        WARN(fmt::format("needs {:.1f} GB of device memory, {:.1f} GB free: not run", needed / 1e9, free_bytes / 1e9));
        return;
    }

    fa::DeviceBuffer q(q_elems * es), k(kv_elems * es), v(kv_elems * es), o(q_elems * es);
    cuda_ok(fa::fill_random_normal(q.ptr, p.dtype, q_elems, 11, 0, nullptr));
    cuda_ok(fa::fill_random_normal(k.ptr, p.dtype, kv_elems, 11, 1, nullptr));
    cuda_ok(fa::fill_random_normal(v.ptr, p.dtype, kv_elems, 11, 2, nullptr));
    cuda_ok(cudaDeviceSynchronize());

    int kernels_run = 0;
    for (fa::Layout layout : {fa::Layout::BSHD, fa::Layout::BHSD}) {
        p.layout = layout;
        const fa::FwdParams prm = fa::make_fwd_params(p, q.ptr, k.ptr, v.ptr, o.ptr, nullptr, 0);
        // The bytes are the same in both layouts; only their meaning (the strides) changes.
        const std::vector<float> k_host = read_floats(k.ptr, 0, kv_elems, p.dtype);
        const std::vector<float> v_host = read_floats(v.ptr, 0, kv_elems, p.dtype);
        const std::vector<RowId> rows = sample_rows(p, prm);
        std::vector<std::vector<float>> q_rows;
        for (const RowId& r : rows) q_rows.push_back(read_floats(q.ptr, row_offset(prm, r), kHeadDim, p.dtype));

        for (bool causal : {false, true}) {
            p.causal = causal;
            const fa::FwdParams run = fa::make_fwd_params(p, q.ptr, k.ptr, v.ptr, o.ptr, nullptr, 0);
            std::vector<float> ref;
            for (std::size_t i = 0; i < rows.size(); ++i)
                for (double x : reference_row(p, run, rows[i], q_rows[i], k_host, v_host))
                    ref.push_back(static_cast<float>(x));

            for (const fa::KernelInfo& kernel : fa::kernel_registry()) {
                const fa::KernelInstance* inst = nullptr;
                std::string why = fa::check_support(kernel, p, nullptr, sm, prop.sharedMemPerBlockOptin, &inst);
                const std::size_t workspace = kernel.workspace_bytes ? kernel.workspace_bytes(p) : 0;
                if (why.empty() && workspace > 0)  // naive: S and P of the whole problem
                    why = fmt::format("its workspace would take {:.0f} GB", workspace / 1e9);
                const std::string label = fmt::format("{} {} causal {}", kernel.slug, fa::layout_name(layout), causal);
                if (!why.empty()) {
                    WARN(label << ": not run on this GPU (" << why << ")");
                    continue;
                }
                INFO(label << " tile " << inst->tile.m_block_size << "x" << inst->tile.n_block_size << "x"
                           << inst->tile.num_threads);
                cuda_ok(cudaMemset(o.ptr, 0xFF, o.bytes));  // NaN: an element never written fails
                cuda_ok(inst->launch(run, nullptr));
                cuda_ok(cudaDeviceSynchronize());
                CHECK(count_non_finite_16bit(o.ptr, q_elems, p.dtype) == 0);
                std::vector<float> out;
                for (const RowId& r : rows) {
                    const std::vector<float> row = read_floats(o.ptr, row_offset(run, r), kHeadDim, p.dtype);
                    out.insert(out.end(), row.begin(), row.end());
                }
                const fa::CheckResult c = fa::compare_outputs(out, ref, p.dtype);
                INFO(rows.size() << " sampled rows: rel_l2_err " << c.rel_l2_err << " max_abs_err " << c.max_abs_err
                                 << " " << c.reason);
                CHECK(c.pass);
                ++kernels_run;
            }
        }
    }
    CHECK(kernels_run > 0);
}
