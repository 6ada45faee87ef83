// The tail split's in-kernel merge (fa/splitkv.h, FwdParams::tail_tiles): the key chunks of one split
// tile each write their consumer warpgroups' unnormalized O and row statistics to the tile's
// slots of p.tail_partial, and the last chunk to finish merges them and stores O as an unsplit tile
// would. Rung 8 since session 27; rungs 7 and 9 (bf16 / fp16) since session 30. A rung's traits Tr
// name kAccO, kNThreads, kBlockM, kHeadDim, kConsumerWarpgroups and kEpilogueBar as the Hopper
// traits do (wgmma_traits.cuh).
#pragma once

#include <cuda_runtime.h>
#include <math_constants.h>

#include <cstddef>
#include <cstdint>

#include "device/block_info.cuh"
#include "device/hopper.cuh"
#include "device/ptx.cuh"
#include "fa/params.h"
#include "fa/splitkv.h"

namespace fa {

// Arrivals at each split tile, per consumer warpgroup (each merges its 64 rows on its own). Zero
// at module load; the merging warpgroup's leader sets its counter back to zero, so the next launch
// in the stream finds zeros. Two launches of one rung must therefore not run concurrently
// (fa-bench launches on one stream), as with rung 9's tile counter. In an unnamed namespace: every
// kernel file that includes this header gets counters of its own.
constexpr int kMaxTailWarpgroups = 4;
namespace {
__device__ int g_tail_arrivals[kMaxTailTiles * kMaxTailWarpgroups];
}  // namespace

// Chunk `chunk_x` of the split tiles (TailChunk numbering), consumer thread ctid of warpgroup wg,
// after its last P·V: writes its O (unnormalized), running max and running sum as float4s in the
// chunk's slot, thread-major (kVecs float4s of one thread kNThreads apart, so a warp's stores are
// 512 contiguous bytes); the warpgroup's leader counts the warpgroup in; the last of the tile's
// chunks to arrive reads the others' slots (from L2) and merges them into its registers, as
// splitkv_combine merges split-KV's partials: with m the larger running max, O = O_a·2^(m_a − m) +
// O_b·2^(m_b − m), l likewise; a chunk that saw no key (m = -inf) adds nothing. A constant factor
// every chunk's P carries (rung 8's 2^kPScaleLog2) cancels in O / l. The threads of one row hold
// the same running max, so each thread merges its own columns' sums and the epilogue adds the
// quad's as without a split. Returns whether this warpgroup stores O.
// `flag`: 4 bytes of shared memory only this warpgroup uses until its epilogue writes O (its own
// O staging rows), which hold the leader's verdict for the other 127 threads.
template <class Tr>
__device__ __forceinline__ bool merge_tail(float (&o)[Tr::kAccO], float (&row_max)[2], float (&row_sum)[2], int wg,
                                           int ctid, uint32_t flag, const FwdParams& p, int chunk_x) {
    const TailChunk part = tail_chunk(p, Tr::kBlockM, chunk_x);
    static_assert(Tr::kConsumerWarpgroups <= kMaxTailWarpgroups, "g_tail_arrivals' counters per tile");
    constexpr int kVecs = 1 + Tr::kAccO / 4;  // the statistics, then O
    static_assert(static_cast<std::size_t>(Tr::kNThreads) * kVecs * 4 == tail_slot_floats(Tr::kBlockM, Tr::kHeadDim),
                  "a slot is kVecs float4s per consumer thread");
    const std::size_t slot_vecs = tail_slot_floats(Tr::kBlockM, Tr::kHeadDim) / 4;
    float4* const slots = reinterpret_cast<float4*>(p.tail_partial) +
                          static_cast<std::size_t>(part.tail_index) * p.tail_splits * slot_vecs + ctid;
    float4* const mine = slots + part.split * slot_vecs;
    __stcg(mine, make_float4(row_max[0], row_max[1], row_sum[0], row_sum[1]));
#pragma unroll
    for (int j = 0; j < Tr::kAccO / 4; ++j)
        __stcg(mine + (j + 1) * Tr::kNThreads, make_float4(o[4 * j], o[4 * j + 1], o[4 * j + 2], o[4 * j + 3]));
    __threadfence();  // the slot before the count (the merging chunk's fence below pairs with it)
    hopper::named_barrier_sync(Tr::kEpilogueBar + wg, 128);
    if (threadIdx.x % 128 == 0) {  // the warpgroup's leader (consumer warpgroups start at thread 128)
        int* const arrivals = &g_tail_arrivals[part.tail_index * kMaxTailWarpgroups + wg];
        const bool last = atomicAdd(arrivals, 1) == p.tail_splits - 1;
        if (last) atomicExch(arrivals, 0);  // every chunk has counted in: ready for the next launch
        ptx::st_shared_b32(flag, last ? 1u : 0u);
    }
    hopper::named_barrier_sync(Tr::kEpilogueBar + wg, 128);
    if (ptx::ld_shared_b32(flag) == 0) return false;
    // Every thread's read of the flag before the epilogue writes O over it (racecheck, session 27 call 4).
    hopper::named_barrier_sync(Tr::kEpilogueBar + wg, 128);
    __threadfence();
#pragma unroll 1
    for (int split = 0; split < p.tail_splits; ++split) {
        if (split == part.split) continue;
        const float4* const other = slots + split * slot_vecs;
        const float4 st = __ldcg(other);
        const float other_max[2] = {st.x, st.y}, other_sum[2] = {st.z, st.w};
        float mine_f[2], other_f[2];
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const float m = fmaxf(row_max[h], other_max[h]);
            mine_f[h] = row_max[h] == -CUDART_INF_F ? 0.0f : exp2f(row_max[h] - m);
            other_f[h] = other_max[h] == -CUDART_INF_F ? 0.0f : exp2f(other_max[h] - m);
            row_sum[h] = row_sum[h] * mine_f[h] + other_sum[h] * other_f[h];
            row_max[h] = m;
        }
#pragma unroll
        for (int j = 0; j < Tr::kAccO / 4; ++j) {
            const float4 x = __ldcg(other + (j + 1) * Tr::kNThreads);
            o[4 * j] = o[4 * j] * mine_f[0] + x.x * other_f[0];
            o[4 * j + 1] = o[4 * j + 1] * mine_f[0] + x.y * other_f[0];
            o[4 * j + 2] = o[4 * j + 2] * mine_f[1] + x.z * other_f[1];
            o[4 * j + 3] = o[4 * j + 3] * mine_f[1] + x.w * other_f[1];
        }
    }
    return true;
}

// Whether a launch's tail split is one the merge can run: none, or at most kMaxTailTiles tiles of
// at least two chunks with their partials' workspace, and neither split-KV nor packed GQA (the
// plan never combines them: fa/launch_plan.h).
inline bool tail_split_runnable(const FwdParams& p) {
    if (p.tail_tiles == 0) return true;
    return p.num_splits <= 1 && !p.pack_gqa && p.tail_tiles <= kMaxTailTiles && p.tail_splits >= 2 &&
           p.tail_partial != nullptr;
}

}  // namespace fa
