// The runner: plans the whole sweep first (plan.h), so that what cannot run is known before
// anything runs; then for each problem allocates its tensors (tensors.h) and per runnable
// (kernel, problem) checks the output against the FP32 reference and times the launches
// (timing.h); every row is printed and appended to the CSV as soon as it is finished. Without a
// GPU it prints, per (kernel, problem), what is known statically.
#include "runner.h"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <new>
#include <stdexcept>

#include "calibration_cache.h"
#include "csv_writer.h"
#include "device.h"
#include "kernel_list.h"
#include "nvtx.h"
#include "plan.h"
#include "progress.h"
#include "report.h"
#include "row_columns.h"
#include "tensors.h"
#include "timing.h"

namespace fa {
namespace {

// The sweep's problems, each with its jobs, planned before anything runs.
struct PlannedProblem {
    ProblemShape problem;
    std::vector<Job> jobs;
};

// A failed CSV write ends the sweep: the rows already written stay, nothing later is measured
// for a file that cannot take it.
struct CsvFailed {};

class Runner {
  public:
    Runner(const Options& o, const DeviceInfo& dev, CsvWriter* csv)
        : o_(o), dev_(dev), prov_(make_provenance(dev)), csv_(csv) {
        const std::string path = o.peaks_file.empty() ? default_peaks_file() : o.peaks_file;
        calibrated_ = dev.present && load_calibration(path, dev.name, &cal_);
        policy_.warmup_iterations = o.warmup_iterations;
        policy_.iterations = o.iterations;
    }

