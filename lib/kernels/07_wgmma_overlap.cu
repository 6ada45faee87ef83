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
// Instances (ptxas, CUDA 13.0, -O3, sm_90a; 0-byte stack frame, no spills, no LDL/STL):
//   dtype      D    M x N x threads (+128 launched)  stages  smem (B)   regs (entry/producer/consumer)
//   bf16/fp16  128  128 x 128 x 256                  3       230,480    168 / 24 / 240 (uses R0-R184)
//   bf16/fp16  64   192 x 128 x 384                  4       156,776    128 / 32 / 160 (uses R0-R157)

#include <vector>

#include "device/wgmma_attention.cuh"
#include "kernels/kernels.h"

namespace fa {
namespace {

// Grid: x = query tile (reversed: the heaviest causal tiles start first), y = head, z = batch.
// Threads: warpgroup 0 = producer (thread 0 works, the other 127 exit after setmaxnreg.dec),
// warpgroups 1..kNumWG = consumers (consumer warpgroup cw = warpgroup cw + 1 owns rows 64cw..).
//
// Consumer schedule, n = n_tiles (the same for every warpgroup of the CTA). Batch b is the b-th
// token-holding issue of a warpgroup: batch 0 = S(0); batch b = S(b) + PV(b-1) for b = 1..n-1
// (two commit groups, S first); batch n = PV(n-1). Program order of a warpgroup:
//   wait Q; [n > 0:] wait K(0); batch 0; wait_group 0; softmax(0); wait V(0);
//   iteration t = 0..n-2: rescale O by α(t), pack P(t); wait K(t+1); batch t+1;
//       wait_group 1 (S(t+1) landed); softmax(t+1); wait V(t+1);  <- P(t)·V(t) still runs
//       wait_group 0; release tile t (empty[slot(t)]);
//   rescale O by α(n-1), pack P(n-1); batch n; wait_group 0; release tile n-1; epilogue.
// Each batch's operands are waited for before its token wait (K(b) just before, V(b-1) in the
// previous iteration or before the loop), so no warpgroup waits for memory holding the token.
//
// Synchronization, all of it (each wait is satisfied by construction):
//   bar_q (count 1): the producer's arrive.expect_tx + the Q bytes. Waited once, parity 0, by
//              every consumer thread, also when n = 0 (no TMA in flight when the CTA ends).
//   k_full[s], v_full[s] (count 1 each): armed by the producer's arrive.expect_tx for tile t in
//              slot s = t % kStages, completed by its bytes (TMA zero-fills rows past seqlen_k and
//              those bytes count, so a partial last tile completes). Use r = t / kStages is
//              waited with parity r & 1; each consumer waits each K(t), V(t) exactly once, in
//              increasing t, and never for a tile >= n.
//   empty[s]   (count kNWarps = every consumer warp): lane 0 of each consumer warp arrives once
//              per tile t, after wait_group 0 of batch t+1 (K(t) read by batch t, V(t) by batch
//              t+1). The producer, before loading tile t >= kStages, waits for use t/kStages - 1
//              of empty[s] (parity (t/kStages - 1) & 1): all releases of tile t - kStages.
//              Phases cannot be skipped: release of use r+1 needs the tile loaded after use r.
//   sched[w]   (named barrier kSchedBar + w, 256 = 128 syncing + 128 arriving): the issue token,
//              exactly as rung 06. Before batch b, warpgroup w syncs on sched[w]; after issuing
//              it, it arrives on sched[(w+1) % kNumWG], except the last warpgroup's batch n. The
//              last warpgroup also arrives once on sched[0] before its batch 0 (only if n > 0).
//              Every barrier sees n + 1 syncs and n + 1 arrivals (none pending at exit), and one
//              token circulates, so no barrier gets a second arrival before its sync.
//   named barrier 1 + cw (128 threads): consumer warpgroup cw's O rows are in shared memory
//              (fenced for the async proxy) before its elected thread TMA-stores them.
// Deadlock freedom: rank the events E(w, b) = "warpgroup w issues batch b" as (b, w, 0) and
// R(w, u) = "every warp of w released tile u" as (u + 1, w, 1), lexicographically. Each event
// needs only events of smaller rank (wgmma completion and the producer's loads need nothing else
// once their inputs exist):
//   E(w, b)  needs the token: E(w-1, b), or E(kNumWG-1, b-1) for w = 0; program order: R(w, b-2);
//            its operands K(b), V(b-1): the producer loads tiles in order, tile t once
//            R(*, t - kStages) happened, so ranks <= (b - kStages + 1, *, 1) <= (b - 1, *, 1)
//            < (b, w, 0) (kStages >= 2).
//   R(w, u)  needs E(w, u+1) (rank (u+1, w, 0)), the completion of its own wgmmas (unconditional)
//            and V(u+1): R(*, u+1-kStages), rank (u + 2 - kStages, *, 1) <= (u, *, 1) < (u+1, w, 1).
//   The producer's wait before tile t is R(*, t - kStages) itself.
// So no wait is part of a cycle, for any n: 0 (only Q, waited; then only the epilogue barrier),
// 1 (batch 0 = S(0), wait V(0), batch 1 = PV(0); a causal CTA with one key tile is this case),
// 2 (the loop runs once), or more. Partial tiles change only bytes (zero-filled, counted, so
// every full barrier completes) and the mask. All control flow is uniform over the CTA (it
// depends on n only) except the lane-0 arrive, so every __syncwarp and bar sees all its threads.
template <class Tr>
__global__ void __launch_bounds__(Tr::kLaunchThreads, 1)
    wgmma_overlap_fwd_kernel(const FwdParams p, const __grid_constant__ CUtensorMap tm_q,
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
        uint32_t pa[Tr::kKStepsPV * 4];                     // P of the previous tile as wgmma A fragments
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

            int stage = 0;       // slot of tile t
            int next_stage = 1;  // slot of tile t + 1 (kStages >= 2), and its use's parity
            uint32_t next_phase = 0;
            ptx::mbarrier_wait_parity(bar_v0, 0);  // V(0), for batch 1 (or batch n = 1)
#pragma unroll 1
            for (int t = 0; t + 1 < n_tiles; ++t) {
                // Batch t+1: S(t+1) = Q·K(t+1)ᵀ, then O = α(t)·O + P(t)·V(t). V(t) waited.
                wgmma::rescale_o<Tr>(o, rescale);
                wgmma::pack_p<Tr>(pa, s);
                // K(t+1): a spin loop, so it also ends the basic block of the rescale and the pack,
                // which ptxas would otherwise sink below bar.sync onto the token holder's path.
                hopper::warpgroup_fence_operand(o);
                hopper::warpgroup_fence_operand(pa);
                ptx::mbarrier_wait_parity(bar_k0 + 8 * next_stage, next_phase);
                hopper::named_barrier_sync(my_turn, 256);
                hopper::warpgroup_fence_operand(o);
                hopper::warpgroup_fence_operand(pa);
                hopper::warpgroup_fence_operand(s);
                hopper::wgmma_fence();  // orders the rescale of o and the pack of pa before the wgmmas
                wgmma::issue_qk<Tr>(s, desc_q, desc_k, next_stage);
                hopper::wgmma_commit_group();
                wgmma::issue_pv<Tr>(o, pa, desc_v, stage);
                hopper::wgmma_commit_group();
                hopper::named_barrier_arrive(next_turn, 256);  // not the last batch (t + 1 < n)
                hopper::warpgroup_fence_operand(s);
                hopper::wgmma_wait_group<1>();  // S(t+1) has landed; P(t)·V(t) may still run
                hopper::warpgroup_fence_operand(s);
                // Between the waits only s, the row statistics and rescale are written: o and pa
                // belong to the running wgmma until wait_group 0.
                wgmma::softmax_tile<Tr>(s, row_max, row_sum, rescale, p, m_start, (t + 1) * kBlockN, r0, c0);
                // The gap: V(t+1), the other operand of batch t+2 (or of batch n); a spin loop, so
                // wait_group 0 below starts a basic block of its own and cannot be hoisted above
                // the softmax.
                ptx::mbarrier_wait_parity(bar_v0 + 8 * next_stage, next_phase);  // V(t+1)
                int nn_stage = next_stage + 1;
                uint32_t nn_phase = next_phase;
                if (nn_stage == kStages) {
                    nn_stage = 0;
                    nn_phase ^= 1u;
                }
                hopper::warpgroup_fence_operand(o);
                hopper::warpgroup_fence_operand(pa);
                hopper::wgmma_wait_group<0>();
                hopper::warpgroup_fence_operand(o);
                hopper::warpgroup_fence_operand(pa);  // pa stays untouched until the wgmma read it
                release(stage);  // K(t) was read by batch t, V(t) by batch t+1
                stage = next_stage;
                next_stage = nn_stage;
                next_phase = nn_phase;
            }
            // Batch n: O = α(n-1)·O + P(n-1)·V(n-1). V(n-1) waited (before the loop, or in its last
            // gap). No spin loop before bar.sync here: the rescale may sink below it (once per CTA).
            wgmma::rescale_o<Tr>(o, rescale);
            wgmma::pack_p<Tr>(pa, s);
            hopper::warpgroup_fence_operand(o);
            hopper::warpgroup_fence_operand(pa);
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
cudaError_t launch_wgmma_overlap(const FwdParams& p, cudaStream_t stream) {
    return launch_tma_fwd<Tr, Tr::kLaunchThreads>(wgmma_overlap_fwd_kernel<Tr>, p, stream);
}

// num_threads = consumer threads (the registry's tile rule); kLaunchThreads = that + 128.
template <class Tr>
KernelInstance make_overlap_instance() {
    return instance_of<Tr>(reinterpret_cast<const void*>(&wgmma_overlap_fwd_kernel<Tr>), &launch_wgmma_overlap<Tr>);
}

//                                  T              D   WGs  N   stages producer consumer regs
using Bf16D128 = wgmma::WgmmaWsTraits<__nv_bfloat16, 128, 2, 128, 3, 24, 240>;
using Bf16D64 = wgmma::WgmmaWsTraits<__nv_bfloat16, 64, 3, 128, 4, 32, 160>;
using Fp16D128 = wgmma::WgmmaWsTraits<__half, 128, 2, 128, 3, 24, 240>;
using Fp16D64 = wgmma::WgmmaWsTraits<__half, 64, 3, 128, 4, 32, 160>;

}  // namespace

const std::vector<KernelInstance>& wgmma_overlap_instances() {
    static const std::vector<KernelInstance> instances = {
        make_overlap_instance<Bf16D128>(),
        make_overlap_instance<Bf16D64>(),
        make_overlap_instance<Fp16D128>(),
        make_overlap_instance<Fp16D64>(),
    };
    return instances;
}

}  // namespace fa
