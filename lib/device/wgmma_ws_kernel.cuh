// The warp-specialized Hopper rungs (6 `wgmma_ws`, 7 `wgmma_overlap`; rung 9 `wgmma_persistent`
// runs rung 7's schedule with these pieces in a kernel of its own): rung 5's tile plus a
// producer warpgroup that issues every TMA load and gives its registers to the consumer
// warpgroups (setmaxnreg), "empty" mbarriers per ring slot, one for K and one for V, through
// which the consumers hand each operand back as soon as its last wgmma completed, and an issue
// token the consumer warpgroups pass round-robin (ping-pong). Both rungs are one kernel, wgmma_ws_fwd_kernel<Tr, Schedule>, that differs only in the consumer schedule.
// Both schedules issue n + 1 batches of GEMMs under the token: batch 0 (S(0)) and batch n
// (PV(n-1)) are the same in both (first_batch, last_batch below); what each rung's file defines is
// a struct with
//   template <class Tr> static __device__ int run(const WsConsumer<Tr>& c, const ConsumerRegs<Tr>& r);
// that issues batches 1..n-1 after first_batch, leaves batch n's operands ready (O rescaled, P(n-1)
// packed, V(n-1) waited) and returns the ring slot of tile n-1 (rung 7's: device/overlap_schedule.cuh);
// with it goes its own ordering and
// deadlock argument. Everything else is here: the traits, the tuned tiles, barrier set-up, the role
// split, the producer's loop, the consumer set-up and the epilogue.
//
// Measured and not kept (session 17, results/nvidia-h100-80gb-hbm3/session17/, calls 2-4; the code
// is commit 8637f3f, -DFA_WS_PAIRS=1): CTA pairs, FA3's and FA4's cluster of 2 for non-causal
// head_dim >= 128. Two CTAs holding adjacent row blocks of one head each TMA-load half of every
// K/V tile (its 64-column boxes) multicast into both rings; a slot's empty barrier counts both
// CTAs' consumer warps. Correct (GPU tests, sanitizers) and 0.88-1.03x on rungs 6-7 (median 0.96x:
// rung 7 d128 8x16x2048 638 -> 606, 4x16x4096 692 -> 667, d256 2x16x8192 720 -> 729 TFLOP/s; ncu:
// L2 reads -16 %, tensor pipe 79.7 -> 77.1 %): the kernel is not L2-bound, and with a 2-stage ring
// the pair runs in lock-step, each refill waiting for the slower CTA. Two traps on the way, each
// costing half the speed: the producer's idle threads waiting at the closing cluster barrier
// (they must exit; it counts non-exited threads), and the consumers' remote arrivals written
// mbarrier.arrive.release.cluster (a cluster-scope fence each; the default .release.cta suffices:
// the wgmma reads they release have completed).
// Session 19 call 11 re-applied it (git apply -3) and measured it in steady state with the energy
// columns (3 s warm-up, >= 1 s timed, two rounds): the pairs hold a 3-5 % higher clock at the 700 W
// cap, but rung 7 runs 0.93-0.98x and spends 2-8 % more energy per launch (d128 32x16x512 388.9 ->
// 363.4 TFLOP/s, 550 -> 511 GFLOP/J): the lock-step costs more than the L2 traffic saved.
//
// Every .cu that includes this header must be compiled for sm_90a (device/hopper.cuh).
#pragma once

#include <cuda.h>  // CUtensorMap
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "device/block_info.cuh"
#include "device/hopper.cuh"
#include "device/launch.cuh"
#include "device/ptx.cuh"
#include "device/tail_merge.cuh"
#include "device/wgmma_steps.cuh"
#include "device/wgmma_traits.cuh"
#include "fa/kernel_api.h"
#include "fa/launch_plan.h"
#include "fa/params.h"

