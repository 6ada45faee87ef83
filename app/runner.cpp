// The runner: plans the whole sweep first (plan.h), so that what cannot run, or may not, is known
// before anything runs; then for each problem allocates its tensors (tensors.h) and per runnable
// (kernel, problem) checks the output against the FP32 reference and times the launches
// (measurer.h: timing.h while NVML's clocks are sampled); every row is printed and appended
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

#include "autotune.h"
#include "calibration_cache.h"
#include "csv_writer.h"
#include "device.h"
#include "kernel_list.h"
#include "measurer.h"
#include "nvtx.h"
#include "plan.h"
#include "progress.h"
#include "report.h"
#include "row_columns.h"
#include "tensors.h"

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
        : o_(o), dev_(dev), prov_(make_provenance(dev)), csv_(csv), measurer_(o, dev) {
        const std::string path = o.peaks_file.empty() ? default_peaks_file() : o.peaks_file;
        calibrated_ = dev.present && load_calibration(path, dev.name, &cal_);
    }

    int run() {
        const TuneCache tuned = load_run_tune_cache(o_, dev_);  // prints its one warning line, if any
        const Sweep sweep = expand_sweep(o_, &tuned);
        // Every problem is planned before anything runs: what cannot run is known first, and a
        // rule that needs the kernels' tiles (check_jobs) refuses the sweep up front, with
        // nothing printed and no CSV touched, rather than halfway.
        std::vector<PlannedProblem> plan;
        int runnable = 0;
        std::vector<std::string> reasons, warnings;  // warnings: stale cached tiles (plan.h)
        for (const ProblemShape& p : sweep.problems) {
            plan.push_back({p, plan_jobs(p, sweep, dev_, checks_outputs(), &warnings)});
            if (const std::string e = check_jobs(p, plan.back().jobs); !e.empty()) {
                fmt::print(stderr, "fa-bench: {}\n", e);
                return 2;
            }
            for (const Job& j : plan.back().jobs) {
                if (j.inst) ++runnable;
                else reasons.push_back(fmt::format("{} [{}]: {}", j.kernel->slug, shape_tag(p), j.reason));
            }
        }
        for (const std::string& w : warnings) fmt::print(stderr, "fa-bench: warning: {}\n", w);
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
            measurer_.start();
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
        measurer_.warn_about_untrusted_rows(stderr);
        return measurer_.failures() ? 1 : 0;
    }

  private:
    bool checks_outputs() const { return measurer_.checks_outputs(); }

    void run_problem(const ProblemShape& p, const std::vector<Job>& jobs) {
        const bool any = std::any_of(jobs.begin(), jobs.end(), [](const Job& j) { return j.inst != nullptr; });
        std::size_t workspace = 0;
        for (const Job& j : jobs)
            if (j.inst) workspace = std::max(workspace, j.workspace);

        std::unique_ptr<ProblemTensors> tensors;
        if (any && !o_.explain && dev_.present) {
            const cudaStream_t stream = measurer_.stream();
            tensors = std::make_unique<ProblemTensors>(p, workspace, o_.seed, checks_outputs(), stream);
            if (checks_outputs()) {
                NvtxRange range{kNvtxReferencePrefix + shape_tag(p)};
                tensors->compute_reference(stream);
            }
            if (!o_.save_tensors.empty()) tensors->save_inputs(o_.save_tensors, o_.seed, prov_.git_commit, stream);
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
            r.note = j.tile_note;  // "autotuned ..." when the tile came from the tune cache
            if (j.plan.tail.tiles > 0)  // the launch's shape beyond the CSV's columns (fa/splitkv.h)
                r.note += fmt::format("{}tail split: last {} tiles x {} key chunks", r.note.empty() ? "" : "; ",
                                      j.plan.tail.tiles, j.plan.tail.splits);
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
                measurer_.measure(j, *tensors, label, &r);
            } catch (const std::runtime_error& e) {
                // A kernel fault leaves the context unusable: report it and stop cleanly.
                r.check = "FAIL";
                r.note = e.what();
                emit(r);
                throw;
            }
            fill_model(o_, dev_, calibration(), p, j.plan, &r);
            emit(r);
        }
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
    Measurer measurer_;
    std::unique_ptr<Progress> progress_;
    int started_ = 0;  // runnable jobs started so far (the progress line's k)
};

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
    if (o.autotune) return run_autotune(o, dev);
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
