// Rung 7's consumer schedule (07_wgmma_overlap.cu says what it changed from rung 6 and what it
// measured): ping-pong of the consumer warpgroups plus the overlap of each warpgroup's softmax
// with its own P·V. A header because rung 9 (09_wgmma_persistent.cu) runs it too, on each tile
// of query rows it takes.
//
// Every .cu that includes this header must be compiled for sm_90a (device/hopper.cuh).
#pragma once

#include <cstdint>

#include "device/hopper.cuh"
#include "device/ptx.cuh"
#include "device/wgmma_steps.cuh"
#include "device/wgmma_ws_kernel.cuh"

namespace fa::wgmma {

// Ping-pong with intra-warpgroup overlap. Batch b is the b-th token-holding issue of a warpgroup:
// batch 0 = S(0); batch b = S(b) + PV(b-1) for b = 1..n-1 (two commit groups, S first); batch n =
// PV(n-1). Program order of a warpgroup (n >= 1: at n = 0 the kernel skips all of it; batch 0
// and batch n are the kernel's first_batch and last_batch, the rest is run() below):
//   wait K(0); batch 0; wait_group 0; release K(0); softmax(0); wait V(0);
//   iteration t = 0..n-2: rescale O by α(t), pack P(t); wait K(t+1); batch t+1;
//       wait_group 1 (S(t+1) landed); release K(t+1); softmax(t+1); wait V(t+1);
//                                                                  <- P(t)·V(t) still runs
//       wait_group 0; release V(t);
//   rescale O by α(n-1), pack P(n-1); batch n; wait_group 0; release V(n-1).
// Each batch's operands are waited for before its token wait (K(b) just before, V(b-1) in the
// previous iteration or before the loop), so no warpgroup waits for memory holding the token.
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
        ptx::mbarrier_wait_parity(c.sm.bar_v0 + 8 * stage, wgmma::ring_parity<Tr>(c.ring0));  // V(0), for batch 1 (or n = 1)
        const auto& [o, row_max, row_sum, s, pa, rescale] = r;
        int next_stage = wgmma::ring_slot<Tr>(c.ring0 + 1);  // slot of tile t + 1, and its use's parity
        uint32_t next_phase = wgmma::ring_parity<Tr>(c.ring0 + 1);
#pragma unroll 1
        for (int t = 0; t + 1 < c.n_tiles; ++t) {
            // Batch t+1: S(t+1) = Q·K(t+1)ᵀ, then O = α(t)·O + P(t)·V(t). V(t) waited.
            wgmma::rescale_o<Tr>(o, rescale);
            wgmma::pack_p<Tr>(pa, s);
            // K(t+1): a spin loop, so it also ends the basic block of the rescale and the pack,
            // which ptxas would otherwise sink below bar.sync onto the token holder's path.
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
            // Between the waits only s, the row statistics and rescale are written: o and pa
            // belong to the running wgmma until wait_group 0.
            wgmma::softmax_tile<Tr>(s, row_max, row_sum, rescale, c.p, c.blk, t + 1, c);
            // The gap: V(t+1), the other operand of batch t+2 (or of batch n); a spin loop, so
            // wait_group 0 below starts a basic block of its own and cannot be hoisted above
            // the softmax.
            ptx::mbarrier_wait_parity(c.sm.bar_v0 + 8 * next_stage, next_phase);  // V(t+1)
            int nn_stage = next_stage + 1;
            uint32_t nn_phase = next_phase;
            if (nn_stage == Tr::kStages) {
                nn_stage = 0;
                nn_phase ^= 1u;
            }
            hopper::warpgroup_fence_operand(o);
            hopper::warpgroup_fence_operand(pa);
            hopper::wgmma_wait_group<0>();
            hopper::warpgroup_fence_operand(o);
            hopper::warpgroup_fence_operand(pa);  // pa stays untouched until the wgmma read it
            c.release_v(stage);  // V(t), read by batch t+1
            stage = next_stage;
            next_stage = nn_stage;
            next_phase = nn_phase;
        }
        // Batch n (last_batch) is O = α(n-1)·O + P(n-1)·V(n-1): its operands. V(n-1) waited (before
        // the loop, or in its last gap). No spin loop before bar.sync here: the rescale may sink
        // below it (once per CTA).
        wgmma::rescale_o<Tr>(o, rescale);
        wgmma::pack_p<Tr>(pa, s);
        hopper::warpgroup_fence_operand(o);
        hopper::warpgroup_fence_operand(pa);
        return stage;
    }
};

}  // namespace fa::wgmma