namespace fa::wgmma {

// Rung 5's tile and layout, with k_empty[kStages] then v_empty[kStages] (8 bytes each) as the
// release state, a producer warpgroup launched before the consumers, and the setmaxnreg budgets
// of the two roles. A config adds to TileTraits' fields
//   kProducerRegs, kConsumerRegs: registers per thread after setmaxnreg.dec / .inc (ignored by a
//   config of one consumer warpgroup, whose 256 threads all enter with 255: nothing to move).
template <class Config>
struct WsTraits : TileTraits<Config> {
    using Tile = TileTraits<Config>;
    using Config::kConsumerRegs;
    using Config::kProducerRegs;

    static constexpr int kLaunchThreads = Tile::kNThreads + 128;  // + the producer warpgroup
    static constexpr int kSmemBytes = Tile::kOffRelease + 16 * Tile::kStages + Tile::kAlignSlack;
    // Named barriers kSchedBar + w, after the epilogue's: consumer warpgroup w's turn to issue.
    static constexpr int kSchedBar = Tile::kEpilogueBar + Tile::kConsumerWarpgroups;
    // Two consumer warpgroups or more pass the issue token (ping-pong) and take the producer's
    // registers. One (the 64-row decode tile, WgmmaWsD128Decode) has nobody to alternate with:
    // its token calls compile to nothing, and it keeps the launch's registers.
    static constexpr bool kPingPong = Tile::kConsumerWarpgroups >= 2;

