// Rung 7 — `wgmma_overlap`: rung 06 (`wgmma_ws`: producer warpgroup, setmaxnreg, ping-pong of the
// consumer warpgroups) plus FA3's intra-warpgroup overlap, i.e. FA3's full recipe. Same tiles,
// TMA maps, ring, register split and TMA-store epilogue as rung 06 (each warpgroup writes its O
// rows into its dead Q rows of shared memory, 128-byte swizzled, one thread TMA-stores them;
// rows >= seqlen_q are clipped by the copy engine).
//
// What changed from rung 06, and why:
//   - Schedule inside a consumer warpgroup. Rung 06 issues one batch, O += P(t)·V(t) then
//     S(t+1) = Q·K(t+1)ᵀ, waits for all of it (wait_group 0), then runs softmax(t+1): its own
//     tensor-core work stops during its softmax, only the other warpgroup's GEMMs fill the gap.
//     Here the batch is S(t+1) first, then O += P(t)·V(t), as two commit groups; the warpgroup
//     waits only for S(t+1) (wait_group 1), computes softmax(t+1) while P(t)·V(t) still runs, and
//     waits for the P·V (wait_group 0) after the softmax. Ping-pong is unchanged: the issue token
//     still orders the warpgroups' batches, so one warpgroup's softmax also overlaps the other's
//     GEMMs. Cost: P(t) (the A fragments) stays live through softmax(t+1): O + S + P registers
//     at once (64 + 64 + 32 at d=128, 32 + 64 + 32 at d=64), inside rung 06's consumer budgets.
//   - Where the full-barrier waits sit. ptxas schedules a wgmma.wait_group (and bar.sync) at the
//     top of its basic block: rung 07's previous version saw wait_group 0 hoisted above the whole
//     softmax, and here the O rescale and P pack sank below the token's bar.sync when they shared
//     a block. Spin loops end basic blocks, so the wait for V(t+1) (needed by batch t+2 anyway)
//     sits between softmax(t+1) and wait_group 0, and the wait for K(t+1) between the rescale /
//     pack and the token's bar.sync. SASS: every MUFU.EX2 of softmax(t+1) lies between
//     WARPGROUP.DEPBAR.LE gsb0 0x1 and gsb0 0x0, and the FMUL / F2FP of the rescale / pack
//     before the loop's BAR.SYNC. Both waits precede the token wait, as in rung 06, and the ring
//     needs only 2 slots (see the kernel's comment); the stage counts stay rung 06's.
//   - Tile rule, threads, tiles, smem: as rung 06. num_threads counts consumer threads (256 at
//     d=128, 384 at d=64); the kernel launches 128 more (the producer warpgroup). d=64 keeps
//     192 x 128 with 3 consumer warpgroups: the overlapped live set (O 32 + S 64 + P 32 fp32/u32
//     + ~25 addresses/statistics) fits the 160-register consumer budget without spills (ptxas
//     below), and three warpgroups keep two softmaxes' worth of work hidden behind the third's
//     GEMMs; 128 x 128 with 2 warpgroups would give 240 registers but 1/3 fewer rows per K/V
//     load (more L2 traffic per FLOP) for no register need we have.
//
// Prediction (H100 SXM, bf16, B·H·S = 2·16·8192): +3-6% over rung 06. FA3's ablation (paper,
// Table 2, d=128) loses 661 -> 582 TFLOP/s without GEMM-softmax pipelining, but rung 06 already
// reaches 659 (its one-batch P·V + S keeps the tensor core fed through the ping-pong), so far less
// is left to win here; the ceiling is cuDNN's 690 / 618. Estimate d=128 ~680-700 non-causal,
// ~610-630 causal; d=64 ~550-565, ~500-515 causal.
//
// History (H100 SXM, bf16, B=2, S=8192, TFLOP/s; cuDNN on the same GPU: d128 690 / 618 causal,
// d64 501 / 436):
//   - rung 05's kernel with the overlapped schedule, before the split into rungs 05/06/07:
//     d128 636 non-causal / 603 causal; d64 519 / 463.
//   - previous rung 07 (rung 05 + intra-warpgroup overlap, no producer warpgroup, no ping-pong):
//     d128 561 / 563 causal; d64 490 / 453 (rung 05 577 / 503, 482 / 429; rung 06 659 / 593,
//     533 / 485).
//
// Measured (results/nvidia-h100-80gb-hbm3/ladder.csv, H100 SXM, bf16, TFLOP/s, cuDNN in the same sweep):
// d=128 4x16x8192 670 non-causal (98 % of cuDNN's 686), 635 causal (101 %); 1x16x16384 671 (113 %)
// / 670 (105 %); d=64 2x32x8192 551 (110 %) / 489 (105 %), 1x32x16384 560 (116 %) / 520 (111 %).
// Over rung 6: +0.5-1 % at d=128, +1-5 % at d=64 — less than FA3's ablation (+12 %) because rung
// 6's ping-pong already hides most of the softmax. ncu: tensor pipe 71 % busy.
//
// The kernel (barriers, role split, producer, consumer set-up, epilogue) is rung 6's:
// device/wgmma_ws_kernel.cuh. This file holds what is rung 7's own: the consumer schedule and
// why it cannot deadlock.
//
// Instances (ptxas, CUDA 13.0, -O3, sm_90a; 0-byte stack frame, no spills, no LDL/STL):
//   dtype      D    M x N x threads (+128 launched)  stages  smem (B)   regs (entry/producer/consumer)
//   bf16/fp16  128  128 x 128 x 256                  3       230,480    168 / 24 / 240 (uses R0-R184)
//   bf16/fp16  64   192 x 128 x 384                  4       156,776    128 / 32 / 160 (uses R0-R157)

