#include "row_columns.h"

#include <cuda_runtime.h>

#include <cmath>

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
        r->waves = static_cast<double>(plan.ctas) * plan.num_splits / (static_cast<double>(r->ctas_per_sm) * dev.sm_count);
}

void fill_model(const DeviceInfo& dev, const Calibration* cal, const ProblemShape& p, int m_block,
                const LaunchPlan& plan, ResultRow* r) {
    r->model_bytes = model_bytes(p, m_block, plan.pack_gqa, plan.num_splits);
    r->modeled = true;
    if (!dev.present) return;
    const Peaks pk = peaks_for(dev.name, dev.sm / 10, dev.sm_count, dev.sm_clock_mhz, dev.mem_clock_mhz,
                               dev.bus_width_bits, p.dtype, cal);
    const Bound b = napkin_bound(r->flops, r->model_bytes, model_exponentials(p), pk);
    r->bound_ms = b.ms;
    r->bound_term = b.term;
    r->peak_source = pk.source;
    r->peak_tflops = pk.matmul_tflops;
    r->peak_gbs = pk.dram_gbs;
    r->bounded = true;
    if (r->timed && r->time_ms_median > 0) r->pct_of_bound = 100.0 * b.ms / r->time_ms_median;
    if (r->timed && pk.dram_gbs > 0) r->pct_of_copy = 100.0 * r->bandwidth_gbs / pk.dram_gbs;
}

}  // namespace fa
