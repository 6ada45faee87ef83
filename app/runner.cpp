// The runner: plans the whole sweep first (plan.h), so that what cannot run, or may not, is known
// before anything runs; then for each problem allocates its tensors (tensors.h) and per runnable
// (kernel, problem) checks the output against the FP32 reference and times the launches
// (timing.h) while NVML's clocks are sampled (clock_sampler.h); every row is printed and appended
// to the CSV as soon as it is finished, and the run ends naming the rows whose time deserves less
// trust (slowed clocks, power or thermal caps, noise target not met). Without a GPU it prints,
// per (kernel, problem), what is known statically.
#include "runner.h"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <new>
#include <stdexcept>

#include "calibration_cache.h"
#include "csv_writer.h"
#include "device.h"
#include "kernel_list.h"
#include "nvml.h"
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
        policy_.warmup_time_s = o.warmup_time;
        policy_.iterations = o.iterations.value_or(0);
        policy_.rule = {o.min_samples, o.min_time, o.max_noise, o.max_time};
    }

    int run() {
        const Sweep sweep = expand_sweep(o_);
        // Every problem is planned before anything runs: what cannot run is known first, and a
        // rule that needs the kernels' tiles (check_jobs) refuses the sweep up front, with
        // nothing printed and no CSV touched, rather than halfway.
        std::vector<PlannedProblem> plan;
        int runnable = 0;
        std::vector<std::string> reasons;
        for (const ProblemShape& p : sweep.problems) {
            plan.push_back({p, plan_jobs(p, sweep, dev_, checks_outputs())});
            if (const std::string e = check_jobs(p, plan.back().jobs); !e.empty()) {
                fmt::print(stderr, "fa-bench: {}\n", e);
                return 2;
            }
            for (const Job& j : plan.back().jobs) {
                if (j.inst) ++runnable;
                else reasons.push_back(fmt::format("{} [{}]: {}", j.kernel->slug, shape_tag(p), j.reason));
            }
        }
        // Opened once the sweep is accepted, still before anything runs, so a refused sweep
        // leaves no new file behind.
        if (csv_ != nullptr)
            if (const std::string e = csv_->open(o_.csv); !e.empty()) {
                fmt::print(stderr, "fa-bench: {}\n", e);
                csv_->close();
                return 1;
            }

        if (dev_.present) {
            fmt::print("device {}: {} (sm_{}, {} SMs, {:.0f} MHz, {:.1f} GB free), driver {}, CUDA runtime {}\n",
                       dev_.ordinal, dev_.name, dev_.sm, dev_.sm_count, dev_.sm_clock_mhz, dev_.free_bytes / 1e9,
                       prov_.driver_version, prov_.cuda_runtime);
            if (!o_.profile && !o_.explain) open_clock_sensor();
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
        warn_about_untrusted_rows();
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
            fill_resources(dev_, *j.inst, j.plan, &r);
            if (o_.explain || !dev_.present) {
                r.check = "n/a";
                if (!dev_.present) {
                    r.note = "not run: no CUDA GPU";
                    // The heuristic's split count depends on the device's SMs and occupancy:
                    // unknown here, so the row does not claim one (the model counts no partials).
                    if (j.kernel->caps.split_kv && p.num_splits == 0) {
                        r.num_splits = 0;
                        r.note += "; split count unknown (the heuristic needs the device)";
                    }
                }
                fill_model(o_, dev_, calibration(), p, j.plan, &r);
                emit(r);
                continue;
            }
            const std::string label = fmt::format("{} {}", j.kernel->slug, shape_tag(p));
            progress_->start(started_++, label);
            try {
                measure(j, *tensors, label, &r);
            } catch (const std::runtime_error& e) {
                // A kernel fault leaves the context unusable: report it and stop cleanly.
                r.check = "FAIL";
                r.note = e.what();
                ++failures_;
                emit(r);
                throw;
            }
            fill_model(o_, dev_, calibration(), p, j.plan, &r);
            emit(r);
        }
    }

    // `label` ("<kernel> <shape_tag>") names the NVTX ranges README's ncu filters select. The
    // checked launch also writes the rows' LSE where the kernel can (compared with the
    // reference's); the timed launches do not, so they time the inference forward.
    void measure(const Job& job, ProblemTensors& tensors, const std::string& label, ResultRow* r) {
        const KernelInstance& inst = *job.inst;
        const bool check_lse = checks_outputs() && job.kernel->caps.lse;
        const FwdParams checked_prm = tensors.with_plan(job.plan, job.kernel_workspace, check_lse);
        const FwdParams prm = tensors.with_plan(job.plan, job.kernel_workspace, false);
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
            if (check_lse) tensors.poison_lse(stream_);
            launch_once([&](cudaStream_t s) { return inst.launch(checked_prm, s); }, stream_, label + kNvtxCheckSuffix);
            CheckResult c = tensors.check_output();
            r->checked = true;
            r->max_abs_err = c.max_abs_err;
            r->rel_l2_err = c.rel_l2_err;
            if (check_lse) {
                const CheckResult lse = tensors.check_lse();
                r->lse_checked = true;
                r->lse_max_abs_err = lse.max_abs_err;
                if (c.pass && !lse.pass) c = lse;
            }
            r->check = c.pass ? "PASS" : "FAIL";
            if (!c.pass) {
                r->note = c.reason;
                ++failures_;
            }
        } else {
            r->check = "SKIPPED";
        }
        if (!o_.save_tensors.empty()) {
            tensors.save_output(o_.save_tensors, r->kernel, stream_);
            if (check_lse) tensors.save_lse(o_.save_tensors, r->kernel, stream_);
        }

        TimingPolicy policy = policy_;
        if (!gpu_warmed_up_) policy.warmup_time_s = std::max(policy.warmup_time_s, o_.gpu_warmup_time);
        const Timing t = time_launches(launch, policy, stream_, label);
        gpu_warmed_up_ = true;
        r->timed = true;
        r->time_ms_median = t.median;
        r->time_ms_min = t.min;
        r->time_ms_max = t.max;
        r->noise_pct = t.noise_pct;
        r->tflops = r->flops / (t.median * 1e9);
        r->bandwidth_gbs = r->compulsory_bytes / (t.median * 1e6);
        fill_trust(t, label, r);
    }

    // The stopping rule's outcome, the clocks and the flags; rows to name at the end of the run.
    void fill_trust(const Timing& t, const std::string& label, ResultRow* r) {
        r->iterations = t.launches;
        r->warmup_iterations = t.warmup_launches;
        r->warmup_ms = t.warmup_ms;
        r->median_noise_pct = t.median_noise_pct;
        r->rule_applied = t.rule_applied;
        r->max_noise_pct = o_.max_noise;
        r->noise_target_met = t.noise_target_met;
        std::vector<std::string> tags;
        if (t.clocks) {
            const ClockSummary& c = *t.clocks;
            r->clocks_sampled = true;
            r->clock_samples = c.samples;
            r->sm_clock_mean_mhz = c.sm_clock_mean_mhz;
            r->sm_clock_min_mhz = c.sm_clock_min_mhz;
            r->sm_clock_max_mhz = limits_.max_sm_clock_mhz;
            r->power_w_mean = c.power_w_mean;
            r->power_limit_w = limits_.power_limit_w;
            r->temperature_c = c.temperature_c_max;
            r->throttle_reasons = c.reasons_known ? event_reason_list(c.reasons) : "";
            r->capped_pct = c.capped_pct;
            const ClockVerdict v = judge_clocks(c, limits_.max_sm_clock_mhz);
            tags = v.tags;
            if (v.flagged()) slowed_rows_.push_back(fmt::format("{} ({})", label, v.cause));
        }
        if (t.rule_applied && !t.noise_target_met) {
            tags.push_back("!noise");
            noisy_rows_.push_back(fmt::format("{} ({:.2f} %)", label, t.median_noise_pct));
        }
        for (const std::string& tag : tags) r->flags += (r->flags.empty() ? "" : ",") + tag;
    }

    // NVML for the device, found by its PCI bus id; without it the run says so here, once.
    void open_clock_sensor() {
        std::string why_not = "CUDA gave no PCI bus id for the device";
        if (!dev_.pci_bus_id.empty()) sensor_ = open_nvml_sensor(dev_.pci_bus_id, &why_not);
        if (!sensor_) {
            fmt::print("clocks: not sampled ({}): the clock, power and throttle columns stay empty\n", why_not);
            return;
        }
        limits_ = sensor_->limits();
        policy_.sensor = sensor_.get();
        auto known = [](double v, const char* unit) {
            return std::isnan(v) ? std::string("unknown") : fmt::format("{:.0f} {}", v, unit);
        };
        fmt::print("clocks: NVML at {}, max SM clock {}, power limit {}; read every {} ms during timed launches\n",
                   dev_.pci_bus_id, known(limits_.max_sm_clock_mhz, "MHz"), known(limits_.power_limit_w, "W"),
                   kClockSamplePeriod.count());
    }

    // One line per kind of doubt, on stderr, naming the rows (README: reading a flagged row).
    void warn_about_untrusted_rows() const {
        auto list = [](const std::vector<std::string>& rows) {
            std::string out;
            for (const std::string& row : rows) out += (out.empty() ? "" : ", ") + row;
            return out;
        };
        if (!slowed_rows_.empty())
            fmt::print(stderr,
                       "fa-bench: warning: {} row(s) measured below {:.0f} % of the max SM clock or under a "
                       "power/thermal cap: {}\n",
                       slowed_rows_.size(), 100 * kLowClockFraction, list(slowed_rows_));
        if (!noisy_rows_.empty())
            fmt::print(stderr,
                       "fa-bench: warning: {} row(s) stopped at --max_time {} s with the noise of the median above "
                       "--max_noise {} %: {}\n",
                       noisy_rows_.size(), o_.max_time, o_.max_noise, list(noisy_rows_));
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
    std::unique_ptr<GpuSensor> sensor_;  // null: no NVML
    SensorLimits limits_{};
    bool gpu_warmed_up_ = false;         // the first timed row of the process has run (--gpu_warmup_time)
    std::vector<std::string> slowed_rows_, noisy_rows_;
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
    const DeviceInfo dev = query_device(o.device);
    // A device asked for by name must be there; only without --device does a machine with no
    // GPU get the static rows (what the scripts use, with CUDA_VISIBLE_DEVICES="").
    if (o.device_given && !dev.present) {
        const std::string why = dev.device_count > 0
                                    ? dev.why_absent
                                    : fmt::format("--device {}: no usable CUDA device ({})", o.device, dev.why_absent);
        fmt::print(stderr, "fa-bench: {}\n", why);
        return 2;
    }
    if (o.calibrate) return run_calibration(o.peaks_file, dev);
    CsvWriter csv;  // opened by the runner once the sweep is planned and accepted
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
    if (!csv.is_open()) return code;  // no --csv, or the sweep ended before the file was opened
    if (std::string e = csv.close(); !e.empty()) {
        fmt::print(stderr, "fa-bench: {}\n", e);
        return 1;
    }
    fmt::print("appended {} row(s) to {}\n", csv.rows_written(), o.csv);
    return code;
}

}  // namespace fa
