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
    r->model_bytes = model_bytes(p, m_block);
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
}

}  // namespace fa
