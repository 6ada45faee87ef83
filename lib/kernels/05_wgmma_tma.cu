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
// The kernel, the traits and the per-tile steps live in device/wgmma_attention.cuh (rungs 06 and
// 07 build their own kernels from the same steps).
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
//
// Instances (ptxas, CUDA 13.0, -O3, sm_90a; 0-byte stack frame, no spills, no LDL/STL):
//   dtype      D    M x N x threads   stages  smem (B)   regs   CTAs/SM
//   bf16/fp16  128  128 x 128 x 256   3       230,468    179    1 (smem)
//   bf16/fp16  64   192 x 128 x 384   4       156,760    150    1 (smem, registers)

#include <vector>

#include "device/wgmma_attention.cuh"
#include "kernels/kernels.h"

namespace fa {
namespace {

using wgmma::WgmmaTmaTraits;

//                              T              D   WGs  N   stages overlap
using Bf16D128 = WgmmaTmaTraits<__nv_bfloat16, 128, 2, 128, 3>;
using Bf16D64 = WgmmaTmaTraits<__nv_bfloat16, 64, 3, 128, 4>;
using Fp16D128 = WgmmaTmaTraits<__half, 128, 2, 128, 3>;
using Fp16D64 = WgmmaTmaTraits<__half, 64, 3, 128, 4>;

}  // namespace

const std::vector<KernelInstance>& wgmma_tma_instances() {
    static const std::vector<KernelInstance> instances = {
        wgmma::make_instance<Bf16D128>(),
        wgmma::make_instance<Bf16D64>(),
        wgmma::make_instance<Fp16D128>(),
        wgmma::make_instance<Fp16D64>(),
    };
    return instances;
}

}  // namespace fa
