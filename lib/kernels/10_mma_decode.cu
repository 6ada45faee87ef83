// Rung 10 — mma_decode: rung 3's mma.sync key tile turned for decode. A CTA holds ONE 16-row band of
// query rows, and its warps (four; two at head_dim 256) split every key tile between them (16 keys
// each) instead of splitting the rows; each warp keeps its own running max, sum and O over its keys,
// and they are merged once, in shared memory, before the output is written.
//
// What changed from rung 3 (mma), and why. A decode step has one query row per sequence and K/V
// head (Sq = 1), or Sq · heads per K/V head when GQA is packed (4 at 32 heads over 8): the fused
// rungs' tiles of 64 or 128 rows compute every one of them, and on the H200 that waste is what the
// best fa-bench kernel pays against cuDNN (results/nvidia-h200/session38/, README "Decode on the
// H200": rungs 7 and 9 read the KV cache at 0.90-0.94x cuDNN's rate at every decode anchor).
// Nsight Compute at 64x32x1x8192x128 (session 38 call F): the same DRAM bytes; cuDNN's decode
// kernel is an sm80 one of 4 warps, two CTAs an SM, its tensor pipe busy 11.3 % of the time, rung
// 7's 64-row wgmma tile 28.3 %, and at the 700 W cap rung 7 held 1,740 MHz, cuDNN 1,980. Here:
//   - 16 rows, mma.sync's M: a quarter of rung 7's decode-tile math per key (one m16 band, not one
//     64-row wgmma), so less of the power cap goes to rows nobody reads;
//   - 4 warps, ~68 KB of shared memory at head_dim 128: three CTAs an SM, each with its own K/V
//     double buffer in flight, where rungs 5-9 run one;
//   - the warps split the keys: a warp's S is 16 x 16 per 64-key tile (8 k16 steps of Q·Kᵀ, one of
//     P·V over 128 columns), its ldmatrix reads only its 16 K and V rows, and the tile's copies
//     are rung 3's (every thread's 16-byte cp.async sweeps, one barrier a tile).
// Split-KV and packed GQA as rung 3 (block_info.cuh, fa/splitkv.h): a decode grid of B·H_kv CTAs
// is split over the keys until the SMs hold it.
//
// Predicted (session 38): cuDNN's read rate, ~4.4-4.6 TB/s, against rung 7's 3.9-4.2. Measured
// (session 39, an H200, bf16, results/nvidia-h200/session39/; GB/s = compulsory bytes / median time):
//   - call D, the decode grid with FA2, cuDNN 9.19 and FA4 4.0.0b36 in one call (results/nvidia-h200/
//     decode/): the best fa-bench kernel at 7 of the 8 anchors, 0.98-1.00x the best peer (64x32x1x8192
//     MHA 4,542 against cuDNN's 4,622; rung 7 in the same call 4,255, 0.92x); along B = 1 with 32
//     K/V heads 0.99-1.04x cuDNN from 1k to 256k keys. Not at 16x32x16x8192 with 8 K/V heads: 16
//     query rows of 4 heads do not pack into one 16-row band (2·Sq > kBlockM), so each query head
//     reads its K/V head again (2,088 GB/s, call F); rung 7's packed 64-row tile reads 3,890 there.
//   - call F (fresh machine, two rounds, cuDNN and FA2 beside it, the split rules below): 1.014x cuDNN
//     at 64x32x1x8192 MHA (4,541 / 4,542 against 4,477 / 4,476), 0.995x with 8 K/V heads, 0.994 /
//     1.003x at 8x32x1x32768, 1.001 / 0.987x at 1x32x1x131072, 1.09x at 16x32x16x8192 MHA; rung 7
//     0.92-0.95x cuDNN in the same call.
//   - what moved with it: split-KV counts (fa/splitkv.h; calls B, E, G): a decode grid just past one
//     wave of three CTAs an SM is split for full waves (64x32x1x8192 with 8 K/V heads, 512 CTAs:
//     4,091 -> 4,499 GB/s at 3 splits), and the one-wave rule fills two CTAs an SM, not three (B = 1
//     GQA +0.5 to +5.5 %).
// Correctness: the GPU test matrix (call A, 188,468 assertions with every other kernel), memcheck /
// racecheck / synccheck clean on scripts/sanitize.sh's shapes and on decode shapes (Sq 1 and 5,
// packed GQA, 1 / 3 / chosen splits, causal and not). 138 registers, no local memory. Session 40
// (calls A, B, E): the GPU tests with head_dim 64 and 256 (199,324 assertions), sanitize.sh's three
// tools clean at both, and on the decode shapes at both (memcheck, racecheck, synccheck).
// Head_dim 64 and 256 (session 40, an H200, results/nvidia-h200/session40/; GB/s as above, cuDNN
// 9.19 and FA2 in the same call):
//   - head_dim 64: the 64-key tile, 101 registers, 34 KB, four CTAs an SM (registers). Where the grid
//     held two an SM it read 3.3-3.7 TB/s, 0.82-0.84x cuDNN (call A): 16 KB of K and V a stage,
//     half of head_dim 128's, so two CTAs hold half the bytes in flight. A 128-key tile (115
//     registers, 66 KB, three an SM) read 0.97-0.99x cuDNN there but lost 3-6 % where the grid was
//     full (call B: 64x32x1x8192 with 8 K/V heads 4,261 against 4,411; 16x32x16x8192 4,106 against
//     4,377); the 64-key tile with the one-wave split rule filling four CTAs an SM read as well as
//     either (call D: 8x32x1x32768 3,703 -> 4,476, cuDNN 4,472), so the rule, not the tile, changed
//     (fa/splitkv.h, split_fill_ctas_per_sm: 64 KB of K/V stages an SM). Call E (the landed build,
//     two rounds): 1.007 / 1.005x cuDNN at 64x32x1x8192 (32 / 8 K/V heads), 0.995 / 1.004x at
//     8x32x1x32768, 0.995 / 0.959x at 1x32x1x131072, 1.35x at 16x32x16x8192 MHA; rungs 7 and 9
//     0.59-0.67x cuDNN at the Sq = 1 anchors (their 64-row tile computes 63 empty rows a query row).
//   - head_dim 256: 2 warps of 16 keys, a 32-key tile: 232 registers, 72 KB, three CTAs an SM, the
//     same 32 KB a stage as head_dim 128. At 64 threads a copy sweep covers 2 rows of 512 bytes, so
//     each sweep's swizzled column differs (mma_steps.cuh, sweep_dst). Call E: 1.10-1.26x the better
//     of cuDNN and FA2 at every Sq = 1 anchor (64x32x1x8192 4,546 against FA2's 3,606; 1x32x1x131072
//     with 8 K/V heads 4,230 against 3,666), 1.035x at 16x32x16x8192 MHA (4,401 against cuDNN's
//     4,251); rungs 7 and 9 read 3.8-4.2 TB/s. The 4-warp 64-key tile (136 KB, one CTA an SM, 254
//     registers) read 0.90-0.97x the 2-warp one at the Sq = 1 anchors (call A) and was not kept.
//   FA4 was not in these calls (its site takes four calls to carry); the head_dim-128 grid has it.
// Session 42 (results/nvidia-h200/session42/): the split heuristic keeps this rung's chunks at two key
// blocks, and past the 16 splits one combine warp merges (8 at head_dim 256) at 64 KB of K/V
// (fa/splitkv.h, SplitChunkRule; KernelCaps::split_chunk_rule). 1x32x1xSk with 8 K/V heads, three
// rounds, µs: head_dim 64 4k keys 64 -> 16 splits 12.10 -> 10.82 (cuDNN 11.30), 8k 64 -> 32 13.09 ->
// 12.45 (12.45), 2k 32 -> 16 10.40 -> 9.98; head_dim 128 2k 32 -> 16 11.71 -> 11.39; head_dim 256 1k
// 32 -> 16 13.12 -> 12.42. The kernel is unchanged. Measured and not kept (calls C-E): the splits
// merged here, by the last CTA of each row band to count in on a per-band counter, instead of the
// combine launch (session42/merge_in_kernel*.patch): 0.85-0.98x at 1k-4k keys, with every thread's
// fences or with one acq_rel atomic alike. ncu: the merging kernel ran 3.4-4.0 µs longer than the
// unmerged one, as long as the whole combine, whose CTAs (a programmatic dependent launch) are
// resident and start the moment the splits end, where the last split's merge is a serial tail.
// Not tried: a packed 64-row tile for Sq · H / H_kv up to 64 (the 16x32x16x8192 GQA point, where FA4
// reads 4,358 against rung 7's 3,912 at head_dim 128): O for 64 rows is 256 fp32 a thread, so the
// warps would split 2 x 2. At head_dim 64 and 256 that point's best is rung 7 (2,543 and 3,840 GB/s,
// call E) against cuDNN's 946 and 1,306.

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
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

