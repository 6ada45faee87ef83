// Rung 5 — `wgmma_tma`: the first Hopper rung. Tensor cores through wgmma (warpgroup-wide,
// asynchronous, operands straight from shared memory), tiles through TMA (one thread moves a whole
// tile, swizzled on the way), hand-off through mbarrier transaction counts.
//
// What changed from rung 4 (`warp_specialized`), and why:
//   - MMA. Rung 4 feeds mma.sync.m16n8k16 from registers that ldmatrix filled: per k16 step every
//     warp reads its A and B fragments through the register file, and the instruction stream
//     (ldmatrix + HMMA + address math) is what bounds it (~1500-1900 FLOP/clk/SM). Here each
//     consumer warpgroup (4 warps, 64 query rows) issues wgmma.m64nNk16: S = Q·Kᵀ reads Q and K
//     from shared memory through descriptors (no ldmatrix at all), O += P·V takes P from
//     registers (the S accumulator, converted in place: FA3's trick, the fp32 accumulator layout
//     pairs up exactly into the A-operand layout) and V from shared memory, MN-major (imm-trans-b).
//     One instruction does 64·N·16 MACs; the tensor core reads operands itself, so the SM's issue
//     slots are left to the softmax.
//   - Data movement. A K or V tile (kBlockN x head_dim) is one or two cp.async.bulk.tensor.4d
//     issued by one thread, 128-byte swizzled by the copy engine exactly as wgmma's descriptors
//     expect; the 4-D tensor map (head_dim, seqlen, heads, batch) built from FwdParams' strides
//     serves bshd and bhsd alike and zero-fills rows past seqlen (no bounds code in the kernel).
//     Completion is counted in bytes on a "full" mbarrier per ring slot (arrive.expect_tx).
//     O leaves the same way: each warpgroup writes its rows into its (now dead) Q rows of shared
//     memory in the swizzled layout and one thread TMA-stores them; rows >= seqlen_q are clipped
//     by the copy engine.
//   - Roles. No dedicated producer warp or warpgroup: with TMA, "producing" a tile is ~6
//     instructions of one thread, so the refill of a ring slot is issued by whichever consumer warp
//     releases the slot last (a shared-memory atomic counter per slot; nobody ever waits for an
//     empty slot). This keeps the tile rule (2 · m_block_size) % num_threads == 0 (a producer
//     warpgroup would make it unsatisfiable: 2·64·C vs 128·(C+1)) and leaves the whole register
//     file to the consumers: 2 warpgroups x 128 threads may use 255 registers each with no
//     setmaxnreg (65536 / 256), which is what head_dim 128 needs (O 64 + S 64 + P 32 fp32/b32).
//     head_dim 64 runs 3 consumer warpgroups (192 query rows, 168 registers each), like FA3.
//   - Ring depth: as deep as shared memory allows (1 CTA/SM is forced by registers anyway):
//     d=128: Q 32 KB + 3 x (K 32 KB + V 32 KB); d=64: Q 24 KB + 4 x (16 + 16) KB.
//   - Schedule inside a warpgroup: plain. Iteration t waits for K(t), issues S(t) = Q·K(t)ᵀ and
//     waits for it, runs the softmax, issues O += P(t)·V(t) and waits for it. While one warpgroup
//     does its softmax its tensor core is idle unless the other warpgroup happens to have a GEMM
//     in flight: the warp schedulers interleave the two warpgroups freely, which hides part of
//     the softmax, but nothing arranges it.
//
// Not here yet: rung 06 (`wgmma_ws`) adds a producer warpgroup with setmaxnreg and ping-pong
// scheduling of the consumer warpgroups (named barriers so one warpgroup's softmax runs while the
// other's GEMMs do); rung 07 (`wgmma_overlap`) overlaps each warpgroup's softmax with its own
// P·V (FA3's intra-warpgroup pipelining).
//
// The kernel is below; the tile (device/wgmma_traits.cuh) and the per-tile steps
// (device/wgmma_steps.cuh) are shared with rungs 06 and 07.
//
// Prediction (H100 SXM, bf16, B·H·S = 2·16·8192, non-causal): per 128-key tile a warpgroup issues
// 2·64·128·d MACs of wgmma (d=128: 4.2 MFLOP, ~0.56 µs of its SM's tensor core at ~990 TFLOP/s
// dense / 132 SMs) and ~64 exp2 + ~250 other instructions per thread of softmax (8192 exp2 at 16
// per clock per SM: ~0.28 µs). With no schedule between the warpgroups, the two softmaxes hide
// behind each other's GEMMs only by chance: FA3's ablation measures ~540-570 TFLOP/s for
// "wgmma + TMA" alone at d=128; estimate 480-570 here (d=64 ~360-430: half the GEMM work per
// exp2). Causal ~10-15% lower at S=8192.
//
// Measured (results/nvidia-h100-80gb-hbm3/ladder.csv, H100 SXM, bf16, TFLOP/s, cuDNN = PyTorch SDPA
// CUDNN_ATTENTION in the same sweep): d=128 4x16x8192 585 non-causal (85 % of cuDNN's 686), 565
// causal (90 %); d=64 2x32x8192 480 (96 % of 500) / 428 (92 %). ncu at 4x16x4096x128: tensor pipe
// 60 % busy, 971 shared-memory bank conflicts in all (mma.sync rung: 198 k).
// d=256 (session 8): the 80-key tile instead of 64 keys (wgmma_traits.cuh says why), 582 -> 609
// and 566 -> 613 TFLOP/s at 2x16x8192x256 non-causal in two rounds of one call; 600 / 600
// (non-causal / causal) in session8/fa2/ladder.csv, where rungs 6-9 reach 667-747.
//
// Instances (ptxas, CUDA 13.0, -O3, sm_90a; 0-byte stack frame, no spills, no LDL/STL):
//   dtype      D    M x N x threads   stages  smem (B)   regs   CTAs/SM
//   bf16/fp16  128  128 x 128 x 256   3       230,468    179    1 (smem)
//   bf16/fp16  64   192 x 128 x 384   4       156,760    150    1 (smem, registers)
//   bf16/fp16  256  128 x 80 x 256    2       230,448    217    1 (smem)

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <vector>

