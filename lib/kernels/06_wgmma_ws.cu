// Rung 6 — `wgmma_ws`: rung 05 (`wgmma_tma`) plus warp specialization and ping-pong scheduling of
// the consumer warpgroups (FA3 §3.1). Same tiles, same TMA maps, same wgmma steps, same plain
// schedule inside a warpgroup (softmax never overlaps the warpgroup's own GEMMs; that is rung 07).
//
// What changed from rung 05, and why:
//   - Roles. A producer warpgroup (warpgroup 0; one elected thread) issues every TMA load: Q, then
//     each K and V tile into its ring slot once the slot's "empty" mbarrier (one for K, one for V,
//     since session 8) says all consumer warps released it. Rung 05 has the last releasing consumer warp issue the refill, which puts a
//     shared-memory atomic and the TMA issue on the consumers' critical path; here consumers only
//     arrive on an mbarrier and the load for tile t + kStages leaves as soon as the slot is free.
//   - Registers. The producer warpgroup needs ~20 registers, the consumers all they can get:
//     __launch_bounds__(threads, 1) caps every warp at 65536 / threads at entry (168 at 384
//     threads, 128 at 512), then setmaxnreg.dec (producer: 24 at d=128, 32 at d=64) hands its
//     share to the consumers' setmaxnreg.inc (240 at d=128, 160 at d=64). Each role is one branch
//     of a single if/else so ptxas allocates each branch under its own budget.
//   - Ping-pong. Per iteration a consumer warpgroup issues one batch of GEMMs, O += P(t)·V(t)
//     followed by S(t+1) = Q·K(t+1)ᵀ (they touch disjoint registers: P was packed from S(t)
//     before S(t+1) overwrites S), waits for it, then runs softmax(t+1). The batch is issued
//     while holding a token that the consumer warpgroups pass round-robin through named
//     barriers (warpgroup w waits on barrier kSchedBar + w, then arrives on its successor's), so
//     the tensor core runs warpgroup 0's batch, then warpgroup 1's, ...: while warpgroup 1's
//     GEMMs run, warpgroup 0 does its softmax, and vice versa. In rung 05 the warp schedulers
//     interleave the warpgroups freely and the two softmaxes often collide.
//   - Tile rule: the registry counts consumer threads in num_threads (256 at d=128, 384 at d=64);
//     the kernel launches 128 more (the producer warpgroup), as rung 04 counts its producer warp.
//
// Prediction (H100 SXM, bf16, B·H·S = 2·16·8192): FA3's ablation puts "+ warp specialization and
// ping-pong" at ~620 TFLOP/s for d=128 (from ~540-570 for wgmma + TMA). Estimate 560-620 at
// d=128 (+5-15% over rung 05), d=64 420-480; causal ~10% lower at S=8192.
//
// Measured (results/nvidia-h100-80gb-hbm3/ladder.csv, H100 SXM, bf16, TFLOP/s, cuDNN in the same sweep):
// d=128 4x16x8192 666 non-causal (97 % of cuDNN's 686, +14 % over rung 5), 630 causal (100 %);
// d=64 2x32x8192 542 (108 %) / 483 (104 %). ncu at 4x16x4096x128: tensor pipe 70 % busy (rung 5:
// 60 %).
// d=256 (session 8: the 80-key tile, K and V released separately, wgmma_ws_kernel.cuh): 2x16x8192
// 514 -> 668 non-causal in one call; 667 / 674 (causal) in session8/fa2/ladder.csv.
//
// The kernel (barriers, role split, producer, consumer set-up, epilogue) is rung 7's too:
// device/wgmma_ws_kernel.cuh, with the tiles both rungs run. This file holds what is rung 6's
// own: the consumer schedule and why it cannot deadlock.
//
// Instances (ptxas, CUDA 13.0, -O3, sm_90a; 0-byte stack frame, no spills, no LDL/STL):
//   dtype      D    M x N x threads (+128 launched)  stages  smem (B)   regs (entry/producer/consumer)
//   bf16/fp16  128  128 x 128 x 256                  3       230,480    168 / 24 / 240 (uses R0-R183)
//   bf16/fp16  64   192 x 128 x 384                  4       156,776    128 / 32 / 160 (uses R0-R151)
//   bf16/fp16  256  128 x 80 x 256                   2       230,472    168 / 24 / 240

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