// mma_steps.cuh's tile constants for one 16-row band whose warps split the keys.
template <typename T_, int kHeadDim_, int kBlockN_, int kNWarps_ = 4>
struct MmaDecodeTraits {
    using T = T_;
    static constexpr int kHeadDim = kHeadDim_;
    static constexpr int kBlockM = 16;        // one m16 band: the rows of a decode step
    static constexpr int kBlockN = kBlockN_;  // keys per CTA tile (copied together, one barrier)
    static constexpr int kNWarps = kNWarps_;
    static constexpr int kNThreads = kNWarps * 32;
    static constexpr int kStages = 2;  // rung 3's double buffer
    static constexpr bool kSkipUnitRescale = kHeadDim != 64;  // rung 3's choices per head_dim
    static constexpr bool kLazyMax = kHeadDim != 64;

    static constexpr bool kKeySplitWarps = true;
    static constexpr int kWarpRows = kBlockM;            // every warp computes all 16 rows
    static constexpr int kWarpKeys = kBlockN / kNWarps;  // and 16 keys of each tile
    static constexpr int kMTiles = 1;
    static constexpr int kNTilesS = kWarpKeys / 8;
    static constexpr int kKStepsQK = kHeadDim / 16;
    static constexpr int kNTilesO = kHeadDim / 8;
    static constexpr int kKStepsPV = kWarpKeys / 16;