#include "device/block_info.cuh"
#include "device/hopper.cuh"
#include "device/launch.cuh"
#include "device/ptx.cuh"
#include "device/wgmma_steps.cuh"
#include "device/wgmma_traits.cuh"
#include "kernels/kernels.h"

namespace fa {
namespace {

// Rung 5's release state after the full barriers: one u32 counter per ring slot (sm.release), as
// no producer warpgroup exists to wait on an "empty" barrier; the last warp to release a slot
// refills it.
template <class Config>
struct WgmmaTmaTraits : wgmma::TileTraits<Config> {
    using Tile = wgmma::TileTraits<Config>;
    static constexpr int kSmemBytes = Tile::kOffRelease + 4 * Tile::kStages + Tile::kAlignSlack;
    static_assert(kSmemBytes <= 227 * 1024, "fits sm_90's 227 KiB opt-in shared memory per block");
};

// Grid and coordinates: BlockCoords (x = query tile, heaviest causal tiles first; y = head;
// z = batch). Every warpgroup computes (64 query rows each); thread 0 also issues the loads of Q
// and of the first kStages key tiles, and the last warp to release a slot issues its refill.
// Synchronization, all of it (each wait is satisfied by construction; n = the CTA's key tiles):
//   bar_q      (count 1): thread 0's arrive.expect_tx + the Q bytes. Waited once, parity 0, by all.
//   k_full[s], v_full[s] (count 1 each): arm = arrive.expect_tx by the thread issuing tile t into
//              slot s = t % kStages, complete = its bytes. Use r = t / kStages of the slot is
//              waited with parity r & 1. Tiles 0..min(kStages, n)-1 are issued by thread 0 before
//              the loop; tile t >= kStages is issued when every warp has released tile
//              t - kStages. Every warp releases tile i at the end of iteration i, and iteration i
//              waits for K(i) and V(i), whose loads need the releases of tile i - kStages <= i - 2
//              (kStages >= 2, asserted in TileTraits): iteration i of any warp depends only on
//              iterations < i of all warps, so no cycle and no deadlock, for any n (0 included:
//              then only Q is loaded, and it is still waited for, so no TMA is in flight when the
//              CTA ends).
//   counter[s] (u32): one atom.add per warp per use of slot s; the warp that sees old value
//              ≡ kConsumerWarps - 1 (mod kConsumerWarps) is the last releaser of that use and
//              refills the slot. Uses of a slot cannot interleave: use r+1's tile is loaded only
//              after use r's last arrival. acq_rel orders every warp's completed wgmma reads of the
//              slot (wait_group returned before its arrival) before the refill's TMA writes.
//   named barrier kEpilogueBar + wg (128 threads): a warpgroup's O rows are in shared memory (and
//              fenced for the async proxy) before its first thread TMA-stores them.
template <class Tr>
__global__ void __launch_bounds__(Tr::kNThreads, 1)
    wgmma_tma_fwd_kernel(const FwdParams p, const __grid_constant__ CUtensorMap tm_q,
                         const __grid_constant__ CUtensorMap tm_k, const __grid_constant__ CUtensorMap tm_v,
                         const __grid_constant__ CUtensorMap tm_o) {
#if FA_HOPPER_ENABLED
    // Split-KV: lets the combine launch be scheduled now (ptx.cuh, launch_dependent_grids).
    ptx::launch_dependent_grids();
    constexpr int kStages = Tr::kStages;

    extern __shared__ unsigned char smem_raw[];
    const wgmma::CtaSmem<Tr> sm(smem_raw);
    const BlockCoords blk(p, Tr::kBlockM, Tr::kBlockN);
    const int n_tiles = blk.key_tiles();
    const int tid = threadIdx.x;

    if (tid == 0) {
        sm.init_full_barriers();
#pragma unroll
        for (int s = 0; s < kStages; ++s) ptx::st_shared_b32(sm.release + 4 * s, 0u);  // counter[s]
        hopper::fence_mbarrier_init();
    }
    __syncthreads();

    if (tid == 0) {
        wgmma::load_q<Tr>(sm, &tm_q, blk, p);
        const int prologue = n_tiles < kStages ? n_tiles : kStages;
        for (int t = 0; t < prologue; ++t) wgmma::load_kv_tile<Tr>(sm, t, &tm_k, &tm_v, blk);
    }

    // ---- Consumers: every warpgroup, 64 query rows each ----
    const wgmma::ConsumerThread<Tr> c(tid);
    const wgmma::OperandDescs<Tr> desc(sm, c.wg);

    float o[Tr::kAccO];
#pragma unroll
    for (int i = 0; i < Tr::kAccO; ++i) o[i] = 0.0f;
    float row_max[2] = {wgmma::row_max_start<Tr>(), wgmma::row_max_start<Tr>()};  // running max of s·scale_log2
    float row_sum[2] = {0.0f, 0.0f};                    // this thread's partial sums (4 lanes per row)
    float s[Tr::kAccS];                                 // S of the newest tile, then its P (fp32)
    uint32_t pa[Tr::kKStepsPV * 4];                     // P as wgmma A fragments
    float rescale[2];

    // Releases ring slot `slot` after tile `tile` (its K and V reads by this warp are complete);
    // the last warp to release refills it with tile + kStages. Captures the few 32-bit values by
    // copy and the 128-byte tensor maps by reference (with sm by reference, ptxas's schedule of
    // the d=128 kernels changes; with this capture it is the one it was before the refactor).
    auto release = [=, &tm_k, &tm_v](int slot, int tile) {
        __syncwarp();
        if (c.lane == 0) {
            const uint32_t old = hopper::atom_add_acq_rel_cta_shared(sm.release + 4 * slot, 1u);
            if (old % Tr::kConsumerWarps == Tr::kConsumerWarps - 1 && tile + kStages < n_tiles)
                wgmma::load_kv_tile<Tr>(sm, tile + kStages, &tm_k, &tm_v, blk);
        }
    };

    ptx::mbarrier_wait_parity(sm.bar_q, 0);

    int stage = 0;
    uint32_t phase = 0;
    // Plain schedule: S(t), softmax(t), O += P(t)·V(t), each waited before the next.
#pragma unroll 1
    for (int t = 0; t < n_tiles; ++t) {
        ptx::mbarrier_wait_parity(sm.bar_k0 + 8 * stage, phase);
        hopper::warpgroup_fence_operand(s);
        hopper::wgmma_fence();
        wgmma::issue_qk<Tr>(s, desc.q, desc.k, stage);
        hopper::wgmma_commit_group();
        hopper::warpgroup_fence_operand(s);
        hopper::wgmma_wait_group<0>();
        hopper::warpgroup_fence_operand(s);
        wgmma::softmax_tile<Tr>(s, row_max, row_sum, rescale, p, blk, t, c);
        wgmma::rescale_o<Tr>(o, rescale);
        wgmma::pack_p<Tr>(pa, s);
        ptx::mbarrier_wait_parity(sm.bar_v0 + 8 * stage, phase);
        hopper::warpgroup_fence_operand(o);
        hopper::warpgroup_fence_operand(pa);
        hopper::wgmma_fence();
        wgmma::issue_pv<Tr>(o, pa, desc.v, stage);
        hopper::wgmma_commit_group();
        hopper::warpgroup_fence_operand(o);
        hopper::wgmma_wait_group<0>();
        hopper::warpgroup_fence_operand(o);
        hopper::warpgroup_fence_operand(pa);
        release(stage, t);
        if (++stage == kStages) {
            stage = 0;
            phase ^= 1u;
        }
    }

    // ---- Epilogue: O / l, into this warpgroup's Q rows (swizzled as TMA reads it), TMA store ----
    // This warpgroup's last wgmma reading its Q rows has completed (wait_group 0 above), and no
    // other warpgroup reads them.
    wgmma::write_output<Tr>(o, row_sum, row_max, c, sm, &tm_o, p);
#endif  // FA_HOPPER_ENABLED
}

template <class Tr>
cudaError_t launch_wgmma_tma(const FwdParams& p, cudaStream_t stream) {
    return launch_tma_fwd<Tr, Tr::kNThreads>(wgmma_tma_fwd_kernel<Tr>, p, stream);
}

// The registry row of Config's tile: num_threads = the threads launched (every one computes).
template <class Config>
KernelInstance wgmma_tma_instance() {
    using Tr = WgmmaTmaTraits<Config>;
    return instance_of<Tr>(reinterpret_cast<const void*>(&wgmma_tma_fwd_kernel<Tr>), &launch_wgmma_tma<Tr>);
}

}  // namespace

const std::vector<KernelInstance>& wgmma_tma_instances() {
    static const std::vector<KernelInstance> instances = {
        wgmma_tma_instance<wgmma::WgmmaTileD128<__nv_bfloat16>>(),
        wgmma_tma_instance<wgmma::WgmmaTileD64<__nv_bfloat16>>(),
        wgmma_tma_instance<wgmma::WgmmaTileD128<__half>>(),
        wgmma_tma_instance<wgmma::WgmmaTileD64<__half>>(),
        wgmma_tma_instance<wgmma::WgmmaTileD256<__nv_bfloat16>>(),
        wgmma_tma_instance<wgmma::WgmmaTileD256<__half>>(),
    };
    return instances;
}

}  // namespace fa
