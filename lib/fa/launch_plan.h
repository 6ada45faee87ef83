// How one kernel instance runs one problem: whether it packs grouped query heads into its row
// blocks and how many split-KV chunks it uses. The runner, the tests and the model all ask this
// one function, so the CSV's num_splits / pack_gqa are what the launch did.
#pragma once

#include "fa/params.h"
#include "fa/problem.h"
#include "fa/registry.h"
#include "fa/splitkv.h"

namespace fa {

struct LaunchPlan {
    bool pack_gqa = false;  // query heads of a K/V head share row blocks (device/block_info.cuh)
    int num_splits = 1;     // split-KV chunks (1: off)
    long long ctas = 0;     // CTAs of the main kernel without splits: row blocks · head slots · batch
    int key_blocks = 0;     // key tiles of one row block: ceil(seqlen_k / n_block_size)
    int lpt_group = 1;      // causal tile order: head slots whose row blocks interleave (FwdParams)
    TailSplit tail;         // the last wave's tiles split along keys (fa/splitkv.h; KernelCaps::tail_split)
    int block_m = 0;        // the instance's rows per tile (sizes the tail's partials)

    // CTAs the main kernel launches: every split chunk and tail chunk its own.
    long long launched_ctas() const {
        return ctas * num_splits + static_cast<long long>(tail.tiles) * (tail.splits - 1);
    }
};

// The causal tile order's group (FwdParams::lpt_group): how many consecutive head slots (of the
// batch · head slots in grid x) dispatch their row blocks interleaved, heaviest first. A causal row
// block's work grows with its position, so one head slot after the other (heaviest to lightest
// each time) leaves the lightest blocks of every head slot but the last among the heavy ones of the
// next: the grid's last wave is uneven. A list-scheduling model of the FA2 grid on 132 SMs (one
// CTA per SM, a block's time = its key tiles + 2) puts that order at 94-97 % of a perfect balance
// from 2,048 keys on and the interleaved one at 98-99.9 % (tests/unit/test_grid_order.cpp runs
// that model; README, "The causal tile order", has what it measured).
// The group: as many head slots as have their K and V and their rows of Q and O (rows_per_slot
// rows) in the L2 together, rounded down to a power of two and to at most the head slots there
// are, so that what the tiles in flight read and write stays in the L2. Session 15 call 5 (H100
// SXM, bf16, rungs 7 and 9, the FA2 grid's causal points from 2,048 keys, 5 + 30 launches, two
// rounds) measured this rule +2 to +10 % over one head after the other (level, -0.6 to +1.8 %,
// at 16k keys and head_dim 128 and 256, where one head's row blocks nearly fill the GPU), and -1
// to +7 % over groups sized by K/V alone (twice as large: FA3/FA4's rule; d64 8x32x2048 rung 7:
// -4 % there, +2 % here), while groups half this size lost the gain at head_dim 256 (+1 % against
// +9 %).
// Below kLptMinKeys keys the group is also at most short_cap: a causal problem there is close to
// memory-bound (S/4 FLOP per compulsory byte at 2-byte elements, 128 at 512 keys against the
// H100's ~250 tensor FLOP per DRAM byte), and groups that span several rounds of CTAs measured
// -3 to -21 % (call 1: K/V-sized groups, 512 and 1,024 keys). plan_launch passes 1 (no group)
// for a kernel that launches one CTA per tile, where even groups that fit one round of CTAs
// measured -8 to +3 % (rung 7, call 5), and for a persistent kernel (KernelCaps::persistent) the
// resident CTAs over the row blocks per head slot, so a group's row blocks fit one round of them:
// rung 9 +1.5 to +5 % at 5 of 6 short points, -1.3 % at d256 512 (call 5: d128 16x16x1024 418 ->
// 440 TFLOP/s). 1 when not causal or when l2_bytes is 0 (unknown).
inline constexpr int kLptMinKeys = 2048;
int causal_lpt_group(const ProblemShape& p, long long head_slots, long long rows_per_slot, long long l2_bytes,
                     long long short_cap);

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

// Scratch a launch of `plan` needs beyond the kernel's own: the split-KV partials or the tail
// split's (a plan never has both).
std::size_t plan_workspace_bytes(const ProblemShape& p, const LaunchPlan& plan);

// Applies a plan to the parameters of a launch: pack_gqa, lpt_group, num_splits, the tail split and
// their partials, which live in `split_workspace` (plan_workspace_bytes(p, plan) bytes).
void apply_launch_plan(const LaunchPlan& plan, void* split_workspace, FwdParams* prm);

}  // namespace fa