    static constexpr int kChunksPerRow = kHeadDim / kChunkElems;
    static constexpr int kCopyRowsPerPass = kNThreads / kChunksPerRow;
    static constexpr int kRowBytes = kHeadDim * static_cast<int>(sizeof(T));

    static constexpr int kTileQBytes = kBlockM * kRowBytes;   // 4 KB at d128
    static constexpr int kTileKVBytes = kBlockN * kRowBytes;  // 16 KB at 64 x d128
    static constexpr int kSmemBytes = kTileQBytes + 2 * kStages * kTileKVBytes;
    // CTAs an SM that shared memory allows (227 KB, 1 KB reserved a CTA), at most three: the
    // register cap __launch_bounds__ sets from it (three at head_dim 64-128 and at 256's 2-warp tile).
    static constexpr int kCtasPerSm = std::min(3, 227 * 1024 / (kSmemBytes + 1024));
    // The merge: warps 1.. leave O (kNTilesO float4 a lane) and {m0, m1, l0, l1} (one float4) in
    // the K/V stages, lane-major so that each float4 store and load is conflict-free.
    static constexpr int kMergeFloat4s = (kNWarps - 1) * (kNTilesO + 1) * 32;

    static_assert(sizeof(T) == 2, "mma.sync.m16n8k16 here takes bf16 or fp16 operands");
    static_assert(kHeadDim % 64 == 0, "the 8-chunk XOR swizzle needs rows of whole 128-byte segments");
    static_assert(kWarpKeys % 16 == 0, "a warp's keys are whole k16 steps of P·V");
    static_assert(kNThreads % kChunksPerRow == 0, "a cp.async sweep covers whole rows");
    static_assert(kCopyRowsPerPass % 8 == 0 || 8 % kCopyRowsPerPass == 0, "mma_steps.cuh's sweep_dst");
    static_assert(kBlockM % kCopyRowsPerPass == 0 && kBlockN % kCopyRowsPerPass == 0, "whole sweeps");
    static_assert(kMergeFloat4s * 16 <= 2 * kStages * kTileKVBytes, "the merge fits the K/V stages");
};