    static_assert(Tile::kOffRelease % 8 == 0, "mbarriers are 8-byte aligned");
    static_assert(kSmemBytes <= 227 * 1024, "fits sm_90's 227 KiB opt-in shared memory per block");
    static_assert(kSchedBar + Tile::kConsumerWarpgroups <= 16, "16 hardware named barriers");
    static_assert(kLaunchThreads <= 1024, "block size");
    // The CTA starts with kLaunchThreads x (65536 / kLaunchThreads rounded down to 8) registers
    // (ptxas' cap under __launch_bounds__(kLaunchThreads, 1)); setmaxnreg must stay inside it.
    static constexpr int kEntryRegs = (65536 / kLaunchThreads) / 8 * 8;
    static_assert(!kPingPong || (kProducerRegs <= kEntryRegs && kConsumerRegs >= kEntryRegs), "dec / inc directions");
    static_assert(!kPingPong ||
                      128 * kProducerRegs + Tile::kNThreads * kConsumerRegs <= kLaunchThreads * kEntryRegs,
                  "setmaxnreg.inc must be satisfiable from what setmaxnreg.dec released");
};

// ---- The tuned tiles of rungs 6 and 7: rung 5's, with the setmaxnreg budgets ----

// 384 threads enter with 168 registers (65536 / 384). The producer's one working thread runs a TMA
// loop of ~20 registers; 24 is setmaxnreg's minimum. 128·24 + 256·240 = 384·168: the consumers
// take every register the producer frees, and 240 holds rung 7's O 64 + S 64 + P 32 live at once
// (uses R0-R184).
template <typename T_>
struct WgmmaWsD128 : WgmmaTileD128<T_> {
    static constexpr int kProducerRegs = 24;
    static constexpr int kConsumerRegs = 240;
};

// Rung 7's 160-key head_dim-128 tile at the head_dim-128 split (O 64 + S 80 + P 40 fit 240).
template <typename T_>
struct WgmmaWsD128Wide : WgmmaTileD128Wide<T_> {
    static constexpr int kProducerRegs = WgmmaWsD128<T_>::kProducerRegs;
    static constexpr int kConsumerRegs = WgmmaWsD128<T_>::kConsumerRegs;
};

// 512 threads enter with 128 registers. 160 is the most a multiple of 8 allows 384 consumer threads
// beside a 24-register producer (65536 - 128·24 = 62464 >= 384·160; 168 would need 64512), and
// 128·32 + 384·160 = 512·128: the producer keeps the rest. Rung 7's O 32 + S 64 + P 32 fit
// without spills (uses R0-R157).
template <typename T_>
struct WgmmaWsD64 : WgmmaTileD64<T_> {
    static constexpr int kProducerRegs = 32;
    static constexpr int kConsumerRegs = 160;
};

// Head_dim 256 at the head_dim-128 split: O's 128 fp32 + S 40 + P 20 fit the consumers' 240.
template <typename T_>
struct WgmmaWsD256 : WgmmaTileD256<T_> {
    static constexpr int kProducerRegs = 24;
    static constexpr int kConsumerRegs = 240;
};

// Head_dim 64 with 2 consumer warpgroups (128 x 128), for short causal problems (issue #10): a
// causal row block computes whole key tiles up to its diagonal, so at S = 512 the 192-row tile
// computes 9 tiles of 192 x 128 for 512 x 513 / 2 needed scores (59 %), 128 rows 10 of 128 x 128
// (80 %). 240 registers as at head_dim 128 (O 32 + S 64 + P 32 live).
// The P·V wait after all the exponentials (overlap_schedule.cuh), not the 192-row tile's before
// them: 32x32x512x64 causal 204 -> 195-201 TFLOP/s with it (session 11 call 10).
template <typename T_>
struct WgmmaWsD64Short : WgmmaTileD64<T_> {
    static constexpr int kConsumerWarpgroups = 2;
    static constexpr int kProducerRegs = 24;
    static constexpr int kConsumerRegs = 240;
    static constexpr int kPvWaitColumn = WgmmaTileD64<T_>::kBlockN;
    // One key loop: the unmasked tiles' own loop (WgmmaTileD64's) measured -1.4 % at its point,
    // 32x32x512x64 causal (rung 9 250.4 -> 247.0, session 33 call 3).
    static constexpr bool kUnmaskedLoop = false;
};

// Decode (issue #9): head_dim 128 with ONE consumer warpgroup, 64 query rows. When every query
// row of a (batch, K/V head) fits 64 rows (Sq · heads per K/V head <= 64, e.g. 16 tokens x 4
// heads, or one token), the 128-row tile computes at least half its rows for nothing, and at
// 16x32x16x8192 with 8 K/V heads (packed: 64 rows, 128 CTAs) that is no longer free: per CTA
// and key tile, S and P·V are 2 x 128x128x128 MACs = 4,096 tensor-core cycles (1,024 MACs per
// cycle per SM), 132 us over the CTA's 64 tiles at 100 % of the tensor pipe, against 183 us to
// read its K and V at 2.93 TB/s: at ~70 % tensor efficiency the two meet. 64 rows halve it.
// FA3 makes the same choice (one MMA warpgroup when seqlen_q x heads per K/V head <= 64). Same
// key tile and ring as WgmmaTileD128: Q 16 KB + 3 x (32 + 32) KB = 208 KB. Smaller ring slots, so
// that a slot frees after less consumer work (64 keys x 6 stages, 80 x 5), measured 0.987x and
// 0.990x at the decode anchors (session 38 call G, an H200). There this tile reads the KV cache at
// 0.90-0.94x cuDNN's rate (README: Decode on the H200): cuDNN's sm80 decode kernel (4 warps, two
// CTAs an SM) keeps the DRAM 94 % busy against this tile's 89 %, with 11 % of tensor-pipe time
// against 28 % (the 63 empty rows of this tile's 64 at one query row), so at the 700 W cap it also
// keeps a higher clock (1,980 against 1,740 MHz at 64x32x1x8192).
template <typename T_>
struct WgmmaWsD128Decode : WgmmaTileD128<T_> {
    static constexpr int kConsumerWarpgroups = 1;
    static constexpr int kProducerRegs = 0;  // unused: no setmaxnreg (WsTraits::kPingPong)
    static constexpr int kConsumerRegs = 0;
};

// ---- The producer warpgroup ----

// Ring positions. A CTA's key tiles are counted g = 0, 1, ... over everything it runs (rungs 6-7:
// one tile of query rows; rung 9: several, its ring continuing from one to the next): the g-th
// lives in slot g % kStages, and is that slot's use g / kStages, waited with that use's parity.
template <class Tr>
__device__ __forceinline__ int ring_slot(int g) { return g % Tr::kStages; }
template <class Tr>
__device__ __forceinline__ uint32_t ring_parity(int g) { return static_cast<uint32_t>((g / Tr::kStages) & 1); }

// Run by the producer's thread 0 for one tile of query rows whose n_tiles key tiles are the
// CTA's g0-th onwards: K(0), then load_q() (Q's load; rung 9 first waits there for Q's buffer),
// then per tile t: K(t+1), V(t), the order the consumers need them in (batch t+1 reads K(t+1) and
// V(t)). A K (V) slot is refilled only after every consumer warp released the K (V) tile it held
// (k_empty / v_empty[slot], the parity of the use before; the first pass waits for nothing). K
// and V are released separately because K(t) is dead once S(t) completed, a whole batch before
// V(t): with one release per slot and 2 stages (head_dim 256) the load of tile t+2 left only when
// the last warpgroup's P(t)·V(t) completed, just as the first warpgroup wanted K(t+2), so every
// tile waited for a load (rung 7 at 2x16x8192x256: 443 -> 700 TFLOP/s with the 80-key tile,
// session 8 call 1).
template <class Tr, class LoadQ>
__device__ __forceinline__ void produce_tile(const CtaSmem<Tr>& sm, const CUtensorMap* tm_k, const CUtensorMap* tm_v,
                                             const BlockCoords& blk, int n_tiles, int g0, LoadQ&& load_q) {
    const uint32_t k_empty0 = sm.release, v_empty0 = sm.release + 8 * Tr::kStages;
    // The g-th key tile's slot, once the (g - kStages)-th's is released.
    auto free_slot = [](uint32_t empty0, int g) {
        if (g >= Tr::kStages) ptx::mbarrier_wait_parity(empty0 + 8 * ring_slot<Tr>(g), ring_parity<Tr>(g) ^ 1u);
        return ring_slot<Tr>(g);
    };
    if (n_tiles > 0) load_key_tile<Tr>(sm.k, sm.bar_k0, tm_k, 0, free_slot(k_empty0, g0), blk);
    load_q();
#pragma unroll 1
    for (int t = 0; t < n_tiles; ++t) {
        if (t + 1 < n_tiles) load_key_tile<Tr>(sm.k, sm.bar_k0, tm_k, t + 1, free_slot(k_empty0, g0 + t + 1), blk);
        load_key_tile<Tr>(sm.v, sm.bar_v0, tm_v, t, free_slot(v_empty0, g0 + t), blk);
    }
}

// ---- The consumer warpgroups ----

// What a consumer thread of rungs 6-7 works with: its place in the fragment layout
// (ConsumerThread), the issue token, its warpgroup's operand descriptors, the release of a ring
// slot, and the CTA it belongs to (shared memory, problem, coordinates, key tiles).
template <class Tr>
struct WsConsumer : ConsumerThread<Tr> {
    uint32_t my_turn;    // named barrier this warpgroup syncs on before issuing a batch
    uint32_t next_turn;  // its successor's, arrived on after issuing
    bool last_wg;        // the last consumer warpgroup: starts the token and retires it
    OperandDescs<Tr> desc;
    uint32_t k_empty0;  // k_empty[0]; k_empty[s] is 8 bytes further per slot, v_empty[0] after k_empty[kStages - 1]
    const CtaSmem<Tr>& sm;
    const FwdParams& p;
    const BlockCoords& blk;
    int n_tiles;
    int ring0;        // the CTA's count of key tiles before this tile's: K(0) is its ring0-th (ring_slot)
    bool token_live;  // rung 9: the token already circulates (an earlier tile started it)
    bool token_keep;  // rung 9: the last warpgroup passes it on after its last batch instead of retiring it