// Ping-pong, plain inside a warpgroup. Batch b is the b-th token-holding issue of a warpgroup:
// batch 0 = S(0); batch b = PV(b-1) + S(b) for b = 1..n-1 (one commit group); batch n = PV(n-1).
// Program order of a warpgroup (n >= 1: at n = 0 the kernel skips all of it; batch 0 and
// batch n are the kernel's first_batch and last_batch, the rest is run() below):
//   wait K(0); batch 0; wait_group 0; release K(0); softmax(0);
//   iteration t = 0..n-2: rescale O by α(t), pack P(t); wait V(t), K(t+1); batch t+1;
//       wait_group 0; release V(t) and K(t+1) (both read by batch t+1); softmax(t+1);
//   rescale O by α(n-1), pack P(n-1); wait V(n-1); batch n; wait_group 0; release V(n-1).
// Deadlock freedom: batch b of warpgroup w needs (i) the token, i.e. batch b of w - 1 (batch
// b - 1 of the last warpgroup for w = 0) issued, which depends only on earlier batches; (ii) K(b)
// and V(b-1) loaded, i.e. the releases of K(b - kStages) and V(b - 1 - kStages) by every warp,
// done right after batch b - kStages <= b - 2 completed (a wgmma batch completes without waiting
// for anything else); the producer itself waits only for those releases, in the order K(b),
// V(b-1). Full-barrier waits come before the token wait, so a warpgroup never holds the token
// while waiting for memory.
struct PingPongSchedule {
    template <class Tr>
    static __device__ __forceinline__ int run(const wgmma::WsConsumer<Tr>& c, const wgmma::ConsumerRegs<Tr>& r) {
        const auto& [o, row_max, row_sum, s, pa, rescale] = r;
        int stage = wgmma::ring_slot<Tr>(c.ring0);  // slot of tile t
        uint32_t phase = wgmma::ring_parity<Tr>(c.ring0);
        // Batches 1..n-1: O = α(t)·O + P(t)·V(t), then S(t+1), one commit group.
#pragma unroll 1
        for (int t = 0; t + 1 < c.n_tiles; ++t) {
            int next_stage = stage + 1;
            uint32_t next_phase = phase;
            if (next_stage == Tr::kStages) {
                next_stage = 0;
                next_phase ^= 1u;
            }
            wgmma::rescale_o<Tr>(o, rescale);
            wgmma::pack_p<Tr>(pa, s);
            ptx::mbarrier_wait_parity(c.sm.bar_v0 + 8 * stage, phase);            // V(t)
            ptx::mbarrier_wait_parity(c.sm.bar_k0 + 8 * next_stage, next_phase);  // K(t+1)
            c.wait_turn();
            hopper::warpgroup_fence_operand(o);
            hopper::warpgroup_fence_operand(pa);
            hopper::warpgroup_fence_operand(s);
            hopper::wgmma_fence();  // orders the rescale of o and the pack of pa before the wgmmas
            wgmma::issue_pv<Tr>(o, pa, c.desc.v, stage);
            wgmma::issue_qk<Tr>(s, c.desc.q, c.desc.k, next_stage);
            hopper::wgmma_commit_group();
            c.pass_turn();  // not the last batch (t + 1 < n)
            hopper::warpgroup_fence_operand(o);
            hopper::warpgroup_fence_operand(pa);
            hopper::warpgroup_fence_operand(s);
            hopper::wgmma_wait_group<0>();
            hopper::warpgroup_fence_operand(o);
            hopper::warpgroup_fence_operand(pa);
            hopper::warpgroup_fence_operand(s);
            c.release_v(stage);       // V(t) and K(t+1): read by this batch
            c.release_k(next_stage);
            stage = next_stage;
            phase = next_phase;
            wgmma::softmax_tile<Tr>(s, row_max, row_sum, rescale, c.p, c.blk, t + 1, c);
        }
        // Batch n (last_batch) is O = α(n-1)·O + P(n-1)·V(n-1): its operands, ready before the token.
        wgmma::rescale_o<Tr>(o, rescale);
        wgmma::pack_p<Tr>(pa, s);
        ptx::mbarrier_wait_parity(c.sm.bar_v0 + 8 * stage, phase);
        return stage;
    }
};

}  // namespace

const std::vector<KernelInstance>& wgmma_ws_instances() {
    static const std::vector<KernelInstance> instances = wgmma::ws_rows<PingPongSchedule>();
    return instances;
}

}  // namespace fa
