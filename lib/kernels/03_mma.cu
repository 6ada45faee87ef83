// Rung 3 — mma: tensor cores (mma.sync.m16n8k16, fp32 accumulate) fed by ldmatrix from swizzled
// shared memory, with S and P never leaving registers.
//
// What changed from rung 2 (cp_async): both GEMMs move from CUDA-core FMAs to mma.sync, which on
// an H100 delivers roughly 2/3 of the dense bf16 peak (~650 of 989 TFLOP/s) against ~60 TFLOP/s of
// fp32 FMA. Everything around the MMAs is arranged so the tensor cores stay the bottleneck:
//   - Q, K, V arrive by 16-byte cp.async into row-major tiles whose 16-byte chunks are XOR swizzled
//     (smem_swizzle.cuh): cp.async writes, ldmatrix reads and the epilogue are all bank-conflict
//     free (unswizzled, the 128/256-byte pitch makes every ldmatrix phase an 8-way conflict).
//   - K and V are double buffered: one __syncthreads per key tile publishes tile i and retires
//     tile i-1's buffers; tile i+1's K is requested after Q·Kᵀ(i) and its V after softmax(i), so
//     the copies issue while this warp's shared-memory pipe is otherwise idle, not in the ldmatrix
//     burst every warp of the CTA starts right after the barrier (+2-4 % over issuing both there;
//     two barriers per tile as the CuTe example does, -4 to -8 %; session 6, calls 3-5).
//   - S = Q·Kᵀ accumulates in registers; the online softmax runs on the accumulator fragments
//     (softmax_fragment.cuh: exp2 with the scale folded into one FFMA per element, O rescale
//     skipped by a warp vote when no row's max moved); P is packed to 16 bits straight into the
//     A-operand layout of O += P·V (the C layout of two adjacent n8 tiles is the A layout of one
//     k16 step), so P never touches shared memory.
//   - Key tiles are visited last to first, masked ones first: only the causal-diagonal tiles and
//     the partial last tile run the masking code; the rest take an unmasked instantiation of the
//     same loop body (FlashAttention-2's split). Causal grids launch the heaviest (last) query
//     tiles first to shorten the tail wave; since session 15, from 2,048 keys, interleaved over
//     the heads whose K, V, Q and O fit the L2 together (fa/grid_order.h): causal 2x32x8192x64
//     318 -> 338 TFLOP/s, 4x16x8192x128 360 -> 381, 1x16x16384x128 363 -> 394 (session 15 call 6,
//     H100 SXM, 5 + 30 launches, two rounds).
//   - Epilogue: O is normalized by 1/l, packed to 16 bits and staged through the warp's own rows
//     of the Q tile (no CTA barrier needed: only this warp ever reads those rows), then written
//     with 16-byte coalesced stores. Storing fragments directly would take 8x as many 4-byte
//     stores, each warp instruction touching eight half-used 32-byte sectors.
//
// Tiles: 4 warps, 32 query rows per warp (two m16 tiles), as FlashAttention-2 does on A100/H100.
// Each K/V fragment then feeds two MMAs instead of one, which is what keeps shared memory off the
// critical path on an H100: ~19 FLOP per byte of ldmatrix + cp.async traffic at d=128 against
// ~13 with 16 rows per warp, whose ceiling (~1700 FLOP/clk/SM at 128 B/clk) sits barely above the
// ~1500 FLOP/clk/SM FA2 reaches. The price is registers, 128 fp32 of O per thread at d=128 plus
// S. FA2's 128x64 tile at d=128 fits 255 registers with no spill (ptxas, CUDA 13.0, sm_90) since
// the K/V source pointers run down one tile per iteration; before, it spilled 28-36 bytes. It was
// built as the CuTe DSL example's default tile (issue #13) and --autotune found it faster than
// 128 x 32 (64 KB), so it is the d=128 default since 2026-11-23: H100 SXM, bf16, one device call,
// TFLOP/s 128x64 vs 128x32 — 4x16x8192 385.7 vs 340.2 non-causal, 360.9 vs 320.8 causal;
// 1x16x16384 388.2 vs 349.8, 353.7 vs 317.0 (+11-13 %). Half as many key tiles halves the
// barriers and the online-softmax rescales per row. fp16 follows bf16 (same code and registers;
// not timed apart).
//   d=128: 128 x 64, 4 warps, 96 KB smem (128 x 32 kept: 64 KB, no spill).
//   d=64: 128 x 64, 4 warps, 48 KB (228 registers).
//   64 x 64 (16 rows per warp) rows serve short sequences, where 128-row tiles leave SMs idle.
// Two CTAs per SM fit both limits at 128 x 32 (2 x 4 warps x 248 registers per SM sub-partition's
// 16 K, 2 x 64 KB of shared memory) and at 128 x 64 (2 x 96 KB of the 227 KB).
//
// Prediction (H100 SXM, bf16, B·H·S = 2·16·8192, non-causal): FA2's algorithm with one barrier per
// key tile and half its key tile at d=128: 85-97% of FA2, 300-340 TFLOP/s at d=128 and 250-290 at
// d=64; causal ~10% lower. Against rung 2's CUDA-core math, roughly 10x.
// Measured (results/nvidia-h100-80gb-hbm3/ladder.csv, H100 SXM, bf16, TFLOP/s, FlashAttention-2 =
// PyTorch SDPA FLASH_ATTENTION in the same sweep): d=128 4x16x8192 339 non-causal (99 % of FA2),
// 322 causal (101 %); 1x16x16384 346 (99 %) / 319 (100 %); d=64 2x32x8192 308 (101 %) / 289
// (103 %), 1x32x16384 310 (101 %) / 298 (102 %). Every FA2-grid shape with seqlen >= 4096 is at
// 92-104 % of FA2 (the previous sweep: 93-105 %).
//
// Against seed 001's own kernel (the CuTe DSL example, 128x64x128, H100, bf16, one device call;
// README "The mma.sync rungs against seed 001's kernel"), TFLOP/s this rung / the example, means
// of two rounds (session 7, call 5): 4x16x8192x128 380 / 383 non-causal, 363 / 355 causal;
// 1x16x16384x128 386 / 387, 361 / 348 (0.99-1.04x); 2x32x8192x64 337 / 351, 319 / 327
// (0.96-0.98x). What closed d=128 and part of d=64, each measured in one call against the build
// before it:
//   - the softmax's rescale factor without a branch (softmax_fragment.cuh; ncu showed the
//     example straight-line and this rung branching around the inline-asm ex2 once per row and
//     key tile): d=64 305 -> 323 non-causal, 286 -> 302 causal;
//   - O always rescaled at d=64, as the example does (its FMUL count): +0-2 %;
//   - the K/V copies issued after Q·Kᵀ and after the softmax (above): d=64 +3 %, d=128 +2-3 %;
//   - the running K/V source pointers (k_next below): level in time (the ~37 integer
//     instructions per warp and key tile they saved were not on the critical path), but they
//     freed the registers that let d=128 take the branch-free rescale factor without spilling.
// Measured and dropped: two barriers per tile with separate K and V waits (the example's
// schedule), -4 to -8 %; the copies without the `more` branch (one basic block from the barrier
// to the end of P·V, 255 registers at d=64), level. At d=64 the example is still 3-5 % ahead at
// the same instruction mix (HMMA, LDSM, LDGSTS, MUFU counts equal): ptxas interleaves its
// exponentials with the P·V HMMAs, where this rung's HMMA stalls are more often math-pipe and
// short-scoreboard waits (ncu, session 5).
// Also measured at d=64 and dropped (session 7, 2x32x8192x64): FA2's 128 x 128 tile spills the
// row sums (84 bytes) and is level with 128 x 64; 128 x 96 fits (253 registers) and is 3-4 %
// slower; Q's fragments held in registers for the whole key loop (a fifth of the warp's ldmatrix
// traffic, 240 registers) is level, so shared-memory bandwidth is not the limit there.
// Session 15 call 12 (H100 SXM, bf16, default timing rule, two rounds), not kept: a lazy running
// max (a row keeps its max until a tile's exceeds it by more than 2^8, P <= 256, so the warp vote
// skips the O rescale on almost every tile; FA4's Blackwell trick): d=64 -1.5 % (2x32x8192x64
// 327.8 -> 323.0, causal 323.3 -> 318.2, the vote back on), d=128 level to +2.6 % (4x16x8192
// 372.2 -> 381.8, causal 369.7 -> 376.0; 1x16x16384 380.7 -> 380.1, 380.0 -> 386.0), within about
// twice the rounds' spread; GPU tests passed on it.
// Session 16 (H100 SXM, bf16, default timing rule, three rounds, medians; results/nvidia-h100-
// 80gb-hbm3/session16/): the online softmax's row-sum chains start at their first p instead of 0
// (softmax_fragment.cuh; 2 FADDs fewer per row and key tile): 2x32x8192x64 333.8 -> 336.8, causal
// level, d=128 level (call 2). Measured and not kept (call 1): each k16 step's exponentials
// computed inside the P·V loop (the softmax split into a max half and an exponent half), alone,
// one step ahead of the MMAs, and with V's copies issued beside K's after Q·Kᵀ (no branch between
// softmax and P·V): all level at d=64 (328-331 against 331 non-causal) and d=128. The SASS shows
// why: ptxas already issues this rung's exponentials between the P·V HMMAs (and the first row's
// under the last Q·Kᵀ HMMAs), as in the example.
// Session 22 (H100 SXM, bf16, default timing rule, two rounds, results/nvidia-h100-80gb-hbm3/
// session22/): session 15's lazy max again (call 5a), against this rung as it was: d=128 +0.9 to
// +2.0 % at all four points (4x16x8192 373.4 -> 377.5, causal 372.4 -> 379.9; 1x16x16384 376.1 ->
// 379.6, causal 381.7 -> 388.2), the same sign as session 15's level to +2.6 %: kept at d=128
// (MmaTraits::kLazyMax). d=64 with the vote -4 / -5 %: not there. Measured and not kept (call 6,
// mma_256rows.patch): 256 query rows a CTA with 8 warps (one CTA per SM instead of two of 4
// warps, so each K/V tile leaves L2 once per 256 rows; 226 / 255 registers, no spill): -5 to
// -10 % at all six points (2x32x8192x64 338.0 -> 316.8, causal 338.6 -> 305.3; d=128 386-395 ->
// 361-372) at a 50-130 MHz higher clock: the 8-warp barrier per key tile costs more than the L2
// traffic it saves.
// Session 29 (H100 SXM, default timing rule, two rounds, results/nvidia-h100-80gb-hbm3/session29/):
// the peers' harness no longer idles the GPU between batches, and against the example in one call
// (call 4c, both sides at ~1,690 MHz now) this rung is 1.02 / 1.06x at 4x16x8192x128, 0.98 / 1.06x at
// 1x16x16384x128 and 0.98 / 1.00x at 2x32x8192x64 (339.5 against 332.4 non-causal; the old harness
// gave the example 343.8 at 1,749-1,764 MHz there); call 8c, three rounds: 1.035 / 1.10x, 1.045 / 1.14x and
// 0.980 / 1.024x (339.5 at ~1,740 MHz against 346.3 at ~1,695: 4-5 % behind per clock at d=64
// non-causal, where session 13's per-clock parity read the example's clock over its idle gaps).
// Not kept (call 2, mma_pairs.patch): two
// independent 4-warp tiles per CTA on adjacent row blocks of one head, each with its own shared
// memory and named barrier, K/V through L1 (cp.async.ca) so one half's tile hits the other's lines:
// 2x32x8192x64 342.3 -> 326.0 (the .cg control 328.4), head_dim 128 -7 to -15 %.
// Session 31 (call 1, results/nvidia-h100-80gb-hbm3/session31/, H100 SXM, default timing rule, two
// rounds): the running max from the most negative finite float (online_softmax.cuh's kRowMaxStart),
// so the factor and the exponent offset need no -inf guard and, at head_dim 64 where O is always
// rescaled, the factor no select (8 FSETP and 8 FSEL fewer a loop trip): level, 2x32x8192x64 at the
// example's tile 339.0 -> 338.5, causal 340.7 -> 343.3. Kept for the shared code's sake (rungs 5-9
// took it for +1-2 % at head_dim 64).
// Session 32 call 1 (H100 SXM, default timing rule, three rounds), not kept: head_dim 64 on 128 x 32
// at three CTAs per SM (__launch_bounds__(128, 3): 167 registers, no spill; 12 warps per SM, the
// example runs 8 at 242 registers): -6 to -10 % against 128 x 64 at two (2x32x8192x64 332.7 -> 313.2,
// causal 326.8 -> 297.0; 1x32x16384 343.7 -> 310.2; 4x32x4096 327.6 -> 302.1). Call 5: 128 x 64 itself
// at three (168 registers, 136 bytes spilled, 17 LDL/STL a trip; session32/mma_d64_three_ctas.patch):
// -7 to -8.5 % (338.6 -> 315.0, causal 329.3 -> 301.2). More warps per SM is not what this tile
// lacks. (128 x 48 at three spills 72 bytes.)
// Session 32 call 4 (same rule, three rounds; session32/mma_rowsum_fmaexp.patch), not kept, head_dim
// 64: each tile's row sums as one more m16n8k16 per m-tile and k16 step against a B fragment of ones
// (the softmax's 64 FADDs a thread gone, 8 HMMA more; the unmasked trip 615 -> 569 SASS
// instructions): -2 to -3 % (2x32x8192x64 338.5 -> 327.7), and l then sums the bf16-rounded P, so
// the LSE missed its 1e-4 tolerance by up to 1.3e-3 (542 GPU-test assertions). One exponential in
// 8 / 4 on the FMA pipe (a cubic after rounding, 1e-4 relative error; 615 -> 672 / 728): -3 to -6 /
// -7 to -8 %. Fewer instructions or less SFU work per trip did not buy time: what sets it is the
// schedule of the two warps per scheduler, as the 128 x 32 tile at three CTAs above says too.
// Session 32 call 6c, session 29's call 8c script on this rung as it stands (three rounds): against
// the example 1.025 / 1.053x at 4x16x8192x128, 0.988 / 1.030x at 2x32x8192x64 (338.5 at ~1,740 MHz
// against 342.6 at ~1,700) and 1.035 / 1.128x at 1x16x16384x128 (best mma.sync rung, non-causal / causal).
// Session 33 call 1 (H100 SXM, default timing rule, three rounds, order alternating), not kept: the
// example's L2::128B hint on every cp.async (ptx.cuh's cp_async_cg_16; LDGSTS.E.BYPASS.LTC128B.128 as
// in its SASS, session 32 call 7c; session32/next_l2_128b_hint.patch): 2x32x8192x64 335.7 -> 335.8,
// causal 321.0 -> 320.9; 4x16x8192x128 385.9 -> 380.7; 1x16x16384x128 383.9 -> 387.1, causal 384.7 ->
// 374.9 (rounds spread 2-9 %), warp_specialized level (0.999-1.006x). Most likely because K and V of
// a head fit the L2 at these shapes (4 MB), where the hint (how much L2 fetches from DRAM) has no say.
// Session 34 call 6 (H100 SXM, default timing rule, scripts/ab.py, three rounds): the masked suffix
// counted in closed form (mask.cuh's unmasked_key_tiles, as rungs 7 and 9 count it; unit-tested equal
// to the tile_needs_mask loop it replaces), which reorders the loops (unmasked trip 0.976 similar,
// the same 615 instructions): level, 2x32x8192x64 338.5 -> 337.1, causal 329.6 -> 331.6, 4x16x8192x128
// 386.3 -> 386.6, causal 384.3 -> 384.8. Kept for the one count; GPU tests and memcheck / racecheck /
// synccheck (bf16, head_dim 64 and 128) clean on it (calls 6-7).

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "device/block_info.cuh"
#include "device/fragment_store.cuh"
#include "device/launch.cuh"
#include "device/mask.cuh"
#include "device/mma_steps.cuh"
#include "device/online_softmax.cuh"
#include "device/ptx.cuh"
#include "device/smem_swizzle.cuh"
#include "device/softmax_fragment.cuh"
#include "fa/kernel_api.h"
#include "kernels/kernels.h"

