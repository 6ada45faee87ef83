// Measuring one runnable (kernel, problem); see measurer.h.
#include "measurer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "clock_sampler.h"
#include "schema.h"

namespace fa {

Measurer::Measurer(const Options& o, const DeviceInfo& dev) : o_(o), dev_(dev) {
    policy_.warmup_iterations = o.warmup_iterations;
    policy_.warmup_time_s = o.warmup_time;
    policy_.iterations = o.iterations.value_or(0);
    policy_.rule = {o.min_samples, o.min_time, o.max_noise, o.max_time};
}

Measurer::~Measurer() {
    if (stream_) cudaStreamDestroy(stream_);
}

void Measurer::start() {
    if (!o_.profile && !o_.explain) open_clock_sensor();
    cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    if (o_.use_cold_l2) {
        // Twice the L2: a memset of this size evicts everything the previous launch left.
        flush_ = std::make_unique<DeviceBuffer>(2 * std::max<std::size_t>(dev_.l2_bytes, 1 << 20));
        policy_.l2_flush = flush_.get();
    }
}

void Measurer::measure(const Job& job, ProblemTensors& tensors, const std::string& label, ResultRow* r) {
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
void Measurer::fill_trust(const Timing& t, const std::string& label, ResultRow* r) {
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
        r->energy_mj = c.energy_power_w * t.median;  // W x ms = mJ; NaN stays NaN
        r->gflop_per_j = r->flops / r->energy_mj / 1e6;
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
void Measurer::open_clock_sensor() {
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
void Measurer::warn_about_untrusted_rows(std::FILE* out) const {
    auto list = [](const std::vector<std::string>& rows) {
        std::string out;
        for (const std::string& row : rows) out += (out.empty() ? "" : ", ") + row;
        return out;
    };
    if (!slowed_rows_.empty())
        fmt::print(out,
                   "fa-bench: warning: {} row(s) measured below {:.0f} % of the max SM clock or under a "
                   "power/thermal cap: {}\n",
                   slowed_rows_.size(), 100 * kLowClockFraction, list(slowed_rows_));
    if (!noisy_rows_.empty())
        fmt::print(out,
                   "fa-bench: warning: {} row(s) stopped at --max_time {} s with the noise of the median above "
                   "--max_noise {} %: {}\n",
                   noisy_rows_.size(), o_.max_time, o_.max_noise, list(noisy_rows_));
}

}  // namespace fa
