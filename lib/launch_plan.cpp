#include "fa/launch_plan.h"

#include <algorithm>

#include "fa/splitkv.h"

namespace fa {

bool packs_gqa(const KernelInfo& kernel, const KernelInstance& inst, const ProblemShape& p) {
    const int g = p.heads_per_kv();
    return kernel.caps.pack_gqa && inst.tile.m_block_size > 0 && g > 1 && 64 % g == 0 &&
           2 * p.seqlen_q <= inst.tile.m_block_size;
}

long long block_series_rows(const KernelInfo& kernel, const KernelInstance& inst, const ProblemShape& p) {
    return static_cast<long long>(p.seqlen_q) * (packs_gqa(kernel, inst, p) ? p.heads_per_kv() : 1);
}

bool rows_fit_one_block(const KernelInfo& kernel, const KernelInstance& inst, const ProblemShape& p) {
    return inst.tile.m_block_size > 0 && block_series_rows(kernel, inst, p) <= inst.tile.m_block_size;
}

int causal_lpt_group(const ProblemShape& p, long long head_slots, long long rows_per_slot, long long l2_bytes,
                     long long short_cap) {
    if (!p.causal || l2_bytes <= 0 || head_slots <= 1) return 1;
    const long long cap = p.seqlen_k >= kLptMinKeys ? head_slots : std::min(head_slots, short_cap);
    const double in = static_cast<double>(input_bytes(p.dtype)), out = static_cast<double>(output_bytes(p.dtype));
    const double slot_bytes = p.head_dim * (2.0 * p.seqlen_k * in + static_cast<double>(rows_per_slot) * (in + out));
    const double fit = static_cast<double>(l2_bytes) / std::max(slot_bytes, 1.0);
    long long group = 1;
    while (2 * group <= fit && 2 * group <= cap) group *= 2;
    return static_cast<int>(group);
}

LaunchPlan plan_launch(const KernelInfo& kernel, const KernelInstance& inst, const ProblemShape& p, int sm_count,
                       int ctas_per_sm, long long l2_bytes) {
    LaunchPlan plan;
    const int block_m = std::max(inst.tile.m_block_size, 1);
    const int block_n = std::max(inst.tile.n_block_size, 1);
    plan.pack_gqa = packs_gqa(kernel, inst, p);
    const long long rows = block_series_rows(kernel, inst, p);
    const long long slots = plan.pack_gqa ? p.kv_heads() : p.heads;
    const long long row_blocks = (rows + block_m - 1) / block_m;
    plan.ctas = row_blocks * slots * p.batch;
    plan.key_blocks = key_blocks(p.seqlen_k, block_n);
    // CTAs the GPU holds at once: the split heuristic's slots, and the round a persistent kernel's
    // short causal groups must fit (causal_lpt_group).
    const int resident = std::max(sm_count, 1) * std::max(ctas_per_sm, 1);
    const long long short_cap = kernel.caps.persistent ? std::max(1LL, resident / row_blocks) : 1;
    plan.lpt_group = causal_lpt_group(p, slots * p.batch, rows, l2_bytes, short_cap);
    plan.block_m = block_m;
    if (kernel.caps.split_kv) {
        // One stage of K and V: a key tile of each (splitkv.h, split_fill_ctas_per_sm).
        const long long stage_kv_bytes = 2LL * block_n * p.head_dim * static_cast<long long>(input_bytes(p.dtype));
        const int fill = std::max(sm_count, 1) * split_fill_ctas_per_sm(ctas_per_sm, stage_kv_bytes);
        const SplitChunkRule chunks =
            kernel.caps.split_chunk_rule ? split_chunk_rule(stage_kv_bytes, p.head_dim) : SplitChunkRule{};
        plan.num_splits = p.num_splits > 0 ? p.num_splits
                                           : choose_num_splits(plan.ctas, resident, plan.key_blocks,
                                                               rows_fit_one_block(kernel, inst, p), fill, kMaxSplits,
                                                               chunks);
    }
    if (kernel.caps.tail_split && plan.num_splits == 1 && !plan.pack_gqa)
        plan.tail = choose_tail_split(plan.ctas, resident, plan.key_blocks, p.causal);
    return plan;
}

// A plan has split-KV partials or the tail split's (plan_launch splits the tail only without
// split-KV), so either starts the split workspace.
std::size_t plan_workspace_bytes(const ProblemShape& p, const LaunchPlan& plan) {
    const std::size_t tail_floats =
        static_cast<std::size_t>(plan.tail.tiles) * plan.tail.splits * tail_slot_floats(plan.block_m, p.head_dim);
    return splitkv_workspace_bytes(p, plan.num_splits) + tail_floats * sizeof(float);
}

void apply_launch_plan(const LaunchPlan& plan, void* split_workspace, FwdParams* prm) {
    prm->pack_gqa = plan.pack_gqa;
    prm->lpt_group = plan.lpt_group;
    assign_splitkv_workspace(prm, plan.num_splits, split_workspace);
    prm->tail_tiles = plan.tail.tiles;
    prm->tail_splits = plan.tail.splits;
    prm->tail_partial = plan.tail.tiles > 0 ? static_cast<float*>(split_workspace) : nullptr;
}

}  // namespace fa
