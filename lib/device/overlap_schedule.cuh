// Rung 7's consumer schedule (07_wgmma_overlap.cu says what it changed from rung 6 and what it
// measured): ping-pong of the consumer warpgroups plus the overlap of each warpgroup's softmax
// with its own P·V. A header because rung 9 (09_wgmma_persistent.cu) runs it too, on each tile
// of query rows it takes.
//
// Every .cu that includes this header must be compiled for sm_90a (device/hopper.cuh).
#pragma once

#include <cstdint>
#include <type_traits>

#include "device/hopper.cuh"
#include "device/ptx.cuh"
#include "device/wgmma_steps.cuh"
#include "device/wgmma_ws_kernel.cuh"

namespace fa::wgmma {

// Ping-pong with intra-warpgroup overlap. Batch b is the b-th token-holding issue of a warpgroup:
// batch 0 = S(0); batch b = S(b) + PV(b-1) for b = 1..n-1 (two commit groups, S first); batch n =
// PV(n-1). Program order of a warpgroup (n >= 1: at n = 0 the kernel skips all of it; batch 0
// and batch n are the kernel's first_batch and last_batch, the rest is run() below):
//   wait K(0); batch 0; wait_group 0; release K(0); softmax(0); pack P(0); wait V(0);
//   iteration t = 0..n-2: wait K(t+1); batch t+1;
//       wait_group 1 (S(t+1) landed); release K(t+1); softmax(t+1), and at its midpoint
//       (Tr::kPvWaitColumn, below): wait V(t+1); wait_group 0; release V(t);
//       rescale O by α(t+1), pack P(t+1).
//   batch n; wait_group 0; release V(n-1).
// (O is zero before batch 1, so α(0) is not applied.) Each batch's operands are waited for before
// its token wait (K(b) just before, V(b-1) in the previous iteration or before the loop), so no
// warpgroup waits for memory holding the token.
// Where P(t)·V(t) is waited for (session 11, after FA4's sm90 SASS): the O rescale (kHeadDim / 2
// FMUL per thread) and the packing of P (kBlockN / 4 F2FP) must follow wait_group 0; in the same
// basic block as the exponentials after it, ptxas places them between the MUFU.EX2s (one every
// 8 cycles per warp on the SFU), where they cost no time, instead of as a run of ~100
// instructions before the next batch. The wait cannot go just anywhere: V(t+1)'s spin-wait ends
// a basic block, and ptxas moves wait_group 0 to the start of the block it is in (at the end of
// the softmax it went above the row max: head_dim 128 -3 to -5 %, head_dim 64 +2-3 %). So the
// two waits sit between 8-column groups of the exponentials, at the tile's kPvWaitColumn
// (wgmma_traits.cuh; H100, bf16, session 11 calls 9-10, against after all of them, which is this
// schedule's order before): head_dim 128 after 64 of 128 columns (+1-3 %), 64 before them
// (+1.5-6.5 %), 256 and the short causal head_dim-64 tile after all (earlier: -1 to -8 %, -4 %).
// FA4's sm90 loop at head_dim 64 (its SASS, session 32 call 7c) waits for V(t) before its P·V issue
// instead, so its softmax holds no spin-wait and ptxas left its wait_group 0 after 12 of the 66
// MUFU.EX2. Here that order (V(t) waited before batch t+1's token, beside K(t+1)) got wait_group 0
// hoisted to the softmax's start whether it was written at column 0 or after all the exponentials,
// and measured -0.9 to -3.8 % on rungs 7 and 9 at head_dim 64 (session 32 call 8, H100 SXM, two
// rounds; results/.../session32/v_wait_at_issue.patch); after 32 or 64 columns with the spin-wait
// there, -0.4 to -5.6 % (call 3). Column 0 with the wait in the softmax stays.
// Deadlock freedom: rank the events E(w, b) = "warpgroup w issues batch b" as (b, w, 0),
// RK(w, u) = "every warp of w released K(u)" as (u, w, 1) and RV(w, u) = "... released V(u)" as
// (u + 1, w, 1), lexicographically. Each event needs only events of smaller rank (wgmma
// completion and the producer's loads need nothing else once their inputs exist; the producer
// loads K(0), then K(t+1) before V(t), K(t) once RK(*, t - kStages) and V(t) once
// RV(*, t - kStages) happened):
//   E(w, b)  needs the token: E(w-1, b), or E(kConsumerWarpgroups-1, b-1) for w = 0; program
//            order: RV(w, b-2), RK(w, b-1); its operands K(b) and V(b-1), whose loads need at
//            most RK(*, b - kStages), RV(*, b - 1 - kStages) and the loads before them: ranks
//            <= (b - kStages, *, 1) < (b, w, 0) (kStages >= 2).
//   RK(w, u) needs E(w, u) (rank (u, w, 0)) and its S's completion.
//   RV(w, u) needs E(w, u+1) (rank (u+1, w, 0)), its wgmmas' completion and V(u+1) (its wait
//            precedes wait_group 0): RV(*, u + 1 - kStages) and RK(*, u + 2 - kStages), ranks
//            <= (u, *, 1) < (u + 1, w, 1).
// So no wait is part of a cycle, for any n: 0 (only Q, waited; then only the epilogue barrier),
// 1 (batch 0 = S(0), wait V(0), batch 1 = PV(0); a causal CTA with one key tile is this case),
// 2 (the loop runs once), or more. Partial tiles change only bytes (zero-filled, counted, so
// every full barrier completes) and the mask.
struct OverlapSchedule {
    template <class Tr>
    static __device__ __forceinline__ int run(const wgmma::WsConsumer<Tr>& c, const wgmma::ConsumerRegs<Tr>& r) {
        int stage = wgmma::ring_slot<Tr>(c.ring0);  // slot of tile t
        // Plain references, not a structured binding: the softmax's midpoint lambda captures o and
        // pa, and capturing structured bindings is C++20 (nvcc warning #3357-D under C++17).
        auto& o = r.o;
        auto& row_max = r.row_max;
        auto& row_sum = r.row_sum;
        auto& s = r.s;
        auto& pa = r.pa;
        auto& rescale = r.rescale;
        int next_stage = wgmma::ring_slot<Tr>(c.ring0 + 1);  // slot of tile t + 1, and its use's parity
        uint32_t next_phase = wgmma::ring_parity<Tr>(c.ring0 + 1);
        wgmma::pack_p<Tr>(pa, s);  // batch 1's A operand (O is still zero: no α(0))
        ptx::mbarrier_wait_parity(c.sm.bar_v0 + 8 * stage, wgmma::ring_parity<Tr>(c.ring0));  // V(0), for batch 1 (or n = 1)
        // Trip t: batch t+1, softmax(t+1). may_mask (std::true_type / false_type): whether tile t+1
        // may need the mask, softmax_tile's kMayMask.
        auto trip = [&](int t, auto may_mask) {
            // Batch t+1: S(t+1) = Q·K(t+1)ᵀ, then O += P(t)·V(t) (O already scaled by α(t)). V(t) waited.
            hopper::warpgroup_fence_operand(o);
            hopper::warpgroup_fence_operand(pa);
            ptx::mbarrier_wait_parity(c.sm.bar_k0 + 8 * next_stage, next_phase);
            c.wait_turn();
            hopper::warpgroup_fence_operand(o);
            hopper::warpgroup_fence_operand(pa);
            hopper::warpgroup_fence_operand(s);
            hopper::wgmma_fence();  // orders the rescale of o and the pack of pa before the wgmmas
            wgmma::issue_qk<Tr>(s, c.desc.q, c.desc.k, next_stage);
            hopper::wgmma_commit_group();
            wgmma::issue_pv<Tr>(o, pa, c.desc.v, stage);
            hopper::wgmma_commit_group();
            c.pass_turn();  // not the last batch (t + 1 < n)
            hopper::warpgroup_fence_operand(s);
            hopper::wgmma_wait_group<1>();  // S(t+1) has landed; P(t)·V(t) may still run
            hopper::warpgroup_fence_operand(s);
            c.release_k(next_stage);  // K(t+1): its producer may refill the slot during this softmax
            // softmax(t+1) with the P(t)·V(t) wait at its midpoint (the header comment), then O
            // scaled by α(t+1) and P(t+1) packed: one basic block from the midpoint's spin-wait.
            wgmma::softmax_tile<Tr, decltype(may_mask)::value>(s, row_max, row_sum, rescale, c.p, c.blk, t + 1, c, [&] {
                ptx::mbarrier_wait_parity(c.sm.bar_v0 + 8 * next_stage, next_phase);  // V(t+1)
                hopper::warpgroup_fence_operand(o);
                hopper::warpgroup_fence_operand(pa);
                hopper::wgmma_wait_group<0>();
                hopper::warpgroup_fence_operand(o);
                hopper::warpgroup_fence_operand(pa);
                c.release_v(stage);  // V(t), read by batch t+1
            });
            wgmma::rescale_o<Tr>(o, rescale);
            wgmma::pack_p<Tr>(pa, s);
            int nn_stage = next_stage + 1;
            uint32_t nn_phase = next_phase;
            if (nn_stage == Tr::kStages) {
                nn_stage = 0;
                nn_phase ^= 1u;
            }
            stage = next_stage;
            next_stage = nn_stage;
            next_phase = nn_phase;
        };
        // Tr::kUnmaskedLoop: the tiles that need no mask come first in key order (mask.cuh's
        // unmasked_key_tiles) and run in a loop of their own whose softmax has no mask test, as
        // FlashAttention's loops do; the rest (the causal diagonal, a partial last tile) in the loop
        // with it. wgmma_traits.cuh's configs say where it pays.
        int t = 0;
        if constexpr (Tr::kUnmaskedLoop) {
            const int unmasked = unmasked_key_tiles(position_of_row(c.p, c.blk.m_start), c.blk.key_tile_begin,
                                                    c.n_tiles, Tr::kBlockN, c.p.seqlen_k, c.p.causal);
#pragma unroll 1
            for (; t + 1 < unmasked; ++t) trip(t, std::false_type{});
        }
#pragma unroll 1
        for (; t + 1 < c.n_tiles; ++t) trip(t, std::true_type{});
        hopper::warpgroup_fence_operand(o);
        hopper::warpgroup_fence_operand(pa);
        return stage;
    }
};

}  // namespace fa::wgmma