namespace fa {
namespace {

template <typename T_, int kHeadDim_, int kBlockM_, int kBlockN_, int kNWarps_>
struct MmaTraits {
    using T = T_;
    static constexpr int kHeadDim = kHeadDim_;  // D: one Q/K/V/O row
    static constexpr int kBlockM = kBlockM_;    // query rows per CTA
    static constexpr int kBlockN = kBlockN_;    // key rows per main-loop iteration
    static constexpr int kNWarps = kNWarps_;
    static constexpr int kNThreads = kNWarps * 32;
    static constexpr int kStages = 2;  // K/V double buffer: tile i+1 loads while tile i computes
    // Skip O's rescale by a warp vote when no row's max rose: worth it where O is large (d=128:
    // 128 FMULs a thread); at d=64 always rescaling, as the CuTe DSL example does, measured
    // +0-2 % (2x32x8192x64: 317.4 -> 318.1 TFLOP/s non-causal, 298.9 -> 305.3 causal; one call).
    static constexpr bool kSkipUnitRescale = kHeadDim != 64;
    // The lazy max (softmax_rescale_fragment's kLazyMax, FlashAttention-4's conditional rescale): a
    // row's max rises only past 8 base-2 logits of slack, so p <= 2^8 = 256 (bf16 / fp16 hold it
    // exactly as they hold p <= 1) and the vote above skips O's rescale on nearly every key tile.
    // Session 22 call 5a (H100 SXM, default timing rule, two rounds, TFLOP/s): d128 4x16x8192
    // 373.4 -> 377.5, causal 372.4 -> 379.9; 1x16x16384 376.1 -> 379.6, causal 381.7 -> 388.2
    // (+0.9 to +2.0 %). At d64 with the vote (both on) 2x32x8192 332.4 -> 319.9, causal 332.8 ->
    // 316.7 (-4 / -5 %: the vote's branch splits the tile's one basic block, as when the vote was
    // first measured there), and without the vote it saves nothing: d64 keeps the eager max.
    static constexpr bool kLazyMax = kHeadDim != 64;

