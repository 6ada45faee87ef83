#include "row_columns.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>

#include "fa/registry.h"

namespace fa {

ResultRow base_row(const Options& o, const Provenance& prov, const ProblemShape& p) {
    ResultRow r;
    r.prov = prov;
    r.dtype = dtype_name(p.dtype);
    r.layout = layout_name(p.layout);
    r.batch_size = p.batch;
    r.seqlen_q = p.seqlen_q;
    r.seqlen_k = p.seqlen_k;
    r.num_head = p.heads;
    r.num_head_kv = p.kv_heads();
    r.head_dim = p.head_dim;
    r.is_causal = p.causal ? 1 : 0;
    r.softmax_scale = effective_scale(p);
    r.warmup_iterations = o.warmup_iterations;
    r.iterations = o.iterations.value_or(0);  // a timed row: the launches the stopping rule took
    r.use_cold_l2 = o.use_cold_l2 ? 1 : 0;
    r.seed = o.seed;
    r.flops = attention_flops(p);
    r.compulsory_bytes = compulsory_bytes(p);
    r.arithmetic_intensity = arithmetic_intensity(p);
    return r;
}

int resident_ctas_per_sm(const DeviceInfo& dev, const KernelInstance& inst) {
    if (inst.kernel_func == nullptr || !dev.present || inst.tile.m_block_size == 0) return 0;
    if (inst.smem_bytes > 48 * 1024)  // the occupancy API needs the opt-in, as the launch does
        cudaFuncSetAttribute(inst.kernel_func, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(inst.smem_bytes));
    int ctas = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&ctas, inst.kernel_func, inst.tile.num_threads,
                                                      inst.smem_bytes) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return ctas;
}

// Tile resources of the chosen instance: registers, CTAs per SM, waves over the grid.
void fill_resources(const DeviceInfo& dev, const KernelInstance& inst, const LaunchPlan& plan, ResultRow* r) {
    r->smem_per_cta = static_cast<int>(inst.smem_bytes);
    r->num_splits = plan.num_splits;
    r->pack_gqa = plan.pack_gqa ? 1 : 0;
    if (inst.kernel_func == nullptr || !dev.present) return;
    cudaFuncAttributes attr{};
    if (cudaFuncGetAttributes(&attr, inst.kernel_func) != cudaSuccess) {
        cudaGetLastError();
        return;
    }
    r->regs_per_thread = attr.numRegs;
    r->ctas_per_sm = resident_ctas_per_sm(dev, inst);
    if (r->ctas_per_sm > 0)
        r->waves = static_cast<double>(plan.launched_ctas()) / (static_cast<double>(r->ctas_per_sm) * dev.sm_count);
}

namespace {

// The GPU the model is evaluated for: --model_gpu's table entry, else the device in use.
bool model_gpu_spec(const Options& o, const DeviceInfo& dev, GpuSpec* spec, std::string* source) {
    if (!o.model_gpu.empty()) {
        const GpuSpec* known = known_gpu(o.model_gpu);  // options.cpp refused any other name
        if (known == nullptr) return false;
        *spec = *known;
        *source = "table:" + known->name;
        return true;
    }
    if (!dev.present) return false;
    const GpuSpec* known = known_gpu(dev.name);
    *spec = {dev.name, dev.sm, dev.sm_count, dev.sm_clock_mhz, dev.mem_clock_mhz, dev.bus_width_bits,
             static_cast<double>(dev.l2_bytes), known != nullptr ? known->smem_per_sm : 0.0};
    *source = "device:" + dev.name;
    return true;
}

// CTAs in flight: the occupancy API's count when the device told it; without one an upper bound
// from shared memory (each CTA also reserves 1 KiB; at most 32 CTAs per SM), which can only
// lower the re-reads counted, so the HBM term stays a lower bound; 0 (no re-reads) otherwise.
long long ctas_in_flight(const GpuSpec& gpu, const ResultRow& r) {
    if (r.ctas_per_sm > 0) return static_cast<long long>(r.ctas_per_sm) * gpu.sm_count;
    if (r.smem_per_cta <= 0 || gpu.smem_per_sm <= 0) return 0;
    const long long per_sm = static_cast<long long>(gpu.smem_per_sm / (r.smem_per_cta + 1024.0));
    return std::clamp<long long>(per_sm, 1, 32) * gpu.sm_count;
}

}  // namespace

void fill_model(const Options& o, const DeviceInfo& dev, const Calibration* cal, const ProblemShape& p,
                const LaunchPlan& plan, ResultRow* r) {
    const KernelInfo* kernel = find_kernel(r->kernel);
    const MathUnit unit = kernel != nullptr ? kernel->caps.math : MathUnit::TensorCore;
    const Elements elements = elements_of(p.dtype);
    TileOrder order;
    order.m_block = r->m_block_size;
    order.pack_gqa = plan.pack_gqa;
    order.num_splits = r->num_splits > 0 ? r->num_splits : 1;  // unknown (no device): no partials counted

    GpuSpec gpu;
    std::string source;
    if (!model_gpu_spec(o, dev, &gpu, &source)) {  // no GPU to take ceilings from: bytes only
        r->model_bytes = model_l2_bytes(p, elements, order);
        r->model_hbm_bytes = model_hbm_bytes(p, elements, order, 0.0).predicted();
        r->modeled = true;
        return;
    }
    order.ctas_in_flight = ctas_in_flight(gpu, *r);
    const Ceilings c = ceilings_for(gpu, unit, elements.in_bytes);
    const Model m = evaluate_model(p, elements, order, r->flops, c);
    r->model_bytes = m.l2_bytes;
    r->model_hbm_bytes = m.hbm.predicted();
    r->modeled = true;
    r->t_math_ms = m.terms.math;
    r->t_sfu_ms = m.terms.sfu;
    r->t_hbm_ms = m.terms.hbm;
    r->t_l2_ms = m.terms.l2;
    r->bound_ms = m.bound.ms;
    r->bound_sum_ms = m.bound.sum_ms;
    r->bound_term = m.bound.term;
    r->peak_source = source;
    r->peak_tflops = c.math_tflops;
    r->peak_gbs = c.hbm_gbs;
    r->peak_l2_gbs = c.l2_gbs;
    r->bounded = true;
    const Practical pr = practical_for(gpu.name, p.dtype, cal);
    r->practical_source = pr.source;
    r->practical_tflops = pr.gemm_tflops;
    r->practical_gbs = pr.copy_gbs;
    // A kernel whose output failed the check did not compute attention: the bound says nothing
    // about its time (the synthetic sample's FAIL row claims 900 TFLOP/s), so no pct_of_bound.
    if (r->timed && r->time_ms_median > 0 && r->check != "FAIL")
        r->pct_of_bound = 100.0 * m.bound.ms / r->time_ms_median;
    if (r->timed && pr.copy_gbs > 0) r->pct_of_copy = 100.0 * r->bandwidth_gbs / pr.copy_gbs;
}

}  // namespace fa
