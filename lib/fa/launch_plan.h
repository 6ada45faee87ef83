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
    int lpt_group = 1;      // causal tile order: head slots whose row blocks interleave (FwdParams)
};

// The causal tile order's group (FwdParams::lpt_group): how many consecutive head slots (of the
// batch · head slots in grid x) dispatch their row blocks interleaved, heaviest first. A causal row
// block's work grows with its position, so one head slot after the other (heaviest to lightest
// each time) leaves the lightest blocks of every head slot but the last among the heavy ones of the
// next: the grid's last wave is uneven. A list-scheduling simulation of the FA2 grid on 132 SMs
// (one CTA per SM, a block's time = its key tiles + 2) puts that order at 94-97 % of a perfect
// balance from 2,048 keys on and the interleaved one at 98.5-99.9 % (tests/unit/test_grid_order.cpp
// runs that model; README, "The causal tile order", has what it measured). The group is as many head slots as have their K and V in the L2 together
// (l2_bytes / (2 · seqlen_k · head_dim · element bytes)), rounded down to a power of two and to
// at most the head slots there are: the tiles in flight read at most the L2's worth of K/V, so
// interleaving costs no DRAM re-read (fa/model.h's count is the old order's, and both are 0
// there). 1 when not causal, when one head's K/V alone fills half the L2 or more, when l2_bytes
// is 0 (unknown), and below kLptMinKeys keys.
// Why not below 2,048 keys (H100 SXM, bf16, the FA2 grid's causal points, 5 + 30 launches, two
// rounds; results/nvidia-h100-80gb-hbm3/session15/call1): at 512 keys the grouped order measured
// -7 to -21 % (d128 rung 9 319 -> 252 TFLOP/s), at 1,024 -3 to -8 %, where it gained +2 to +8 %
// from 2,048 on (d256 4x16x4096 rung 7 583 -> 630). A short causal problem is close to memory-
// bound (causal attention does S/4 FLOP per compulsory byte at 2-byte elements: 128 at 512 keys
// against the H100's ~250 of tensor FLOP per DRAM byte), so the K/V a row block re-reads from
// DRAM when its head's other row blocks ran long before (grouped) costs more than the balance
// buys; one head slot after the other keeps a head's row blocks in flight together.
inline constexpr int kLptMinKeys = 2048;
int causal_lpt_group(const ProblemShape& p, long long head_slots, long long l2_bytes);

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
// l2_bytes (the GPU's L2; 0: unknown) sizes the causal tile order (causal_lpt_group).
LaunchPlan plan_launch(const KernelInfo& kernel, const KernelInstance& inst, const ProblemShape& p, int sm_count,
                       int ctas_per_sm, long long l2_bytes);

// Applies a plan to the parameters of a launch: pack_gqa, lpt_group, num_splits and the split partials,
// which live in `split_workspace` (splitkv_workspace_bytes(p, plan.num_splits) bytes).
void apply_launch_plan(const LaunchPlan& plan, void* split_workspace, FwdParams* prm);

}  // namespace fa
