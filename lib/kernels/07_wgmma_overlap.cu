// Rung 7 — `wgmma_overlap`: rung 05 (`wgmma_tma`) plus FA3's intra-warpgroup overlap. Same kernel
// (device/wgmma_attention.cuh), same tiles, same TMA ring and slot-refill-by-the-last-releaser,
// same epilogue (each warpgroup writes its O rows into its dead Q rows of shared memory, 128-byte
// swizzled, and one thread TMA-stores them; rows >= seqlen_q are clipped by the copy engine).
//
// What changed from the rung below, and why:
//   - Schedule inside a warpgroup (Traits::kOverlap = true). Rung 05 runs S(t), softmax(t),
//     P(t)·V(t), each waited before the next, so a warpgroup's tensor core work stops during its
//     own softmax. Here iteration t issues S(t) = Q·K(t)ᵀ and O = α(t-1)·O + P(t-1)·V(t-1) back
//     to back, waits only for S(t) (wgmma.wait_group 1), and computes softmax(t) while
//     P(t-1)·V(t-1) still runs on the tensor core; the wait for P·V (wait_group 0) comes after the
//     softmax. Cost: S and P live at once (O 64 + S 64 + P 32 registers at d=128), and the ring
//     must be >= 3 deep (K(t+1) is waited before tile t-1 is released).
//   - ptxas schedules a wgmma.wait_group at the top of its basic block (it hoisted wait_group 0
//     above the whole softmax when both shared one), so the wait for the next K tile, a spin
//     loop, sits between the softmax and wait_group 0 and gives the latter a block of its own.
//     Verified in SASS: the 64 (d=128) MUFU.EX2 of the softmax sit between WARPGROUP.DEPBAR.LE
//     gsb0 0x1 and gsb0 0x0.
//   - Rung 06 (`wgmma_ws`) is a side branch of the ablation: a producer warpgroup with setmaxnreg
//     and ping-pong named barriers between the consumer warpgroups. This rung keeps rung 05's
//     roles (no producer warpgroup: with TMA, "producing" a tile is ~6 instructions of one thread,
//     issued by whichever warp releases the slot last), which leaves the whole register file to
//     the consumers without setmaxnreg and keeps the tile rule satisfiable; the warp schedulers
//     interleave the two warpgroups, which recovers much of the ping-pong gain on top of the
//     intra-warpgroup overlap.
//
// Prediction (H100 SXM, bf16, B·H·S = 2·16·8192): FA3's ablation puts intra-warpgroup overlap on
// top of warp specialization at ~640-660 TFLOP/s for d=128; with half of each softmax hidden
// behind its own warpgroup's P·V and most of the rest behind the other warpgroup's GEMMs,
// estimate 580-650 at d=128 (~+10-20% over rung 05), d=64 ~450-520; causal ~5-10% lower.
//
// Last measurement (H100 SXM, bf16, B=2, S=8192, before the split into rungs 05/06/07, when this
// schedule was rung 05's default): d128 636 TFLOP/s non-causal / 603 causal; d64 519 / 463
// (cuDNN, same GPU: d128 690 / 618, d64 501 / 436).
//
// Measured: (filled in from results/ after the H100 sweep)
//
// Instances (ptxas, CUDA 13.0, -O3, sm_90a; 0-byte stack frame, no spills, no LDL/STL):
//   dtype      D    M x N x threads   stages  smem (B)   regs   CTAs/SM
//   bf16/fp16  128  128 x 128 x 256   3       230,468    186    1 (smem)
//   bf16/fp16  64   192 x 128 x 384   4       156,760    155    1 (smem, registers)

#include <vector>

#include "device/wgmma_attention.cuh"
#include "kernels/kernels.h"

namespace fa {
namespace {

using wgmma::WgmmaTmaTraits;

//                              T              D   WGs  N   stages overlap
using Bf16D128 = WgmmaTmaTraits<__nv_bfloat16, 128, 2, 128, 3, true>;
using Bf16D64 = WgmmaTmaTraits<__nv_bfloat16, 64, 3, 128, 4, true>;
using Fp16D128 = WgmmaTmaTraits<__half, 128, 2, 128, 3, true>;
using Fp16D64 = WgmmaTmaTraits<__half, 64, 3, 128, 4, true>;

}  // namespace

const std::vector<KernelInstance>& wgmma_overlap_instances() {
    static const std::vector<KernelInstance> instances = {
        wgmma::make_instance<Bf16D128>(),
        wgmma::make_instance<Bf16D64>(),
        wgmma::make_instance<Fp16D128>(),
        wgmma::make_instance<Fp16D64>(),
    };
    return instances;
}

}  // namespace fa