    int run() {
        const Sweep sweep = expand_sweep(o_);
        std::vector<PlannedProblem> plan;
        int runnable = 0;
        std::vector<std::string> reasons;
        for (const ProblemShape& p : sweep.problems) {
            plan.push_back({p, plan_jobs(p, sweep, dev_, checks_outputs())});
            for (const Job& j : plan.back().jobs) {
                if (j.inst) ++runnable;
                else reasons.push_back(fmt::format("{} [{}]: {}", j.kernel->slug, shape_tag(p), j.reason));
            }
        }

        if (dev_.present) {
            fmt::print("device {}: {} (sm_{}, {} SMs, {:.0f} MHz, {:.1f} GB free), driver {}, CUDA runtime {}\n",
                       dev_.ordinal, dev_.name, dev_.sm, dev_.sm_count, dev_.sm_clock_mhz, dev_.free_bytes / 1e9,
                       prov_.driver_version, prov_.cuda_runtime);
            cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
            if (o_.use_cold_l2) {
                // Twice the L2: a memset of this size evicts everything the previous launch left.
                flush_ = std::make_unique<DeviceBuffer>(2 * std::max<std::size_t>(dev_.l2_bytes, 1 << 20));
                policy_.l2_flush = flush_.get();
            }
        } else {
            fmt::print("fa-bench: no usable CUDA GPU ({}): timing needs a CUDA GPU; printing what is known "
                       "without one (tiles, shared memory, FLOPs, bytes, the model's bytes)\n",
                       dev_.why_absent);
        }
        if (o_.explain) print_explain_header(stdout);
        else print_table_header(stdout);

        // Only launches that are timed or profiled take long enough to need a progress line.
        const bool launches = dev_.present && !o_.explain;
        progress_ = std::make_unique<Progress>(runnable, stderr, launches && runnable > 1 && progress_wanted(stderr));
        try {
            for (const PlannedProblem& pp : plan) run_problem(pp.problem, pp.jobs);
        } catch (const CsvFailed&) {
            return 1;
        }
        progress_->clear();
        if (runnable == 0) {
            fmt::print(stderr, "fa-bench: no selected kernel can run the requested problem(s):\n");
            for (const std::string& r : reasons) fmt::print(stderr, "  {}\n", r);
            return 2;
        }
        return failures_ ? 1 : 0;
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

        std::unique_ptr<ProblemTensors> tensors;
        if (any && !o_.explain && dev_.present) {
            tensors = std::make_unique<ProblemTensors>(p, workspace, o_.seed, checks_outputs(), stream_);
            if (checks_outputs()) {
                NvtxRange range{kNvtxReferencePrefix + shape_tag(p)};
                tensors->compute_reference(stream_);
            }
            if (!o_.save_tensors.empty()) tensors->save_inputs(o_.save_tensors, o_.seed, prov_.git_commit, stream_);
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
            if (o_.explain || !dev_.present) {
                r.check = "n/a";
                if (!dev_.present) r.note = "not run: no CUDA GPU";
                fill_model(dev_, calibration(), p, r.m_block_size, &r);
                emit(r);
                continue;
            }
            const std::string label = fmt::format("{} {}", j.kernel->slug, shape_tag(p));
            progress_->start(started_++, label);
            try {
                measure(*j.inst, *tensors, label, &r);
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

    // `label` ("<kernel> <shape_tag>") names the NVTX ranges README's ncu filters select.
    void measure(const KernelInstance& inst, ProblemTensors& tensors, const std::string& label, ResultRow* r) {
        const FwdParams& prm = tensors.params();
        const Launch launch = [&](cudaStream_t s) { return inst.launch(prm, s); };
        if (o_.profile) {
            // Exactly one launch, so `ncu --nvtx-include` captures exactly this kernel's work.
            launch_once(launch, stream_, label);
            r->check = "n/a";
            r->note = "profile: one launch, not timed";
            return;
        }
        if (checks_outputs()) {
            tensors.poison_output(stream_);
            launch_once(launch, stream_, label + kNvtxCheckSuffix);
            const CheckResult c = tensors.check_output();
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
        if (!o_.save_tensors.empty()) tensors.save_output(o_.save_tensors, r->kernel, stream_);

        const Timing t = time_launches(launch, policy_, stream_, label);
        r->timed = true;
        r->time_ms_median = t.median;
        r->time_ms_min = t.min;
        r->time_ms_max = t.max;
        r->noise_pct = t.noise_pct;
        r->tflops = r->flops / (t.median * 1e9);
        r->bandwidth_gbs = r->compulsory_bytes / (t.median * 1e6);
    }

    // Prints the row and appends it to the CSV at once, so a sweep that dies later (a kernel
    // fault, a killed job) keeps every row it finished.
    void emit(const ResultRow& r) {
        progress_->clear();
        if (o_.explain) print_explain_row(stdout, r);
        else print_table_row(stdout, r);
        if (csv_ == nullptr) return;
        if (std::string e = csv_->append(r); !e.empty()) {
            fmt::print(stderr, "fa-bench: {}\n", e);
            throw CsvFailed{};
        }
    }

    const Calibration* calibration() const { return calibrated_ ? &cal_ : nullptr; }

    const Options& o_;
    DeviceInfo dev_;
    Calibration cal_;
    bool calibrated_ = false;
    Provenance prov_;
    CsvWriter* csv_;
    cudaStream_t stream_ = nullptr;
    std::unique_ptr<DeviceBuffer> flush_;
    TimingPolicy policy_;
    std::unique_ptr<Progress> progress_;
    int started_ = 0;  // runnable jobs started so far (the progress line's k)
    int failures_ = 0;
};

ListFilter list_filter(const Options& o) {
    ListFilter f;
    f.kernels = o.kernels;
    if (o.was_given("dtype")) f.dtypes = o.dtypes;
    if (o.was_given("head_dim")) f.head_dims = o.head_dim;
    return f;
}

}  // namespace

int run(const Options& o) {
    if (o.list) {
        print_kernel_list(stdout, list_filter(o));
        return 0;
    }
    CsvWriter csv;
    if (!o.csv.empty())
        if (std::string e = csv.open(o.csv); !e.empty()) {
            fmt::print(stderr, "fa-bench: {}\n", e);
            return 1;
        }
    const DeviceInfo dev = query_device(o.device);
    if (o.calibrate) return run_calibration(o.peaks_file, dev);
    int code = 0;
    try {
        Runner runner(o, dev, o.csv.empty() ? nullptr : &csv);
        code = runner.run();
    } catch (const std::runtime_error& e) {
        fmt::print(stderr, "fa-bench: CUDA error: {}\n", e.what());
        code = 1;
    } catch (const std::bad_alloc&) {
        // The check holds O and the FP32 reference on the host: about 10 bytes per element of Q.
        fmt::print(stderr, "fa-bench: out of host memory (checking a problem keeps about 10 bytes per element of "
                           "Q on the host; --skip_ref_check needs none)\n");
        code = 1;
    }
    if (o.csv.empty()) return code;
    if (std::string e = csv.close(); !e.empty()) {
        fmt::print(stderr, "fa-bench: {}\n", e);
        return 1;
    }
    fmt::print("appended {} row(s) to {}\n", csv.rows_written(), o.csv);
    return code;
}

}  // namespace fa