    static constexpr bool kKeySplitWarps = false;        // each warp owns rows, sees every key
    static constexpr int kWarpRows = kBlockM / kNWarps;  // query rows owned by one warp
    static constexpr int kWarpKeys = kBlockN;            // keys of a tile one warp computes
    static constexpr int kMTiles = kWarpRows / 16;       // m16 tiles per warp (rows of S and O)
    static constexpr int kNTilesS = kBlockN / 8;         // n8 tiles of S per m-tile
    static constexpr int kKStepsQK = kHeadDim / 16;      // k16 steps of S = Q·Kᵀ
    static constexpr int kNTilesO = kHeadDim / 8;        // n8 tiles of O per m-tile
    static constexpr int kKStepsPV = kBlockN / 16;       // k16 steps of O += P·V

    static constexpr int kChunksPerRow = kHeadDim / kChunkElems;          // 16-byte chunks per row
    static constexpr int kCopyRowsPerPass = kNThreads / kChunksPerRow;    // rows one cp.async sweep covers
    static constexpr int kRowBytes = kHeadDim * static_cast<int>(sizeof(T));  // smem row pitch

    static constexpr int kTileQBytes = kBlockM * kRowBytes;   // 32 KB at 128 x d128
    static constexpr int kTileKVBytes = kBlockN * kRowBytes;  // one K or V stage: 8 KB at 32 x d128
    // Q, then kStages K tiles, then kStages V tiles; O reuses Q's rows in the epilogue.
    static constexpr int kSmemBytes = kTileQBytes + 2 * kStages * kTileKVBytes;

