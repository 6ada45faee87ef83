// The runner: expands the sweep, decides per (kernel, problem) whether it can run, then for
// each runnable pair checks the output against the FP32 reference, warms up, and times every
// iteration with its own pair of CUDA events (nvbench's method), inside NVTX ranges.
#include "runner.h"

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <nvtx3/nvtx3.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <numeric>
#include <stdexcept>

#include "calibration_cache.h"
#include "device.h"
#include "fa/model.h"
#include "fa/reference.h"
#include "fa/registry.h"
#include "npy.h"
#include "report.h"
#include "schema.h"

namespace fa {
namespace {

struct NvtxDomain {
    static constexpr const char* name{kNvtxDomain};
};
using NvtxRange = nvtx3::scoped_range_in<NvtxDomain>;

void cuda_check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw std::runtime_error(fmt::format("{}: {}", what, cudaGetErrorString(e)));
}

// Device buffer that frees itself; fa-bench allocates per problem and never leaks across points.
struct DeviceBuffer {
    void* ptr = nullptr;
    std::size_t bytes = 0;
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t n) : bytes(n) {
        if (n) cuda_check(cudaMalloc(&ptr, n), "cudaMalloc");
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    ~DeviceBuffer() {
        if (ptr) cudaFree(ptr);
    }
};

std::vector<ProblemShape> expand_problems(const Options& o) {
    std::vector<ProblemShape> out;
    for (DType t : o.dtypes)
        for (int b : o.batch_size)
            for (int h : o.num_head)
                for (int d : o.head_dim)
                    for (int sq : o.seqlen_q)
                        for (int sk : o.seqlen_k)
                            for (int c : o.causal) {
                                ProblemShape p;
                                p.dtype = t;
                                p.batch = b;
                                p.heads = h;
                                p.head_dim = d;
                                p.seqlen_q = sq;
                                p.seqlen_k = sk;
                                p.causal = c != 0;
                                p.layout = o.layout;
                                p.softmax_scale = o.softmax_scale;
                                out.push_back(p);
                            }
    return out;
}

std::vector<TileConfig> expand_tiles(const Options& o) {
    std::vector<TileConfig> out;
    for (int m : o.m_block_size)
        for (int n : o.n_block_size)
            for (int t : o.num_threads) out.push_back({m, n, t});
    return out;
}

std::vector<const KernelInfo*> selected_kernels(const Options& o) {
    std::vector<const KernelInfo*> out;
    const bool all = o.kernels.empty() || std::find(o.kernels.begin(), o.kernels.end(), "all") != o.kernels.end();
    for (const KernelInfo& k : kernel_registry())
        if (all || std::find(o.kernels.begin(), o.kernels.end(), k.slug) != o.kernels.end()) out.push_back(&k);
    return out;
}

std::string shape_tag(const ProblemShape& p) { return nvtx_problem_tag(p); }

ResultRow base_row(const Options& o, const Provenance& prov, const ProblemShape& p) {
    ResultRow r;
    r.prov = prov;
    r.dtype = dtype_name(p.dtype);
    r.layout = layout_name(p.layout);
    r.batch_size = p.batch;
    r.seqlen_q = p.seqlen_q;
    r.seqlen_k = p.seqlen_k;
    r.num_head = p.heads;
    r.head_dim = p.head_dim;
    r.is_causal = p.causal ? 1 : 0;
    r.softmax_scale = effective_scale(p);
    r.warmup_iterations = o.warmup_iterations;
    r.iterations = o.iterations;
    r.use_cold_l2 = o.use_cold_l2 ? 1 : 0;
    r.seed = o.seed;
    r.flops = attention_flops(p);
    r.compulsory_bytes = compulsory_bytes(p);
    r.arithmetic_intensity = arithmetic_intensity(p);
    return r;
}

struct Timing {
    double median = 0, min = 0, max = 0, noise_pct = 0;
};

Timing summarize(std::vector<double> ms) {
    Timing t;
    std::sort(ms.begin(), ms.end());
    const std::size_t n = ms.size();
    t.median = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
    t.min = ms.front();
    t.max = ms.back();
    const double mean = std::accumulate(ms.begin(), ms.end(), 0.0) / n;
    double var = 0;
    for (double x : ms) var += (x - mean) * (x - mean);
    t.noise_pct = n > 1 ? 100.0 * std::sqrt(var / (n - 1)) / mean : 0.0;
    return t;
}

// Tile resources of the chosen instance: registers, CTAs per SM, waves over the grid.
void fill_resources(const DeviceInfo& dev, const ProblemShape& p, const KernelInstance& inst, ResultRow* r) {
    r->smem_per_cta = static_cast<int>(inst.smem_bytes);
    if (inst.kernel_func == nullptr || !dev.present) return;
    cudaFuncAttributes attr{};
    if (cudaFuncGetAttributes(&attr, inst.kernel_func) != cudaSuccess) {
        cudaGetLastError();
        return;
    }
    r->regs_per_thread = attr.numRegs;
    if (inst.tile.m_block_size == 0) return;
    if (inst.smem_bytes > 48 * 1024)  // the occupancy API needs the opt-in, as the launch does
        cudaFuncSetAttribute(inst.kernel_func, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(inst.smem_bytes));
    int ctas = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&ctas, inst.kernel_func, inst.tile.num_threads,
                                                      inst.smem_bytes) != cudaSuccess) {
        cudaGetLastError();
        return;
    }
    r->ctas_per_sm = ctas;
    const double grid = std::ceil(static_cast<double>(p.seqlen_q) / inst.tile.m_block_size) * p.heads * p.batch;
    if (ctas > 0) r->waves = grid / (static_cast<double>(ctas) * dev.sm_count);
}

