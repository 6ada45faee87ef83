// The order in which the fused rungs' grid runs its tiles (device/block_info.cuh decodes grid x
// with it; CTAs are dispatched in increasing x, and rung 9 takes x from a counter in the same
// order), on the host too so that the unit tests can check it.
#pragma once

#include "fa/host_device.h"

namespace fa {

// Which row block of which head slot (slot_batch = slot + head slots · batch) grid position x
// runs, counted in dispatch order (m_block before any reversal). Groups of `group` consecutive
// head slots (the last group may be smaller) take x in turn; inside a group the row blocks
// interleave: x runs row block (x − the group's first x) / n of head slot (x − the group's first
// x) % n of the group, n its head slots. group = 1 is one head slot's row blocks after the
// other's. Why causal problems group: FwdParams::lpt_group, fa/launch_plan.h (causal_lpt_group).
// Three integer divisions, once per CTA (and once more in the Hopper epilogues' fresh BlockCoords).
struct GridTile {
    int m_block, slot_batch;
};
FA_HOST_DEVICE inline GridTile grid_tile(int x, int m_blocks, int slot_batches, int group) {
    const int first_slot = x / (group * m_blocks) * group;
    const int in_group = x - first_slot * m_blocks;
    const int n = group < slot_batches - first_slot ? group : slot_batches - first_slot;
    const int mb = in_group / n;
    return {mb, first_slot + (in_group - mb * n)};
}

}  // namespace fa