#include <cstdint>
#include <vector>

#include "device/block_info.cuh"
#include "device/hopper.cuh"
#include "device/ptx.cuh"
#include "device/wgmma_steps.cuh"
#include "device/wgmma_traits.cuh"
#include "device/wgmma_ws_kernel.cuh"
#include "kernels/kernels.h"

namespace fa {
namespace {

// Ping-pong with intra-warpgroup overlap. Batch b is the b-th token-holding issue of a warpgroup:
// batch 0 = S(0); batch b = S(b) + PV(b-1) for b = 1..n-1 (two commit groups, S first); batch n =
// PV(n-1). Program order of a warpgroup (n >= 1: at n = 0 the kernel skips all of it; batch 0
// and batch n are the kernel's first_batch and last_batch, the rest is run() below):
//   wait K(0); batch 0; wait_group 0; softmax(0); wait V(0);
//   iteration t = 0..n-2: rescale O by α(t), pack P(t); wait K(t+1); batch t+1;
//       wait_group 1 (S(t+1) landed); softmax(t+1); wait V(t+1);  <- P(t)·V(t) still runs
//       wait_group 0; release tile t (empty[slot(t)]: K(t) read by batch t, V(t) by batch t+1);
//   rescale O by α(n-1), pack P(n-1); batch n; wait_group 0; release tile n-1.
// Each batch's operands are waited for before its token wait (K(b) just before, V(b-1) in the
// previous iteration or before the loop), so no warpgroup waits for memory holding the token.
// Deadlock freedom: rank the events E(w, b) = "warpgroup w issues batch b" as (b, w, 0) and
// R(w, u) = "every warp of w released tile u" as (u + 1, w, 1), lexicographically. Each event
// needs only events of smaller rank (wgmma completion and the producer's loads need nothing else
// once their inputs exist):
//   E(w, b)  needs the token: E(w-1, b), or E(kConsumerWarpgroups-1, b-1) for w = 0; program
//            order: R(w, b-2); its operands K(b), V(b-1): the producer loads tiles in order, tile
//            t once R(*, t - kStages) happened, so ranks <= (b - kStages + 1, *, 1) <=
//            (b - 1, *, 1) < (b, w, 0) (kStages >= 2).
//   R(w, u)  needs E(w, u+1) (rank (u+1, w, 0)), the completion of its own wgmmas (unconditional)
//            and V(u+1): R(*, u+1-kStages), rank (u + 2 - kStages, *, 1) <= (u, *, 1) < (u+1, w, 1).
//   The producer's wait before tile t is R(*, t - kStages) itself.
// So no wait is part of a cycle, for any n: 0 (only Q, waited; then only the epilogue barrier),
// 1 (batch 0 = S(0), wait V(0), batch 1 = PV(0); a causal CTA with one key tile is this case),
// 2 (the loop runs once), or more. Partial tiles change only bytes (zero-filled, counted, so
// every full barrier completes) and the mask.
struct OverlapSchedule {
    template <class Tr>
    static __device__ __forceinline__ int run(const wgmma::WsConsumer<Tr>& c, const wgmma::ConsumerRegs<Tr>& r) {
        ptx::mbarrier_wait_parity(c.sm.bar_v0, 0);  // V(0), for batch 1 (or batch n = 1)
        const auto& [o, row_max, row_sum, s, pa, rescale] = r;
        int stage = 0;       // slot of tile t
        int next_stage = 1;  // slot of tile t + 1 (kStages >= 2), and its use's parity
        uint32_t next_phase = 0;
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
            c.release(stage);  // K(t) was read by batch t, V(t) by batch t+1
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

}  // namespace

const std::vector<KernelInstance>& wgmma_overlap_instances() { return wgmma::ws_instances<OverlapSchedule>(); }

}  // namespace fa