    __device__ __forceinline__ WsConsumer(const CtaSmem<Tr>& cta_smem, const FwdParams& params,
                                          const BlockCoords& coords, int consumer_tid, int ring_start = 0,
                                          bool live = false, bool keep = false)
        : ConsumerThread<Tr>(consumer_tid),
          my_turn(Tr::kSchedBar + this->wg),
          next_turn(Tr::kSchedBar + (this->wg + 1 == Tr::kConsumerWarpgroups ? 0 : this->wg + 1)),
          last_wg(this->wg == Tr::kConsumerWarpgroups - 1),
          desc(cta_smem, this->wg),
          k_empty0(cta_smem.release),
          sm(cta_smem),
          p(params),
          blk(coords),
          n_tiles(coords.key_tiles()),
          ring0(ring_start),
          token_live(live),
          token_keep(keep) {}

    // The token: 256 threads per named barrier, this warpgroup's 128 syncing and its
    // predecessor's 128 arriving.
    // With one consumer warpgroup there is no token (WsTraits::kPingPong).
    __device__ __forceinline__ void wait_turn() const {
        if constexpr (Tr::kPingPong) hopper::named_barrier_sync(my_turn, 256);
    }
    __device__ __forceinline__ void pass_turn() const {
        if constexpr (Tr::kPingPong) hopper::named_barrier_arrive(next_turn, 256);
    }
    // The last warpgroup's arrival on warpgroup 0's barrier before its own batch 0: the token's start.
    __device__ __forceinline__ void start_token() const {
        if constexpr (Tr::kPingPong)
            if (last_wg && !token_live) hopper::named_barrier_arrive(Tr::kSchedBar, 256);
    }