    static_assert(sizeof(T) == 2, "mma.sync.m16n8k16 here takes bf16 or fp16 operands");
    static_assert(kHeadDim % 64 == 0, "the 8-chunk XOR swizzle needs rows of whole 128-byte segments");
    static_assert(kWarpRows % 16 == 0, "each warp owns whole m16 tiles");
    static_assert(kBlockN % 16 == 0, "P·V consumes keys in k16 steps");
    static_assert(kNThreads % kChunksPerRow == 0, "a cp.async sweep covers whole rows");
    static_assert(kCopyRowsPerPass % 8 == 0,
                  "each thread's row & 7 must be the same in every sweep so its swizzled column is fixed");
    static_assert(kBlockM % kCopyRowsPerPass == 0 && kBlockN % kCopyRowsPerPass == 0,
                  "tiles are copied in whole sweeps");
    static_assert((kBlockM * 2) % kNThreads == 0, "fa-bench tile rule (the CuTe example's copy partition)");
    static_assert(kSmemBytes <= 227 * 1024, "must fit the H100/A100 per-block shared-memory opt-in");
};

template <typename Tr>
__global__ void __launch_bounds__(Tr::kNThreads, 2) mma_fwd_kernel(const __grid_constant__ FwdParams p) {
    using T = typename Tr::T;
    // Split-KV: lets the combine launch be scheduled now (ptx.cuh, launch_dependent_grids).
    ptx::launch_dependent_grids();
    extern __shared__ __align__(128) unsigned char smem_raw[];
    // Shared layout: Q | K stage 0 | K stage 1 | V stage 0 | V stage 1 (mma_key_loop); O reuses Q's rows.
    const uint32_t sQ = ptx::smem_u32(smem_raw);

    // Causal: the last query tiles see the most keys; issuing them first shortens the tail.
    const BlockInfo<T> bi(p, Tr::kBlockM, p.causal);
    const int m_start = bi.m_block * Tr::kBlockM;
    const int tid = threadIdx.x;
    const int warp = tid / 32;
    const int lane = tid % 32;
    const int warp_row = warp * Tr::kWarpRows;  // first row of this warp inside the tile

    const MmaKeyTiles tiles = mma_key_tiles<Tr>(p, bi, m_start);  // the masked ones visited first

    float o[Tr::kMTiles][Tr::kNTilesO][4];
    float m[Tr::kMTiles][2];
    float l[Tr::kMTiles][2];
    init_fragment_state(o, m, l);
    if (tiles.count <= 0) {
        // An empty split-KV chunk (causal rows that end before it): its partial is zeros, lse -inf.
        write_fragment_output<T, Tr::kHeadDim, Tr::kMTiles>(o, m, l, sQ, warp_row, lane, bi, m_start, p);
        return;
    }

    mma_key_loop<Tr>(sQ, bi, tiles, m_start, tid, o, m, l, p);

    normalize_fragment(o, l);

    // Epilogue (fragment_store.cuh) through this warp's own rows of sQ: only this warp read those
    // Q rows, so the warp barrier inside orders its last ldmatrix before the overwrite. BlockInfo
    // is derived afresh: carrying its output pointer and row mapping through the loop cost ~10
    // registers at d=128 (245 -> 255).
    write_fragment_output<T, Tr::kHeadDim, Tr::kMTiles>(o, m, l, sQ, warp_row, lane,
                                                        BlockInfo<T>(p, Tr::kBlockM, p.causal, true), m_start, p);
}

// Launched with the largest shared-memory carveout: two CTAs need up to 2·(80 KB + 1 KB reserved),
// and the driver would otherwise settle for a split that fits only one (cp.async.cg bypasses L1
// anyway).
template <typename Tr>
KernelInstance mma_instance() {
    return fwd_instance<Tr, &mma_fwd_kernel<Tr>, true>();
}

}  // namespace

// First row per (dtype, head_dim) is the default (see the tile notes at the top). The 64x64 rows
// double the CTA count for short sequences or small batch·heads, at 16 rows per warp.
const std::vector<KernelInstance>& mma_instances() {
    static const std::vector<KernelInstance> instances = {
        mma_instance<MmaTraits<__nv_bfloat16, 128, 128, 64, 4>>(),
        mma_instance<MmaTraits<__nv_bfloat16, 128, 128, 32, 4>>(),
        mma_instance<MmaTraits<__nv_bfloat16, 64, 128, 64, 4>>(),
        mma_instance<MmaTraits<__half, 128, 128, 64, 4>>(),
        mma_instance<MmaTraits<__half, 128, 128, 32, 4>>(),
        mma_instance<MmaTraits<__half, 64, 128, 64, 4>>(),
        mma_instance<MmaTraits<__nv_bfloat16, 128, 64, 64, 4>>(),
        mma_instance<MmaTraits<__nv_bfloat16, 64, 64, 64, 4>>(),
    };
    return instances;
}

}  // namespace fa
