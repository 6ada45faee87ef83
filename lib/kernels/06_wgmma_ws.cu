// Rung 6 — `wgmma_ws`: rung 05 (`wgmma_tma`) plus warp specialization and ping-pong scheduling of
// the consumer warpgroups (FA3 §3.1). Same tiles, same TMA maps, same wgmma steps, same plain
// schedule inside a warpgroup (softmax never overlaps the warpgroup's own GEMMs; that is rung 07).
//
// What changed from rung 05, and why:
//   - Roles. A producer warpgroup (warpgroup 0; one elected thread) issues every TMA load: Q, then
//     each K/V tile into its ring slot once the slot's "empty" mbarrier says all consumer warps
//     released it. Rung 05 has the last releasing consumer warp issue the refill, which puts a
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
//
// Instances (ptxas, CUDA 13.0, -O3, sm_90a; 0-byte stack frame, no spills, no LDL/STL):
//   dtype      D    M x N x threads (+128 launched)  stages  smem (B)   regs (entry/producer/consumer)
//   bf16/fp16  128  128 x 128 x 256                  3       230,480    168 / 24 / 240 (uses R0-R183)
//   bf16/fp16  64   192 x 128 x 384                  4       156,776    128 / 32 / 160 (uses R0-R151)

#include <vector>

#include "device/wgmma_attention.cuh"
#include "kernels/kernels.h"

