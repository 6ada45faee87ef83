// The runner: expands the sweep, decides per (kernel, problem) whether it can run, then for
// each runnable pair checks the output against the FP32 reference, warms up, and times every
// iteration with its own pair of CUDA events (nvbench's method), inside NVTX ranges.
#include "runner.h"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>

#include "calibration_cache.h"
#include "device.h"
#include "device_buffer.h"
#include "fa/model.h"
#include "fa/reference.h"
#include "fa/registry.h"
#include "kernel_list.h"
#include "npy.h"
#include "nvtx.h"
#include "plan.h"
#include "report.h"
#include "timing.h"

namespace fa {
namespace {

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
        policy_.warmup_iterations = o.warmup_iterations;
        policy_.iterations = o.iterations;
    }

    int run() {
        const Sweep sweep = expand_sweep(o_);
        if (!dev_.present) return run_without_gpu(sweep.problems);
        fmt::print("device {}: {} (sm_{}, {} SMs, {:.0f} MHz, {:.1f} GB free), driver {}, CUDA runtime {}\n",
                   dev_.ordinal, dev_.name, dev_.sm, dev_.sm_count, dev_.sm_clock_mhz, dev_.free_bytes / 1e9,
                   prov_.driver_version, prov_.cuda_runtime);
        cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
        if (o_.use_cold_l2) {
            // Twice the L2: a memset of this size evicts everything the previous launch left.
            flush_ = std::make_unique<DeviceBuffer>(2 * std::max<std::size_t>(dev_.l2_bytes, 1 << 20));
            policy_.l2_flush = flush_.get();
        }
        if (o_.explain) print_explain_header(stdout);
        else print_table_header(stdout);

        int runnable = 0;
        std::vector<std::string> reasons;
        for (const ProblemShape& p : sweep.problems) {
            std::vector<Job> jobs = plan_jobs(p, sweep, dev_, checks_outputs());
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
    // Each timed kernel's output is compared with the FP32 reference first.
    bool checks_outputs() const { return !o_.skip_ref_check && !o_.profile && !o_.explain; }

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
        const bool check = checks_outputs();
        if (any && !o_.explain) {
            q = std::make_unique<DeviceBuffer>(q_elems * es);
            k = std::make_unique<DeviceBuffer>(kv_elems * es);
            v = std::make_unique<DeviceBuffer>(kv_elems * es);
            o = std::make_unique<DeviceBuffer>(q_elems * es);
            ws = std::make_unique<DeviceBuffer>(workspace);
            cuda_check(fill_random_normal(q->ptr, p.dtype, q_elems, o_.seed, 0, stream_), "fill q");
            cuda_check(fill_random_normal(k->ptr, p.dtype, kv_elems, o_.seed, 1, stream_), "fill k");
            cuda_check(fill_random_normal(v->ptr, p.dtype, kv_elems, o_.seed, 2, stream_), "fill v");
            prm = make_fwd_params(p, q->ptr, k->ptr, v->ptr, o->ptr, ws->ptr, ws->bytes);
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

    void measure(const KernelInstance& inst, const FwdParams& prm, const ProblemShape& p, const std::string& label,
                 bool check, const std::vector<float>& ref_host, DeviceBuffer& o, ResultRow* r) {
        const std::size_t o_elems = static_cast<std::size_t>(p.batch) * p.seqlen_q * p.heads * p.head_dim;
        const Launch launch = [&](cudaStream_t s) { return inst.launch(prm, s); };
        if (o_.profile) {
            // Exactly one launch, so `ncu --nvtx-include` captures exactly this kernel's work.
            launch_once(launch, stream_, label);
            r->check = "n/a";
            r->note = "profile: one launch, not timed";
            return;
        }
        if (check) {
            // Poison O with NaN (0xFF bytes are NaN in fp32, fp16 and bf16): an element the
            // kernel forgets to write fails the check instead of passing on stale data.
            cuda_check(cudaMemsetAsync(o.ptr, 0xFF, o.bytes, stream_), "poison o");
            launch_once(launch, stream_, label + " check");
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

        const Timing t = time_launches(launch, policy_, stream_, label);
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
    TimingPolicy policy_;
    int csv_rows_written_ = 0;
    std::string csv_error_;  // the first failed CSV append; later rows are not attempted
    int failures_ = 0;
};

}  // namespace

int run(const Options& o) {
    if (o.list) {
        print_kernel_list(stdout);
        return 0;
    }
    const DeviceInfo dev = query_device(o.device);
    if (o.calibrate) return run_calibration(o.peaks_file, dev);
    try {
        Runner runner(o, dev);
        return runner.run();
    } catch (const std::runtime_error& e) {
        fmt::print(stderr, "fa-bench: CUDA error: {}\n", e.what());
        return 1;
    }
}

}  // namespace fa