    // The K (V) tile in ring slot `slot` fully read by this warp's wgmmas (waited): one arrival per warp.
    __device__ __forceinline__ void release_k(int slot) const { release(k_empty0 + 8 * slot); }
    __device__ __forceinline__ void release_v(int slot) const { release(k_empty0 + 8 * (Tr::kStages + slot)); }
    __device__ __forceinline__ void release(uint32_t empty) const {
        __syncwarp();
        if (this->lane == 0) ptx::mbarrier_arrive(empty);
    }
};

// A consumer thread's registers as the schedules see them. The kernel declares the arrays in this
// order, the order of rungs 6 and 7's own kernels before they shared this one: ptxas then assigns
// registers exactly as it did for those (declared in the schedule instead, it does not).
template <class Tr>
struct ConsumerRegs {
    float (&o)[Tr::kAccO];              // O, unnormalized
    float (&row_max)[2];                // running max of s·scale_log2 of the thread's two rows
    float (&row_sum)[2];                // the thread's partial row sums (4 lanes per row)
    float (&s)[Tr::kAccS];              // S of the newest tile, then its P (fp32)
    uint32_t (&pa)[Tr::kKStepsPV * 4];  // P (of the newest or the previous tile) as wgmma A fragments
    float (&rescale)[2];                // what softmax_tile says O must be scaled by
};

// Batch 0 of both schedules: S(0) = Q·K(0)ᵀ issued holding the token (the last warpgroup first
// starts it), waited, K(0) released, then softmax(0) into s, row_max, row_sum and rescale.
template <class Tr>
__device__ __forceinline__ void first_batch(const WsConsumer<Tr>& c, const ConsumerRegs<Tr>& r) {
    auto& s = r.s;
    const int stage = ring_slot<Tr>(c.ring0);
    c.start_token();
    ptx::mbarrier_wait_parity(c.sm.bar_k0 + 8 * stage, ring_parity<Tr>(c.ring0));
    c.wait_turn();
    hopper::warpgroup_fence_operand(s);
    hopper::wgmma_fence();
    issue_qk<Tr>(s, c.desc.q, c.desc.k, stage);
    hopper::wgmma_commit_group();
    c.pass_turn();  // batch 0 is never the last (n + 1 >= 2)
    hopper::warpgroup_fence_operand(s);
    hopper::wgmma_wait_group<0>();
    hopper::warpgroup_fence_operand(s);
    c.release_k(stage);
    softmax_tile<Tr>(s, r.row_max, r.row_sum, r.rescale, c.p, c.blk, 0, c);
}

// Batch n of both schedules: O = α(n-1)·O + P(n-1)·V(n-1) on ring slot `stage` (the schedule has
// rescaled o, packed pa and waited for V(n-1)); the token retires with the last warpgroup; V(n-1)'s
// release keeps every v_empty[] phase count exact (nobody waits for it).
template <class Tr>
__device__ __forceinline__ void last_batch(const WsConsumer<Tr>& c, const ConsumerRegs<Tr>& r, int stage) {
    auto& o = r.o;
    auto& pa = r.pa;
    c.wait_turn();
    hopper::warpgroup_fence_operand(o);
    hopper::warpgroup_fence_operand(pa);
    hopper::wgmma_fence();
    issue_pv<Tr>(o, pa, c.desc.v, stage);
    hopper::wgmma_commit_group();
    if (!c.last_wg || c.token_keep) c.pass_turn();
    hopper::warpgroup_fence_operand(o);
    hopper::wgmma_wait_group<0>();
    hopper::warpgroup_fence_operand(o);
    hopper::warpgroup_fence_operand(pa);
    c.release_v(stage);
}

// ---- The kernel ----
// Grid and coordinates: BlockCoords. Threads: warpgroup 0 = producer (thread 0 works, the other
// 127 leave after setmaxnreg.dec), warpgroups 1..kConsumerWarpgroups = consumers (consumer
// warpgroup cw = warpgroup cw + 1 owns rows 64cw..). n = the CTA's key tiles, the same for every
// warpgroup. The synchronization both schedules share (each wait satisfied by construction):
//   bar_q (count 1): the producer's arrive.expect_tx + the Q bytes. Waited once, parity 0, by
//              every consumer thread, also when n = 0 (no TMA in flight when the CTA ends).
//   k_full[s], v_full[s] (count 1 each): armed by the producer's arrive.expect_tx for tile t in
//              slot s = t % kStages, completed by its bytes (TMA zero-fills rows past seqlen_k and
//              those bytes count, so a partial last tile completes). Use r = t / kStages is waited
//              with parity r & 1; each consumer waits each K(t), V(t) exactly once, in increasing
//              t, and never for a tile >= n.
//   k_empty[s], v_empty[s] (count kConsumerWarps = every consumer warp): lane 0 of each consumer
//              warp arrives on k_empty[s] once per tile t when its wgmmas reading K(t) have
//              completed, on v_empty[s] when those reading V(t) have (the schedule says when;
//              every K(t) and V(t), t < n, is released exactly once). The producer, before
//              loading K(t) (V(t)) for t >= kStages, waits for use t / kStages - 1 of k_empty[s]
//              (v_empty[s]), parity (t / kStages - 1) & 1: all releases of K(t - kStages)
//              (V(t - kStages)). Phases cannot be skipped: release of use r+1 needs the tile the
//              producer loads after observing use r. The producer issues K(t+1) before V(t), the
//              order batch t+1 reads them in.
//   sched[w]   (named barrier kSchedBar + w, 256 threads): the issue token. A consumer warpgroup
//              issues n + 1 batches (batch 0 = S(0) ... batch n = PV(n-1)); before batch b it
//              syncs on sched[w], after issuing it arrives on sched[(w+1) % kConsumerWarpgroups],
//              except the last warpgroup's batch n; the last warpgroup also arrives once on
//              sched[0] before its batch 0 (only if n > 0). Every barrier sees n + 1 syncs and
//              n + 1 arrivals (none pending at exit), and one token circulates, so no barrier gets
//              a second arrival before its sync.
//   named barrier kEpilogueBar + cw (128 threads): consumer warpgroup cw's O rows are in shared
//              memory (fenced for the async proxy) before its first thread TMA-stores them (not
//              used by a split-KV CTA, whose every thread writes its fp32 partials itself); in a
//              tail chunk (kTailChunks) first by merge_tail, three times, around its leader's
//              arrival count and verdict (device/tail_merge.cuh), all 128 threads taking the
//              same branch after it.
// All control flow is uniform over the CTA (it depends on n only) except the lane-0 arrive, so
// every __syncwarp and bar sees all its threads.
// kTailChunks: the build for a tail split's chunks (fa/splitkv.h; rung 7 only), launched after the
// tiles' build over the grid's unsplit tiles: block x runs key chunk x % tail_splits of split tile
// x / tail_splits, and the last of a tile's chunks to finish merges them (device/tail_merge.cuh)
// and stores O. A build of its own, as rung 8's, so that the tiles' build, the one every unsplit
// problem runs, is the kernel as measured without the split.
template <class Tr, bool kTailChunks>
__device__ __forceinline__ BlockCoords ws_cta_coords(const FwdParams& p, int x) {
    if constexpr (kTailChunks)
        return tail_chunk_coords(p, Tr::kBlockM, Tr::kBlockN, tail_chunk(p, Tr::kBlockM, x));
    else
        return BlockCoords(p, Tr::kBlockM, Tr::kBlockN);
}

template <class Tr, class Schedule, bool kTailChunks = false>
__global__ void __launch_bounds__(Tr::kLaunchThreads, 1)
    wgmma_ws_fwd_kernel(const FwdParams p, const __grid_constant__ CUtensorMap tm_q,
                        const __grid_constant__ CUtensorMap tm_k, const __grid_constant__ CUtensorMap tm_v,
                        const __grid_constant__ CUtensorMap tm_o) {
#if FA_HOPPER_ENABLED
    // Split-KV: lets the combine launch be scheduled now (ptx.cuh, launch_dependent_grids).
    ptx::launch_dependent_grids();
    extern __shared__ unsigned char smem_raw[];
    const CtaSmem<Tr> sm(smem_raw);
    const BlockCoords blk = ws_cta_coords<Tr, kTailChunks>(p, static_cast<int>(blockIdx.x));
    const int n_tiles = blk.key_tiles();
    const int tid = threadIdx.x;

    if (tid == 0) {
        sm.init_full_barriers();
#pragma unroll
        for (int s = 0; s < 2 * Tr::kStages; ++s) ptx::mbarrier_init(sm.release + 8 * s, Tr::kConsumerWarps);  // k_empty, v_empty
        hopper::fence_mbarrier_init();
    }
    __syncthreads();  // the last CTA-wide barrier: the producer's idle threads exit below

    if (tid < 128) {
        // ---- Producer warpgroup ----
        if constexpr (Tr::kPingPong) hopper::setmaxnreg_dec<Tr::kProducerRegs>();
        if (tid == 0) produce_tile<Tr>(sm, &tm_k, &tm_v, blk, n_tiles, 0, [&] { load_q<Tr>(sm, &tm_q, blk, p); });
    } else {
        // ---- Consumer warpgroups: 64 query rows each ----
        if constexpr (Tr::kPingPong) hopper::setmaxnreg_inc<Tr::kConsumerRegs>();
        const WsConsumer<Tr> c(sm, p, blk, tid - 128);

        float o[Tr::kAccO];
#pragma unroll
        for (int i = 0; i < Tr::kAccO; ++i) o[i] = 0.0f;
        float row_max[2] = {row_max_start<Tr>(), row_max_start<Tr>()};
        float row_sum[2] = {0.0f, 0.0f};
        float s[Tr::kAccS];
        uint32_t pa[Tr::kKStepsPV * 4];
        float rescale[2];
        const ConsumerRegs<Tr> r{o, row_max, row_sum, s, pa, rescale};

        ptx::mbarrier_wait_parity(sm.bar_q, 0);
        if (n_tiles > 0) {
            first_batch<Tr>(c, r);                                    // batch 0: S(0), softmax(0)
            const int last_stage = Schedule::template run<Tr>(c, r);  // batches 1..n-1
            last_batch<Tr>(c, r, last_stage);                         // batch n: PV(n-1)
        }

        // ---- Epilogue: this warpgroup's Q rows are dead (its wgmmas all completed) ----
        if constexpr (kTailChunks) {
            // The merge's flag in the warpgroup's own Q rows, which only its store of O writes next.
            const int x = ptx::ctaid_x();
            if (!merge_tail<Tr>(o, row_max, row_sum, c.wg, tid - 128, sm.q + c.wg * Tr::kWarpgroupRows * 128, p, x))
                return;  // another chunk of the tile stores O
            write_output<Tr>(o, row_sum, row_max, c, sm, &tm_o, p, ws_cta_coords<Tr, true>(p, x));
        } else {
            write_output<Tr>(o, row_sum, row_max, c, sm, &tm_o, p);
        }
    }
#endif  // FA_HOPPER_ENABLED
}

// kTailSplit (rung 7: KernelCaps::tail_split): with FwdParams::tail_tiles > 0, the tiles' build
// and then the chunks' (launch_tma_fwd_tail_split, as rung 8's); a rung without it refuses a split.
template <class Tr, class Schedule, bool kTailSplit = false>
cudaError_t launch_wgmma_ws(const FwdParams& p, cudaStream_t stream) {
    if constexpr (kTailSplit) {
        if (!tail_split_runnable(p)) return cudaErrorInvalidValue;
        return launch_tma_fwd_tail_split<Tr, Tr::kLaunchThreads>(wgmma_ws_fwd_kernel<Tr, Schedule>,
                                                                 wgmma_ws_fwd_kernel<Tr, Schedule, true>, p, stream);
    }
    if (p.tail_tiles > 0) return cudaErrorInvalidValue;
    return launch_tma_fwd<Tr, Tr::kLaunchThreads>(wgmma_ws_fwd_kernel<Tr, Schedule>, p, stream);
}

// The registry row of Config's tile: num_threads = consumer threads (the registry's tile rule);
// the kernel launches kLaunchThreads = that + 128. `rule`: where it is the default other than as
// the first row (the 64-row decode tile's kRowsFitOneBlock).
template <class Config, class Schedule, bool kTailSplit = false>
KernelInstance ws_instance(DefaultRule rule = {}) {
    using Tr = WsTraits<Config>;
    return instance_of<Tr>(reinterpret_cast<const void*>(&wgmma_ws_fwd_kernel<Tr, Schedule>),
                           &launch_wgmma_ws<Tr, Schedule, kTailSplit>, Tr::kNThreads, rule);
}

// The rows of a rung that runs Schedule: the tuned tiles above, bf16 and fp16, d=128 first, then
// the d=128 decode tile (not the default for prefill: check_support). Rung 7 adds its own rows
// after these (07_wgmma_overlap.cu).
template <class Schedule, bool kTailSplit = false>
std::vector<KernelInstance> ws_rows() {
    return {
        ws_instance<WgmmaWsD128<__nv_bfloat16>, Schedule, kTailSplit>(),
        ws_instance<WgmmaWsD64<__nv_bfloat16>, Schedule, kTailSplit>(),
        ws_instance<WgmmaWsD128<__half>, Schedule, kTailSplit>(),
        ws_instance<WgmmaWsD64<__half>, Schedule, kTailSplit>(),
        ws_instance<WgmmaWsD256<__nv_bfloat16>, Schedule, kTailSplit>(),
        ws_instance<WgmmaWsD256<__half>, Schedule, kTailSplit>(),
        ws_instance<WgmmaWsD128Decode<__nv_bfloat16>, Schedule, kTailSplit>(kRowsFitOneBlock),
        ws_instance<WgmmaWsD128Decode<__half>, Schedule, kTailSplit>(kRowsFitOneBlock),
    };
}

}  // namespace fa::wgmma