namespace fa {
namespace {

// Grid: x = query tile (reversed: the heaviest causal tiles start first), y = head, z = batch.
// Threads: warpgroup 0 = producer (only thread 0 works; the other 127 exit after setmaxnreg),
// warpgroups 1..kNumWG = consumers (consumer warpgroup cw = warpgroup cw + 1 owns rows 64cw..).
// Synchronization, all of it (each wait is satisfied by construction; n = n_tiles, the same for
// every warpgroup of the CTA):
//   bar_q (count 1): the producer's arrive.expect_tx + the Q bytes. Waited once, parity 0, by
//              every consumer thread, also when n = 0 (no TMA in flight when the CTA ends).
//   k_full[s], v_full[s] (count 1 each): armed by the producer's arrive.expect_tx for tile t in
//              slot s = t % kStages, completed by its bytes (TMA zero-fills rows past seqlen_k,
//              and those bytes count too, so a partial last tile still completes). Use
//              r = t / kStages is waited with parity r & 1.
//   empty[s]   (count kNWarps = every consumer warp): lane 0 of each consumer warp arrives when
//              the warp's wgmmas reading tile t (K(t) and V(t)) have completed. The producer,
//              before loading tile t >= kStages, waits for use t / kStages - 1 of empty[s]
//              (parity (t / kStages - 1) & 1), i.e. for all releases of tile t - kStages.
//              Phases cannot be skipped: release of use r+1 needs the tile the producer loads
//              after observing use r.
//   sched[w]   (named barrier kSchedBar + w, 256 = 128 waiting + 128 arriving): the issue token.
//              A consumer warpgroup issues n + 1 batches: S(0); PV(t-1)+S(t) for t = 1..n-1;
//              PV(n-1). Before batch b it waits on sched[w]; after issuing it arrives on
//              sched[(w+1) % kNumWG], except the last warpgroup's last batch. The last warpgroup
//              also arrives once on sched[0] before its first batch (only if n > 0). So every
//              barrier sees exactly n + 1 syncs and n + 1 arrivals, and nothing is pending at
//              exit; exactly one token circulates, so no barrier ever gets a second arrival
//              before its sync.
//   Deadlock freedom: batch b of warpgroup w needs (i) the token, i.e. batch b of w - 1 (batch
//              b - 1 of the last warpgroup for w = 0) issued, which depends only on earlier
//              batches; (ii) K(b) and V(b-1) loaded, i.e. releases of tiles <= b - kStages
//              <= b - 2 by every warp, done right after batch b - 1 completed (a wgmma batch
//              completes without waiting for anything else); the producer itself waits only for
//              those releases. Full-barrier waits come before the token wait, so a warpgroup
//              never holds the token while waiting for memory.
//   named barrier 1 + cw (128 threads): a consumer warpgroup's O rows are in shared memory before
//              its elected thread TMA-stores them.
template <class Tr>
__global__ void __launch_bounds__(Tr::kLaunchThreads, 1)
    wgmma_ws_fwd_kernel(const FwdParams p, const __grid_constant__ CUtensorMap tm_q,
                        const __grid_constant__ CUtensorMap tm_k, const __grid_constant__ CUtensorMap tm_v,
                        const __grid_constant__ CUtensorMap tm_o) {
#if FA_HOPPER_ENABLED
    constexpr int kBlockM = Tr::kBlockM;
    constexpr int kBlockN = Tr::kBlockN;
    constexpr int kStages = Tr::kStages;
    constexpr int kNumWG = Tr::kNumWG;

    extern __shared__ unsigned char smem_raw[];
    const wgmma::CtaSmem<Tr> sm(smem_raw);
    const uint32_t sQ = sm.q, sK = sm.k, sV = sm.v, bar_q = sm.bar_q, bar_k0 = sm.bar_k0, bar_v0 = sm.bar_v0;
    const uint32_t bar_e0 = sm.base + Tr::kOffEmpty;

    const int m_start = (gridDim.x - 1 - blockIdx.x) * kBlockM;
    const int head = blockIdx.y, batch = blockIdx.z;
    const int n_tiles = num_key_tiles(p, m_start, kBlockM, kBlockN);
    const int tid = threadIdx.x;

    if (tid == 0) {
        sm.init_full_barriers();
#pragma unroll
        for (int s = 0; s < kStages; ++s) ptx::mbarrier_init(bar_e0 + 8 * s, Tr::kNWarps);
        hopper::fence_mbarrier_init();
    }
    __syncthreads();  // the last CTA-wide barrier: the producer's idle threads exit below

    if (tid < 128) {
        // ---- Producer warpgroup ----
        hopper::setmaxnreg_dec<Tr::kProducerRegs>();
        if (tid == 0) wgmma::produce_q_and_kv<Tr>(sm, bar_e0, &tm_q, &tm_k, &tm_v, m_start, head, batch, n_tiles);
    } else {
        // ---- Consumer warpgroups: 64 query rows each ----
        hopper::setmaxnreg_inc<Tr::kConsumerRegs>();
        const int ctid = tid - 128;
        const int cw = ctid / 128;  // consumer warpgroup
        const int warp = (ctid / 32) % 4;
        const int lane = ctid % 32;
        const int r0 = cw * 64 + warp * 16 + lane / 4;  // this thread's rows (in the CTA tile): r0, r0 + 8
        const int c0 = 2 * (lane % 4);                  // its column offset inside each 8-column group
        const uint32_t my_turn = Tr::kSchedBar + cw;
        const uint32_t next_turn = Tr::kSchedBar + (cw + 1 == kNumWG ? 0 : cw + 1);
        const bool last_wg = cw == kNumWG - 1;

        // Descriptor bases: as in rung 05 (Q K-major at this warpgroup's rows, K K-major, V MN-major).
        const uint64_t desc_q = hopper::make_smem_desc_sw128(sQ + cw * 64 * 128, 16, 1024);
        const uint64_t desc_k = hopper::make_smem_desc_sw128(sK, 16, 1024);
        const uint64_t desc_v = hopper::make_smem_desc_sw128(sV, Tr::kKVChunkBytes, 1024);

        float o[Tr::kAccO];
#pragma unroll
        for (int i = 0; i < Tr::kAccO; ++i) o[i] = 0.0f;
        float row_max[2] = {-CUDART_INF_F, -CUDART_INF_F};  // running max of s·scale_log2
        float row_sum[2] = {0.0f, 0.0f};                    // this thread's partial sums (4 lanes per row)
        float s[Tr::kAccS];                                 // S of the newest tile, then its P (fp32)
        uint32_t pa[Tr::kKStepsPV * 4];                     // P as wgmma A fragments
        float rescale[2];

        // Tile in ring slot `slot` fully read by this warp's wgmmas (waited): one arrival per warp.
        auto release = [&](int slot) {
            __syncwarp();
            if (lane == 0) ptx::mbarrier_arrive(bar_e0 + 8 * slot);
        };

        ptx::mbarrier_wait_parity(bar_q, 0);

        if (n_tiles > 0) {
            // Batch 0: S(0). The last warpgroup first hands the token to warpgroup 0.
            if (last_wg) hopper::named_barrier_arrive(Tr::kSchedBar, 256);
            ptx::mbarrier_wait_parity(bar_k0, 0);
            hopper::named_barrier_sync(my_turn, 256);
            hopper::warpgroup_fence_operand(s);
            hopper::wgmma_fence();
            wgmma::issue_qk<Tr>(s, desc_q, desc_k, 0);
            hopper::wgmma_commit_group();
            hopper::named_barrier_arrive(next_turn, 256);  // batch 0 is never the last (n + 1 >= 2)
            hopper::warpgroup_fence_operand(s);
            hopper::wgmma_wait_group<0>();
            hopper::warpgroup_fence_operand(s);
            wgmma::softmax_tile<Tr>(s, row_max, row_sum, rescale, p, m_start, 0, r0, c0);

            int stage = 0;  // slot of tile t
            uint32_t phase = 0;
            // Batches 1..n-1: O = α(t)·O + P(t)·V(t), then S(t+1), one commit group.
#pragma unroll 1
            for (int t = 0; t + 1 < n_tiles; ++t) {
                int next_stage = stage + 1;
                uint32_t next_phase = phase;
                if (next_stage == kStages) {
                    next_stage = 0;
                    next_phase ^= 1u;
                }
                wgmma::rescale_o<Tr>(o, rescale);
                wgmma::pack_p<Tr>(pa, s);
                ptx::mbarrier_wait_parity(bar_v0 + 8 * stage, phase);            // V(t)
                ptx::mbarrier_wait_parity(bar_k0 + 8 * next_stage, next_phase);  // K(t+1)
                hopper::named_barrier_sync(my_turn, 256);
                hopper::warpgroup_fence_operand(o);
                hopper::warpgroup_fence_operand(pa);
                hopper::warpgroup_fence_operand(s);
                hopper::wgmma_fence();  // orders the rescale of o and the pack of pa before the wgmmas
                wgmma::issue_pv<Tr>(o, pa, desc_v, stage);
                wgmma::issue_qk<Tr>(s, desc_q, desc_k, next_stage);
                hopper::wgmma_commit_group();
                hopper::named_barrier_arrive(next_turn, 256);  // not the last batch (t + 1 < n)
                hopper::warpgroup_fence_operand(o);
                hopper::warpgroup_fence_operand(pa);
                hopper::warpgroup_fence_operand(s);
                hopper::wgmma_wait_group<0>();
                hopper::warpgroup_fence_operand(o);
                hopper::warpgroup_fence_operand(pa);
                hopper::warpgroup_fence_operand(s);
                release(stage);  // K(t) was read by batch t, V(t) by this one
                stage = next_stage;
                phase = next_phase;
                wgmma::softmax_tile<Tr>(s, row_max, row_sum, rescale, p, m_start, (t + 1) * kBlockN, r0, c0);
            }
            // Batch n: O = α(n-1)·O + P(n-1)·V(n-1).
            wgmma::rescale_o<Tr>(o, rescale);
            wgmma::pack_p<Tr>(pa, s);
            ptx::mbarrier_wait_parity(bar_v0 + 8 * stage, phase);
            hopper::named_barrier_sync(my_turn, 256);
            hopper::warpgroup_fence_operand(o);
            hopper::warpgroup_fence_operand(pa);
            hopper::wgmma_fence();
            wgmma::issue_pv<Tr>(o, pa, desc_v, stage);
            hopper::wgmma_commit_group();
            if (!last_wg) hopper::named_barrier_arrive(next_turn, 256);  // the token retires
            hopper::warpgroup_fence_operand(o);
            hopper::wgmma_wait_group<0>();
            hopper::warpgroup_fence_operand(o);
            hopper::warpgroup_fence_operand(pa);
            release(stage);  // keeps every empty[] phase count exact; nobody waits for it
        }

        // ---- Epilogue: as rung 05 (this warpgroup's Q rows are dead: its wgmmas all completed) ----
        wgmma::store_o_tile<Tr>(o, row_sum, sQ, cw, r0, c0, ctid % 128 == 0, 1 + cw, &tm_o, m_start, head, batch,
                                p.seqlen_q);
    }
#endif  // FA_HOPPER_ENABLED
}

template <class Tr>
cudaError_t launch_wgmma_ws(const FwdParams& p, cudaStream_t stream) {
    return launch_tma_fwd<Tr, Tr::kLaunchThreads>(wgmma_ws_fwd_kernel<Tr>, p, stream);
}

// num_threads = consumer threads (the registry's tile rule); kLaunchThreads = that + 128.
template <class Tr>
KernelInstance make_ws_instance() {
    return instance_of<Tr>(reinterpret_cast<const void*>(&wgmma_ws_fwd_kernel<Tr>), &launch_wgmma_ws<Tr>);
}

//                             T              D   WGs  N   stages producer consumer regs
using Bf16D128 = wgmma::WgmmaWsTraits<__nv_bfloat16, 128, 2, 128, 3, 24, 240>;
using Bf16D64 = wgmma::WgmmaWsTraits<__nv_bfloat16, 64, 3, 128, 4, 32, 160>;
using Fp16D128 = wgmma::WgmmaWsTraits<__half, 128, 2, 128, 3, 24, 240>;
using Fp16D64 = wgmma::WgmmaWsTraits<__half, 64, 3, 128, 4, 32, 160>;

}  // namespace

const std::vector<KernelInstance>& wgmma_ws_instances() {
    static const std::vector<KernelInstance> instances = {
        make_ws_instance<Bf16D128>(),
        make_ws_instance<Bf16D64>(),
        make_ws_instance<Fp16D128>(),
        make_ws_instance<Fp16D64>(),
    };
    return instances;
}

}  // namespace fa