void fill_model(const DeviceInfo& dev, const Calibration* cal, const ProblemShape& p, int m_block, ResultRow* r) {
    if (!dev.present) return;
    const Peaks pk = peaks_for(dev.name, dev.sm / 10, dev.sm_count, dev.sm_clock_mhz, dev.mem_clock_mhz,
                               dev.bus_width_bits, p.dtype, cal);
    r->model_bytes = model_bytes(p, m_block);
    const Bound b = napkin_bound(r->flops, r->model_bytes, model_exponentials(p), pk);
    r->bound_ms = b.ms;
    r->bound_term = b.term;
    r->peak_source = pk.source;
    r->peak_tflops = pk.matmul_tflops;
    r->peak_gbs = pk.dram_gbs;
    r->modeled = true;
    if (r->timed && r->time_ms_median > 0) r->pct_of_bound = 100.0 * b.ms / r->time_ms_median;
}

std::vector<float> copy_to_host_float(const void* dptr, DType dtype, std::size_t count) {
    std::vector<unsigned char> raw(count * dtype_bytes(dtype));
    cuda_check(cudaMemcpy(raw.data(), dptr, raw.size(), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return to_float_vector(raw.data(), dtype, count);
}

std::vector<long> logical_shape(const ProblemShape& p, int seqlen) {
    if (p.layout == Layout::BSHD) return {p.batch, seqlen, p.heads, p.head_dim};
    return {p.batch, p.heads, seqlen, p.head_dim};
}

class Runner {
  public:
    Runner(const Options& o, const DeviceInfo& dev) : o_(o), dev_(dev), prov_(make_provenance(dev)) {
        const std::string path = o.peaks_file.empty() ? default_peaks_file() : o.peaks_file;
        calibrated_ = dev.present && load_calibration(path, dev.name, &cal_);
    }

    int run() {
        const std::vector<ProblemShape> problems = expand_problems(o_);
        const std::vector<TileConfig> tiles = expand_tiles(o_);
        const std::vector<const KernelInfo*> kernels = selected_kernels(o_);

        if (!dev_.present) return run_without_gpu(problems);
        fmt::print("device {}: {} (sm_{}, {} SMs, {:.0f} MHz, {:.1f} GB free), driver {}, CUDA runtime {}\n",
                   dev_.ordinal, dev_.name, dev_.sm, dev_.sm_count, dev_.sm_clock_mhz, dev_.free_bytes / 1e9,
                   prov_.driver_version, prov_.cuda_runtime);
        cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
        if (o_.use_cold_l2) {
            // Twice the L2: a memset of this size evicts everything the previous launch left.
            flush_ = std::make_unique<DeviceBuffer>(2 * std::max<std::size_t>(dev_.l2_bytes, 1 << 20));
        }
        if (o_.explain) print_explain_header(stdout);
        else print_table_header(stdout);

        int runnable = 0;
        std::vector<std::string> reasons;
        for (const ProblemShape& p : problems) {
            std::vector<Job> jobs = plan(p, kernels, tiles);
            for (const Job& j : jobs) {
                if (j.inst) ++runnable;
                else reasons.push_back(fmt::format("{} [{}]: {}", j.kernel->slug, shape_tag(p), j.reason));
            }
            run_problem(p, jobs);
        }
        if (runnable == 0) {
            fmt::print(stderr, "fa-bench: no selected kernel can run the requested problem(s):\n");
            for (const std::string& r : reasons) fmt::print(stderr, "  {}\n", r);
            return 2;
        }
        if (!o_.csv.empty()) fmt::print("appended {} row(s) to {}\n", csv_rows_written_, o_.csv);
        return failures_ || !csv_error_.empty() ? 1 : 0;
    }

    ~Runner() {
        if (stream_) cudaStreamDestroy(stream_);
    }

  private:
    struct Job {
        const KernelInfo* kernel = nullptr;
        const KernelInstance* inst = nullptr;  // null: cannot run, see reason
        std::string reason;
        std::size_t workspace = 0;
    };

    std::vector<Job> plan(const ProblemShape& p, const std::vector<const KernelInfo*>& kernels,
                          const std::vector<TileConfig>& tiles) {
        std::vector<Job> jobs;
        const std::size_t io = static_cast<std::size_t>(compulsory_bytes(p));
        const std::size_t ref = o_.skip_ref_check || o_.profile || o_.explain
                                    ? 0
                                    : static_cast<std::size_t>(p.batch) * p.heads * p.seqlen_q * p.head_dim * 4;
        const std::size_t reserve = 256u << 20;  // CUDA context, cuBLAS workspace, L2 flush buffer
        for (const KernelInfo* k : kernels) {
            const std::vector<const TileConfig*> tile_choices = [&] {
                std::vector<const TileConfig*> v;
                for (const TileConfig& t : tiles) v.push_back(&t);
                if (v.empty()) v.push_back(nullptr);
                return v;
            }();
            for (const TileConfig* t : tile_choices) {
                Job j;
                j.kernel = k;
                j.reason = check_support(*k, p, t, dev_.sm, dev_.smem_optin, &j.inst);
                if (j.inst && k->workspace_bytes) j.workspace = k->workspace_bytes(p);
                if (j.inst && io + ref + j.workspace + reserve > dev_.free_bytes) {
                    j.reason = fmt::format("needs {:.1f} GB of device memory ({:.1f} GB workspace), {:.1f} GB free",
                                           (io + ref + j.workspace + reserve) / 1e9, j.workspace / 1e9,
                                           dev_.free_bytes / 1e9);
                    j.inst = nullptr;
                }
                // A non-tiled kernel runs once for the whole tile sweep, not once per tile.
                if (j.inst && j.inst->tile.m_block_size == 0 && t != tile_choices.front()) continue;
                jobs.push_back(j);
            }
        }
        return jobs;
    }

    void run_problem(const ProblemShape& p, const std::vector<Job>& jobs) {
        const bool any = std::any_of(jobs.begin(), jobs.end(), [](const Job& j) { return j.inst != nullptr; });
        std::size_t workspace = 0;
        for (const Job& j : jobs)
            if (j.inst) workspace = std::max(workspace, j.workspace);

        const std::size_t q_elems = static_cast<std::size_t>(p.batch) * p.seqlen_q * p.heads * p.head_dim;
        const std::size_t kv_elems = static_cast<std::size_t>(p.batch) * p.seqlen_k * p.heads * p.head_dim;
        const std::size_t es = dtype_bytes(p.dtype);
        std::unique_ptr<DeviceBuffer> q, k, v, o, o_ref, ws;
        FwdParams prm{};
        std::vector<float> ref_host;
        const bool check = !o_.skip_ref_check && !o_.profile && !o_.explain;
        if (any && !o_.explain) {
            q = std::make_unique<DeviceBuffer>(q_elems * es);
            k = std::make_unique<DeviceBuffer>(kv_elems * es);
            v = std::make_unique<DeviceBuffer>(kv_elems * es);
            o = std::make_unique<DeviceBuffer>(q_elems * es);
            ws = std::make_unique<DeviceBuffer>(workspace);
            cuda_check(fill_random_normal(q->ptr, p.dtype, q_elems, o_.seed, 0, stream_), "fill q");
            cuda_check(fill_random_normal(k->ptr, p.dtype, kv_elems, o_.seed, 1, stream_), "fill k");
            cuda_check(fill_random_normal(v->ptr, p.dtype, kv_elems, o_.seed, 2, stream_), "fill v");
            prm = make_params(p, q->ptr, k->ptr, v->ptr, o->ptr, ws.get());
            if (check) {
                o_ref = std::make_unique<DeviceBuffer>(q_elems * sizeof(float));
                NvtxRange range{fmt::format("reference {}", shape_tag(p))};
                cuda_check(attention_reference_gpu(prm, static_cast<float*>(o_ref->ptr), stream_), "reference");
                cuda_check(cudaStreamSynchronize(stream_), "reference");
                ref_host.resize(q_elems);
                cuda_check(cudaMemcpy(ref_host.data(), o_ref->ptr, q_elems * 4, cudaMemcpyDeviceToHost), "copy ref");
            }
            if (!o_.save_tensors.empty()) save_inputs(p, *q, *k, *v);
        }

        for (const Job& j : jobs) {
            ResultRow r = base_row(o_, prov_, p);
            r.kernel = j.kernel->slug;
            if (!j.inst) {
                r.check = "UNSUPPORTED";
                r.note = j.reason;
                emit(r);
                continue;
            }
            r.m_block_size = j.inst->tile.m_block_size;
            r.n_block_size = j.inst->tile.n_block_size;
            r.num_threads = j.inst->tile.num_threads;
            fill_resources(dev_, p, *j.inst, &r);
            if (o_.explain) {
                r.check = "n/a";
                fill_model(dev_, calibration(), p, r.m_block_size, &r);
                emit(r);
                continue;
            }
            const std::string label = fmt::format("{} {}", j.kernel->slug, shape_tag(p));
            try {
                measure(*j.inst, prm, p, label, check, ref_host, *o, &r);
            } catch (const std::runtime_error& e) {
                // A kernel fault leaves the context unusable: report it and stop cleanly.
                r.check = "FAIL";
                r.note = e.what();
                ++failures_;
                emit(r);
                throw;
            }
            fill_model(dev_, calibration(), p, r.m_block_size, &r);
            emit(r);
        }
    }

    FwdParams make_params(const ProblemShape& p, void* q, void* k, void* v, void* o, DeviceBuffer* ws) const {
        FwdParams prm{};
        prm.q = q;
        prm.k = k;
        prm.v = v;
        prm.o = o;
        set_strides(p, &prm);
        prm.batch = p.batch;
        prm.heads = p.heads;
        prm.seqlen_q = p.seqlen_q;
        prm.seqlen_k = p.seqlen_k;
        prm.head_dim = p.head_dim;
        prm.scale = effective_scale(p);
        prm.scale_log2 = prm.scale * 1.4426950408889634f;  // log2(e)
        prm.causal = p.causal;
        prm.dtype = p.dtype;
        prm.workspace = ws ? ws->ptr : nullptr;
        prm.workspace_bytes = ws ? ws->bytes : 0;
        return prm;
    }

    void measure(const KernelInstance& inst, const FwdParams& prm, const ProblemShape& p, const std::string& label,
                 bool check, const std::vector<float>& ref_host, DeviceBuffer& o, ResultRow* r) {
        const std::size_t o_elems = static_cast<std::size_t>(p.batch) * p.seqlen_q * p.heads * p.head_dim;
        if (o_.profile) {
            // Exactly one launch, so `ncu --nvtx-include` captures exactly this kernel's work.
            NvtxRange range{label};
            cuda_check(inst.launch(prm, stream_), "launch");
            cuda_check(cudaStreamSynchronize(stream_), "kernel");
            r->check = "n/a";
            r->note = "profile: one launch, not timed";
            return;
        }
        if (check) {
            // Poison O with NaN (0xFF bytes are NaN in fp32, fp16 and bf16): an element the
            // kernel forgets to write fails the check instead of passing on stale data.
            cuda_check(cudaMemsetAsync(o.ptr, 0xFF, o.bytes, stream_), "poison o");
            {
                NvtxRange range{label + " check"};
                cuda_check(inst.launch(prm, stream_), "launch");
                cuda_check(cudaStreamSynchronize(stream_), "kernel");
            }
            const CheckResult c = compare_outputs(copy_to_host_float(o.ptr, p.dtype, o_elems), ref_host, p.dtype);
            r->checked = true;
            r->max_abs_err = c.max_abs_err;
            r->rel_l2_err = c.rel_l2_err;
            r->check = c.pass ? "PASS" : "FAIL";
            if (!c.pass) {
                r->note = c.reason;
                ++failures_;
            }
        } else {
            r->check = "SKIPPED";
        }
        if (!o_.save_tensors.empty()) save_output(p, r->kernel, o, o_elems);

        {
            NvtxRange range{label + " warmup"};
            for (int i = 0; i < o_.warmup_iterations; ++i) cuda_check(inst.launch(prm, stream_), "launch");
        }
        std::vector<cudaEvent_t> start(o_.iterations), stop(o_.iterations);
        for (int i = 0; i < o_.iterations; ++i) {
            cuda_check(cudaEventCreate(&start[i]), "cudaEventCreate");
            cuda_check(cudaEventCreate(&stop[i]), "cudaEventCreate");
        }
        {
            NvtxRange range{label + " timed"};
            for (int i = 0; i < o_.iterations; ++i) {
                if (flush_) cuda_check(cudaMemsetAsync(flush_->ptr, i & 1, flush_->bytes, stream_), "L2 flush");
                cuda_check(cudaEventRecord(start[i], stream_), "cudaEventRecord");
                cuda_check(inst.launch(prm, stream_), "launch");
                cuda_check(cudaEventRecord(stop[i], stream_), "cudaEventRecord");
            }
            cuda_check(cudaStreamSynchronize(stream_), "kernel");
        }
        std::vector<double> ms(o_.iterations);
        for (int i = 0; i < o_.iterations; ++i) {
            float t = 0;
            cuda_check(cudaEventElapsedTime(&t, start[i], stop[i]), "cudaEventElapsedTime");
            ms[i] = t;
            cudaEventDestroy(start[i]);
            cudaEventDestroy(stop[i]);
        }
        const Timing t = summarize(ms);
        r->timed = true;
        r->time_ms_median = t.median;
        r->time_ms_min = t.min;
        r->time_ms_max = t.max;
        r->noise_pct = t.noise_pct;
        r->tflops = r->flops / (t.median * 1e9);
        r->bandwidth_gbs = r->compulsory_bytes / (t.median * 1e6);
    }

    std::string tensor_dir(const ProblemShape& p) const {
        const std::string dir = fmt::format("{}/{}_{}_b{}_h{}_sq{}_sk{}_d{}_c{}", o_.save_tensors, dtype_name(p.dtype),
                                            layout_name(p.layout), p.batch, p.heads, p.seqlen_q, p.seqlen_k,
                                            p.head_dim, p.causal ? 1 : 0);
        std::filesystem::create_directories(dir);
        return dir;
    }

    void save_inputs(const ProblemShape& p, const DeviceBuffer& q, const DeviceBuffer& k, const DeviceBuffer& v) {
        cuda_check(cudaStreamSynchronize(stream_), "inputs");
        const std::string dir = tensor_dir(p);
        const std::size_t qn = q.bytes / dtype_bytes(p.dtype), kn = k.bytes / dtype_bytes(p.dtype);
        for (auto [name, buf, n, s] : {std::tuple{"q", &q, qn, p.seqlen_q}, {"k", &k, kn, p.seqlen_k},
                                       {"v", &v, kn, p.seqlen_k}}) {
            if (std::string e = write_npy_f32(fmt::format("{}/{}.npy", dir, name),
                                              copy_to_host_float(buf->ptr, p.dtype, n), logical_shape(p, s));
                !e.empty())
                throw std::runtime_error(e);
        }
        std::ofstream json(dir + "/flags.json");
        json << fmt::format(
            "{{\"dtype\": \"{}\", \"layout\": \"{}\", \"batch_size\": {}, \"seqlen_q\": {}, \"seqlen_k\": {}, "
            "\"num_head\": {}, \"head_dim\": {}, \"softmax_scale\": {:.9g}, \"is_causal\": {}, "
            "\"causal_alignment\": \"top-left\", \"seed\": {}, \"git_commit\": \"{}\", \"stored_as\": \"float32\"}}\n",
            dtype_name(p.dtype), layout_name(p.layout), p.batch, p.seqlen_q, p.seqlen_k, p.heads, p.head_dim,
            effective_scale(p), p.causal ? "true" : "false", o_.seed, prov_.git_commit);
    }

    void save_output(const ProblemShape& p, const std::string& kernel, const DeviceBuffer& o, std::size_t n) {
        cuda_check(cudaStreamSynchronize(stream_), "output");
        if (std::string e = write_npy_f32(fmt::format("{}/o_{}.npy", tensor_dir(p), kernel),
                                          copy_to_host_float(o.ptr, p.dtype, n), logical_shape(p, p.seqlen_q));
            !e.empty())
            throw std::runtime_error(e);
    }

    // Prints the row and appends it to the CSV at once, so a sweep that dies later (a kernel
    // fault, a killed job) keeps every row it finished.
    void emit(const ResultRow& r) {
        if (o_.explain) print_explain_row(stdout, r);
        else print_table_row(stdout, r);
        if (o_.csv.empty() || !csv_error_.empty()) return;
        csv_error_ = append_csv(o_.csv, {r});
        if (csv_error_.empty()) ++csv_rows_written_;
        else fmt::print(stderr, "fa-bench: {}\n", csv_error_);
    }

    int run_without_gpu(const std::vector<ProblemShape>& problems) {
        fmt::print("fa-bench: no usable CUDA GPU ({}): timing needs a CUDA GPU; printing the analytic columns only\n",
                   dev_.why_absent);
        print_table_header(stdout);
        for (const ProblemShape& p : problems) {
            ResultRow r = base_row(o_, prov_, p);
            r.kernel = "(analytic)";
            r.check = "n/a";
            r.note = "no GPU";
            emit(r);
        }
        return csv_error_.empty() ? 0 : 1;
    }

    const Calibration* calibration() const { return calibrated_ ? &cal_ : nullptr; }

    const Options& o_;
    DeviceInfo dev_;
    Calibration cal_;
    bool calibrated_ = false;
    Provenance prov_;
    cudaStream_t stream_ = nullptr;
    std::unique_ptr<DeviceBuffer> flush_;
    int csv_rows_written_ = 0;
    std::string csv_error_;  // the first failed CSV append; later rows are not attempted
    int failures_ = 0;
};

}  // namespace

int run_calibration(const Options& o, const DeviceInfo& dev) {
    if (!dev.present) {
        fmt::print(stderr, "fa-bench: --calibrate needs a CUDA GPU ({})\n", dev.why_absent);
        return 2;
    }
    Calibration cal;
    if (std::string e = calibrate_peaks(&cal); !e.empty()) {
        fmt::print(stderr, "fa-bench: --calibrate: {}\n", e);
        return 1;
    }
    const std::string path = o.peaks_file.empty() ? default_peaks_file() : o.peaks_file;
    fmt::print("{}: bf16 GEMM 8192^3 {:.1f} TFLOP/s, fp32 GEMM {:.1f} TFLOP/s, device copy {:.1f} GB/s (read + write)\n",
               cal.gpu, cal.gemm16_tflops, cal.gemm32_tflops, cal.copy_gbs);
    if (std::string e = save_calibration(path, cal); !e.empty()) {
        fmt::print(stderr, "fa-bench: {}\n", e);
        return 1;
    }
    fmt::print("saved to {}; later runs use these peaks (peak_source = calibrated:{})\n", path, cal.timestamp);
    return 0;
}

void print_kernel_list(std::FILE* out) {
    // One line per (dtype, head_dim) so the list stays short.
    struct Group {
        std::string key;
        std::string line;
        bool has_portable = false;  // a row without only_sm was seen (the first one is a default)
    };
    for (const KernelInfo& k : kernel_registry()) {
        fmt::print(out, "{:<18} rung {}  sm_{}+  {}\n", k.slug, k.rung, k.min_sm, k.title);
        std::vector<Group> groups;
        for (const KernelInstance& inst : k.instances()) {
            const std::string key =
                fmt::format("{:<9} head_dim {}", dtype_name(inst.dtype), inst.head_dim ? std::to_string(inst.head_dim) : "any");
            std::string tile = inst.tile.m_block_size ? fmt::format("{}x{}x{} ({} KiB smem)", inst.tile.m_block_size,
                                                                    inst.tile.n_block_size, inst.tile.num_threads,
                                                                    inst.smem_bytes / 1024)
                                                      : "untiled";
            auto g = std::find_if(groups.begin(), groups.end(), [&](const Group& x) { return x.key == key; });
            const bool first = g == groups.end();
            if (first) g = groups.insert(groups.end(), Group{key, key + ": ", false});
            else g->line += ", ";
            // The default is the first row the device can run (check_support): an sm_XXa row
            // listed first is the default on that GPU, the first portable row everywhere else.
            if (inst.only_sm != 0) {
                tile += fmt::format(" sm_{}a only", inst.only_sm);
                if (first) tile += fmt::format(" [default on sm_{}]", inst.only_sm);
            } else if (!g->has_portable) {
                tile += first ? " [default]" : " [default elsewhere]";
                g->has_portable = true;
            }
            g->line += tile;
        }
        for (const Group& g : groups) fmt::print(out, "    {}\n", g.line);
    }
    fmt::print(out, "tiles are m_block_size x n_block_size x num_threads; [default] is used when no tile flag is given\n");
}

int run(const Options& o) {
    if (o.list) {
        print_kernel_list(stdout);
        return 0;
    }
    const DeviceInfo dev = query_device(o.device);
    if (o.calibrate) return run_calibration(o, dev);
    try {
        Runner runner(o, dev);
        return runner.run();
    } catch (const std::runtime_error& e) {
        fmt::print(stderr, "fa-bench: CUDA error: {}\n", e.what());
        return 1;
    }
}

}  // namespace fa
