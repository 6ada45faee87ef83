// How one kernel instance runs one problem: whether it packs grouped query heads into its row
// blocks and how many split-KV chunks it uses. The runner, the tests and the model all ask this
// one function, so the CSV's num_splits / pack_gqa are what the launch did.
#pragma once

#include "fa/params.h"
#include "fa/problem.h"
#include "fa/registry.h"

namespace fa {

struct LaunchPlan {
    bool pack_gqa = false;  // query heads of a K/V head share row blocks (device/block_info.cuh)
    int num_splits = 1;     // split-KV chunks (1: off)
    long long ctas = 0;     // CTAs of the main kernel without splits: row blocks · head slots · batch
    int key_blocks = 0;     // key tiles of one row block: ceil(seqlen_k / n_block_size)
};

// Whether `inst` packs `p`'s grouped query heads (plan_launch's rule below), and the query rows
// one of its row-block series covers: seqlen_q, times the heads per K/V head when packed.
bool packs_gqa(const KernelInfo& kernel, const KernelInstance& inst, const ProblemShape& p);
long long block_series_rows(const KernelInfo& kernel, const KernelInstance& inst, const ProblemShape& p);
// Whether every query row of a (batch, K/V head) — of a (batch, head) when not packed — fits one
// row block of `inst`: the DefaultRule of the Hopper rungs' 64-row decode tile (kRowsFitOneBlock).
bool rows_fit_one_block(const KernelInfo& kernel, const KernelInstance& inst, const ProblemShape& p);
inline constexpr DefaultRule kRowsFitOneBlock{&rows_fit_one_block, "Sq x heads per K/V head <= m_block_size"};

// sm_count and ctas_per_sm (the occupancy of inst's kernel) size the split heuristic; with
// ctas_per_sm = 0 (no GPU) one CTA per SM is assumed. A problem's explicit num_splits > 1 is taken
// as given (check_support has refused it for kernels without split-KV). Packing is used when the
// kernel can, the group size divides 64 (a warpgroup's rows; 5-D TMA boxes need it) and an
// unpacked row block would be at most half full (seqlen_q <= m_block_size / 2): decode and short
// queries, where it turns idle rows into the group's other heads.
LaunchPlan plan_launch(const KernelInfo& kernel, const KernelInstance& inst, const ProblemShape& p, int sm_count,
                       int ctas_per_sm);

// Applies a plan to the parameters of a launch: pack_gqa, num_splits and the split partials,
// which live in `split_workspace` (splitkv_workspace_bytes(p, plan.num_splits) bytes).
void apply_launch_plan(const LaunchPlan& plan, void* split_workspace, FwdParams* prm);

}  // namespace fa