template <typename Tr>
__global__ void __launch_bounds__(Tr::kNThreads, Tr::kCtasPerSm) mma_decode_kernel(const __grid_constant__ FwdParams p) {
    using T = typename Tr::T;
    ptx::launch_dependent_grids();  // split-KV: the combine launch may be scheduled now
    extern __shared__ __align__(128) unsigned char smem_raw[];
    // Q | K stage 0 | K stage 1 | V stage 0 | V stage 1, as rung 3 (mma_key_loop); the merge reuses
    // the stages.
    const uint32_t sQ = ptx::smem_u32(smem_raw);

    const BlockInfo<T> bi(p, Tr::kBlockM, p.causal);
    const int m_start = bi.m_block * Tr::kBlockM;
    const int tid = threadIdx.x;
    const int warp = tid / 32;
    const int lane = tid % 32;

    const MmaKeyTiles tiles = mma_key_tiles<Tr>(p, bi, m_start);  // as rung 3's

    float o[Tr::kMTiles][Tr::kNTilesO][4];
    float m[Tr::kMTiles][2];
    float l[Tr::kMTiles][2];
    init_fragment_state(o, m, l);
    if (tiles.count <= 0) {  // an empty split-KV chunk: zeros and lse -inf, written once
        if (warp == 0) write_fragment_output<T, Tr::kHeadDim, 1>(o, m, l, sQ, 0, lane, bi, m_start, p);
        return;
    }

    mma_key_loop<Tr>(sQ, bi, tiles, m_start, tid, o, m, l, p);

    // The merge. Every warp holds the same rows' state over its own keys, in the same fragment
    // layout, so lane L of warp 0 merges lane L of the other warps: per row half h, m = their max,
    // each state scaled by 2^(m_w - m) (m and l are kept in the scaled base-2 domain; a row one warp
    // saw no key of has m_w = kRowMaxStart and l_w = 0, whose factor underflows to 0). l is still
    // thread-partial here and is quad-reduced by normalize_fragment, as rung 3's.
    __syncthreads();  // every warp's last ldmatrix of the K/V stages is done
    float4* merge = reinterpret_cast<float4*>(smem_raw + Tr::kTileQBytes);
    if (warp > 0) {
        float4* mine = merge + (warp - 1) * (Tr::kNTilesO + 1) * 32 + lane;
#pragma unroll
        for (int nt = 0; nt < Tr::kNTilesO; ++nt) mine[nt * 32] = make_float4(o[0][nt][0], o[0][nt][1], o[0][nt][2], o[0][nt][3]);
        mine[Tr::kNTilesO * 32] = make_float4(m[0][0], m[0][1], l[0][0], l[0][1]);
    }
    __syncthreads();
    if (warp != 0) return;
#pragma unroll
    for (int w = 1; w < Tr::kNWarps; ++w) {
        const float4* theirs = merge + (w - 1) * (Tr::kNTilesO + 1) * 32 + lane;
        const float4 ml = theirs[Tr::kNTilesO * 32];
        const float m_w[2] = {ml.x, ml.y};
        const float l_w[2] = {ml.z, ml.w};
        float a_mine[2], a_theirs[2];
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const float m_new = fmaxf(m[0][h], m_w[h]);
            a_mine[h] = ptx::ex2_approx(m[0][h] - m_new);
            a_theirs[h] = ptx::ex2_approx(m_w[h] - m_new);
            l[0][h] = l[0][h] * a_mine[h] + l_w[h] * a_theirs[h];
            m[0][h] = m_new;
        }
#pragma unroll
        for (int nt = 0; nt < Tr::kNTilesO; ++nt) {
            const float4 ow = theirs[nt * 32];
            o[0][nt][0] = o[0][nt][0] * a_mine[0] + ow.x * a_theirs[0];
            o[0][nt][1] = o[0][nt][1] * a_mine[0] + ow.y * a_theirs[0];
            o[0][nt][2] = o[0][nt][2] * a_mine[1] + ow.z * a_theirs[1];
            o[0][nt][3] = o[0][nt][3] * a_mine[1] + ow.w * a_theirs[1];
        }
    }
    normalize_fragment(o, l);
    // Warp 0 writes the band through Q's rows (fragment_store.cuh; no other warp reads them now).
    write_fragment_output<T, Tr::kHeadDim, 1>(o, m, l, sQ, 0, lane, BlockInfo<T>(p, Tr::kBlockM, p.causal, true),
                                              m_start, p);
}

template <typename Tr>
KernelInstance mma_decode_instance() {
    return fwd_instance<Tr, &mma_decode_kernel<Tr>, true>();
}

}  // namespace

// Head_dim 128 (the decode grid's, scripts/sweep.sh --grid decode), 64 and 256 (the header's session 40),
// bf16 and fp16.
const std::vector<KernelInstance>& mma_decode_instances() {
    static const std::vector<KernelInstance> instances = {
        mma_decode_instance<MmaDecodeTraits<__nv_bfloat16, 128, 64>>(),
        mma_decode_instance<MmaDecodeTraits<__half, 128, 64>>(),
        mma_decode_instance<MmaDecodeTraits<__nv_bfloat16, 64, 64>>(),
        mma_decode_instance<MmaDecodeTraits<__half, 64, 64>>(),
        mma_decode_instance<MmaDecodeTraits<__nv_bfloat16, 256, 32, 2>>(),
        mma_decode_instance<MmaDecodeTraits<__half, 256, 32, 2>>(),
    };
    return instances;
}

}  // namespace fa
