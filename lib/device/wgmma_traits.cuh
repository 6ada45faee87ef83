// The tile of the Hopper rungs (5 `wgmma_tma`, 6 `wgmma_ws`, 7 `wgmma_overlap`, 9
// `wgmma_persistent`): the tuned tiles they run (WgmmaTileD128, WgmmaTileD64, WgmmaTileD256), and from such a named config every derived size,
// the shared-memory carve-up (CtaSmem) and the static_asserts that tie them to wgmma and TMA. A
// config is a plain struct, each value commented with why:
//
//   struct SomeConfig {
//       using T = __nv_bfloat16;                      // or __half
//       static constexpr int kHeadDim = 128;          // D: 64, 128 or 256
//       static constexpr int kConsumerWarpgroups = 2; // 64 query rows each
//       static constexpr int kBlockN = 128;           // keys per ring slot
//       static constexpr int kStages = 3;             // K/V ring depth
//       static constexpr int kPvWaitColumn = 64;      // rungs 7, 9: where the softmax waits for P·V
//   };
// (and the softmax's switches kLazyMax, kNegInfStart, kExpArgsFirst: wgmma_steps.cuh; kUnmaskedLoop:
// overlap_schedule.cuh)
//
// (rungs 6-7 add their setmaxnreg budgets: device/wgmma_ws_kernel.cuh). Each rung's traits derive
// from TileTraits<Config> and add how consumers release a ring slot (rung 5: a counter per slot,
// rungs 6, 7 and 9: "empty" mbarriers per slot, one for K and one for V), and with it kSmemBytes.
//
// Every .cu that includes this header must be compiled for sm_90a (device/hopper.cuh).
#pragma once

#include <cstdint>

#include "device/hopper.cuh"
#include "device/ptx.cuh"

namespace fa::wgmma {

// ---- The tuned tiles, one per head_dim ----
// Chosen for rung 5 and kept by rungs 6 and 7 (whose producer warpgroup needs no shared memory
// and whose setmaxnreg split leaves the consumers as many registers as rung 5's have); the bf16
// and fp16 rows share them (same bytes, same registers). Tile sizes were not swept on the Hopper
// rungs: the values follow from registers and shared memory as each comment says, and from FA3's
// choices.

template <typename T_>
struct WgmmaTileD128 {
    using T = T_;
    static constexpr int kHeadDim = 128;
    // Rung 5: 2 x 128 consumer threads may hold 255 registers each without setmaxnreg
    // (65536 / 256), what head_dim 128 needs: O 64 + S 64 + P 32 fp32/b32 per thread (179 used).
    static constexpr int kConsumerWarpgroups = 2;
    // FA3's key tile: S = Q·Kᵀ is one m64n128 wgmma per k16 step. FA3's non-causal 176 keys (2
    // stages, 208 KB) was measured (session 9 call 7, H100, bf16, 5 + 30 launches, TFLOP/s): it
    // lifts rung 7 non-causal by 2-12 % (2x16x8192 578 -> 610, 1x16x16384 573 -> 642, GQA
    // 4x32(kv 8)x8192 607 -> 635), but rung 9 at 176 keys has room for one Q buffer only and
    // loses more than it gains (663 -> 630, 676 -> 659, 512: 486 -> 409); rung 9 at 128 stays the
    // best kernel, so the tile was not kept. Since session 14 rung 7 runs 160 keys from 2,048
    // rows on (WgmmaTileD128Wide below); 128 stays the tile of every shorter problem and rung.
    static constexpr int kBlockN = 128;
    // As deep as shared memory allows: Q 32 KB + 3 x (K 32 KB + V 32 KB) = 224 KB of 227 KB.
    static constexpr int kStages = 3;
    // Rungs 7 and 9 (overlap_schedule.cuh): the P·V wait after the exponentials of the tile's first
    // 64 key columns (session 11 calls 9-10: +1-3 % against after them all, 2x16x8192x128 rung 9
    // 629 -> 646; before them all, -2 to -5 %).
    static constexpr int kPvWaitColumn = 64;
    // The eager row max (wgmma_steps.cuh's online_softmax_tile without kLazyMax). The lazy one, here
    // and at head_dim 64, measured 0.960-0.991x on rungs 7 and 9 (session 37 call D, an H200, three
    // rounds: rung 7 1x16x16384 660.0 -> 633.8, rung 9 2x16x8192 635.1 -> 620.2): the vote's branch
    // ends the softmax's basic block, and O's 64 FMULs it skips were hidden between the MUFUs.
    static constexpr bool kLazyMax = false;
    // The running max from kRowMaxStart, without -inf guards (online_softmax_tile's kNegInfStart,
    // which has the numbers; rung 9's 128-key tile at this head_dim keeps the guards).
    static constexpr bool kNegInfStart = false;
    // Rungs 7 and 9: one key loop with the mask test in every trip (overlap_schedule.cuh). The
    // unmasked tiles in a loop of their own measured -2.6 to +0.6 % here (session 33 call 3, H100
    // SXM, three rounds: rung 7 1x16x16384 680.5 -> 662.6, rung 9 4x16x8192 causal 628.7 -> 621.3).
    static constexpr bool kUnmaskedLoop = false;
    // Each exponent's FFMA fused with its MUFU (online_softmax_tile's kArgsFirst = false).
    static constexpr bool kExpArgsFirst = false;
};

// Head_dim 128 with 160 keys, rung 7's tile for long problems (issue #10; the rule that picks it:
// 07_wgmma_overlap.cu). What does not grow with a tile's keys (the row max's shuffles, alpha and
// the O rescale: 64 FMUL per thread, the ring's and the token's waits, the issue window) is
// spread over 160 keys instead of 128. Two stages: Q 32 KB + 2 x (K 40 KB + V 40 KB) = 192 KB (a
// third would need 272). Registers: O 64 + S 80 + P 40 = 184 of the consumers' 240, no spill.
// Why 160 and not FA3's 176 (2 x (44 + 44) + 32 = 208 KB): measured in session 14 call 1, below
// 160 on every long shape (07_wgmma_overlap.cu has the numbers). Rung 9 (2 x 32 KB of Q + 160 KB =
// 224 KB fits its second Q buffer) runs it on long non-causal rows since session 17.
template <typename T_>
struct WgmmaTileD128Wide : WgmmaTileD128<T_> {
    static constexpr int kBlockN = 160;
    static constexpr int kStages = 2;
};

template <typename T_>
struct WgmmaTileD64 {
    using T = T_;
    static constexpr int kHeadDim = 64;
    // 3 warpgroups (192 query rows, as FA3 at head_dim 64): rung 5's 168 registers each
    // (65536 / 384 rounded down to 8) hold O 32 + S 64 + P 32 (150 used); each K/V tile feeds
    // 1.5x the rows of 2 warpgroups, and in rungs 6-7 two softmaxes hide behind the third's GEMMs.
    static constexpr int kConsumerWarpgroups = 3;
    // As at head_dim 128. 144 keys (S 72 + P 36 + O 32 fp32 a thread) does not fit the 160 registers
    // of three consumer warpgroups: ptxas spilled 160 bytes and serialized the wgmmas (session 37).
    static constexpr int kBlockN = 128;
    // Q 24 KB + 4 x (16 + 16) KB = 152 KB: 1 CTA per SM either way (registers). 5 stages (184 KB;
    // rung 9 208 KB) measured level on rung 7 (-0.8 to +1.4 %) and -1.7 to -2.7 % on rung 9
    // (session 14 call 8: 4x32x4096 ... 1x32x16384, causal and not, three rounds).
    static constexpr int kStages = 4;
    // Rungs 7 and 9: the P·V wait before the exponentials (session 11 call 10: +1.5-6.5 % against
    // after them all, 2x32x8192x64 rung 7 507 -> 518, causal 455 -> 470). Session 32 call 3 (H100
    // SXM, three rounds, d64 at 2k-16k keys): after 32 columns -0.5 to -4.0 %, after 64 -0.4 to
    // -5.6 % (rung 7 2x32x8192 524.3 -> 515.1 / 506.5), so the earliest wait stays.
    static constexpr int kPvWaitColumn = 0;
    static constexpr bool kLazyMax = false;  // the lazy max: -0.9 to -2.6 % here (WgmmaTileD128's comment)
    static constexpr bool kNegInfStart = false;  // as at head_dim 128
    // Rungs 7 and 9: the tiles that need no mask in a key loop of their own, without the mask test
    // (overlap_schedule.cuh): that loop's trip is 409 SASS instructions against the one loop's 551
    // (~10 fewer executed, the rest the masking code behind the test's branch). Session 33 call 3
    // (H100 SXM, three rounds, order rotating, against the one loop): non-causal +0.6 to +1.6 %
    // (rung 9 1x32x16384 539.6 -> 548.1, 2x32x8192 534.8 -> 543.0; rung 7 1x32x16384 537.1 ->
    // 540.4), causal level (2x32x8192: rung 7 457.6 -> 457.8, rung 9 498.2 -> 497.3), and rung 7 at
    // 32x32x512 causal 167.9 -> 166.2 (rung 9's short tile runs that point, and keeps one loop:
    // WgmmaWsD64Short).
    static constexpr bool kUnmaskedLoop = true;
    // Each exponent's FFMA fused with its MUFU (online_softmax_tile's kArgsFirst = false).
    static constexpr bool kExpArgsFirst = false;
};

template <typename T_>
struct WgmmaTileD256 {
    using T = T_;
    static constexpr int kHeadDim = 256;
    // 2 warpgroups of 64 rows, as at head_dim 128 (rung 5: 255 registers each without setmaxnreg;
    // rungs 6-7: 240). O alone is 128 fp32 per thread at head_dim 256, so S and P must be small:
    static constexpr int kConsumerWarpgroups = 2;
    // 80-key tiles (FA3's at head_dim 256): S 40 fp32 + P 20 b32 per thread beside O's 128 (188
    // of 240), and a K/V slot of 80 x 256 x 2 B = 40 KB each. 128 keys would need 224 of 240
    // before any address register, and 2 stages of them 320 KB of shared memory. Why not 64: S =
    // Q·Kᵀ reads A (Q, 2 KB) and B (K, N·32 B) from shared memory per m64nNk16 wgmma of N/2
    // tensor-core cycles, (4096 / N + 64) B per cycle against the SM's 128: 128 at N = 64, 115 at
    // N = 80. Measured (H100, 2x16x8192x256, one call, session 8): rung 5 582 -> 609 TFLOP/s; with
    // K and V released apart (wgmma_ws_kernel.cuh) rungs 6 / 7 514 / 443 -> 668 / 700. 64 keys
    // where 80 pads the key range most (512 keys: 560 computed) measured level at 512 (rungs 7 and
    // 9, 483-489 TFLOP/s either way, causal 318-322) and 2-5 % slower at 1,024 and 2,048 (session
    // 14 call 10, 2 stages): at 512 the kernel waits on memory and the CTAs' fixed cost, not on
    // the padded tile, so the tile stays 80 here. (Rung 9 runs 64 keys up to 512 keys, 1,024
    // causal, since session 18: the 32 KB it leaves free stages O, so Q is handed back before the
    // epilogue; 09_wgmma_persistent.cu.)
    static constexpr int kBlockN = 80;
    // Q 64 KB + 2 x (K 40 KB + V 40 KB) = 224 KB of 227 KB; a third stage does not fit.
    static constexpr int kStages = 2;
    // Rungs 7 and 9: the P·V wait after all the exponentials (session 11 call 9: after 40 columns
    // -1 to -3 %, before them -5 to -8 %).
    static constexpr int kPvWaitColumn = kBlockN;
    // The lazy row max (wgmma_steps.cuh): O's rescale, 128 FMUL per thread after all the
    // exponentials, is skipped by a warp vote on nearly every tile: +1 to +5 % on rungs 7 and 9
    // over the FA2 grid's head_dim-256 rows (session 22 call 8; 07_wgmma_overlap.cu's header).
    // Rungs 5 and 6 share the tile and take it too: their GPU tests pass, their times were not
    // taken (the session's device time went to rungs 7 and 9, the top rungs).
    static constexpr bool kLazyMax = true;
    static constexpr bool kNegInfStart = false;  // as at head_dim 128
    // One key loop (overlap_schedule.cuh). The unmasked tiles' own loop measured mixed here (session
    // 33 call 3, 2x16x8192x256, non-causal / causal: rung 7 +1.7 / +4.1 %, rung 9 -1.1 / -0.4 %;
    // rung 9 is the better of the two there), so it stays off.
    static constexpr bool kUnmaskedLoop = false;
    // Each exponent's FFMA fused with its MUFU (online_softmax_tile's kArgsFirst = false).
    static constexpr bool kExpArgsFirst = false;
    // The consumer warpgroups take turns issuing (the issue token, wgmma_ws_kernel.cuh) as at head_dim
    // 128. FA3's rule (bf16 with intra-warpgroup overlap) orders the warpgroups' GEMMs only up to
    // head_dim 128, and FA4's sm90 loop at 256 (128 x 80, 2 stages, as here) has no named barrier
    // (its SASS, scripts/fa4_sass.py, session 37). Without it (session37/d256_no_token.patch, a
    // kIssueToken trait off here; session 38 call A, an H200, three rounds against the build with it):
    // rung 7 non-causal 0.975-0.978x (1x16x16384 748.2 -> 731.9 TFLOP/s, at 1,575 against 1,615 MHz:
    // the two warpgroups' GEMMs interleaved draw more power at the 700 W cap), rung 9 0.990x, causal
    // 0.968-1.026x. The token stays.
};

// ---- Traits ----

template <class Config>
struct TileTraits : Config {
    using typename Config::T;
    using Config::kBlockN;
    using Config::kConsumerWarpgroups;
    using Config::kHeadDim;
    using Config::kStages;
    using Config::kPvWaitColumn;

    static constexpr int kWarpgroupRows = 64;                            // query rows per consumer warpgroup: wgmma's M
    static constexpr int kBlockM = kWarpgroupRows * kConsumerWarpgroups;  // query rows per CTA
    static constexpr int kNThreads = 128 * kConsumerWarpgroups;  // consumer threads = the registry row's num_threads
    static constexpr int kConsumerWarps = kNThreads / 32;        // arrivals that release a ring slot
    // Named barriers kEpilogueBar + wg (0 is __syncthreads): consumer warpgroup wg's epilogue.
    static constexpr int kEpilogueBar = 1;

    static constexpr int kElemBytes = 2;
    static constexpr int kAtomCols = 128 / kElemBytes;        // 64: columns per 128-byte swizzle row
    static constexpr int kChunks = kHeadDim / kAtomCols;      // 64-column blocks per row (TMA boxes per tile)
    static constexpr int kQChunkBytes = kBlockM * 128;        // one 64-column block of the Q tile
    static constexpr int kKVChunkBytes = kBlockN * 128;       // one 64-column block of a K or V tile
    static constexpr int kQBytes = kChunks * kQChunkBytes;    // Q tile (also O's staging buffer)
    static constexpr int kKVBytes = kChunks * kKVChunkBytes;  // one K (or one V) slot

    static constexpr int kAccS = kBlockN / 2;        // fp32 of S per thread (64 x kBlockN over 128 threads)
    static constexpr int kAccO = kHeadDim / 2;       // fp32 of O per thread
    static constexpr int kKStepsQK = kHeadDim / 16;  // wgmma k16 steps of Q·Kᵀ
    static constexpr int kKStepsPV = kBlockN / 16;   // wgmma k16 steps of P·V

    // Layout (offsets from the 1024-aligned base): Q | K slots | V slots | full mbarriers | the
    // rung's release state. Every TMA destination is a multiple of 1024 bytes from the base: the
    // 128-byte swizzle pattern repeats every 1024 bytes and wgmma descriptors assume it starts on
    // such a boundary.
    static constexpr int kOffQ = 0;
    static constexpr int kOffK = kOffQ + kQBytes;
    static constexpr int kOffV = kOffK + kStages * kKVBytes;
    static constexpr int kOffBar = kOffV + kStages * kKVBytes;            // q_full, k_full[kStages], v_full[kStages]
    static constexpr int kOffRelease = kOffBar + 8 * (1 + 2 * kStages);  // the rung's per-slot release state
    // Dynamic shared memory is only guaranteed 16-byte aligned; the kernel rounds its base up, so
    // a rung's kSmemBytes is its payload plus this.
    static constexpr int kAlignSlack = 1024;

    static_assert(sizeof(T) == 2, "wgmma here takes bf16 or fp16 operands");
    static_assert(kHeadDim % 64 == 0, "rows are whole 128-byte swizzle atoms (64 elements)");
    static_assert(kHeadDim == 64 || kHeadDim == 128 || kHeadDim == 256,
                  "O += P·V uses wgmma N = head_dim (hopper.cuh has N = 64, 128, 256)");
    static_assert(kBlockN == 64 || kBlockN == 80 || kBlockN == 128 || kBlockN == 160,
                  "S = Q·Kᵀ uses wgmma N = kBlockN (hopper.cuh has ss for N = 64, 80, 128, 160)");
    static_assert(kBlockN % 16 == 0, "P·V takes whole k16 steps of keys");
    static_assert(kBlockM <= 256 && kBlockN <= 256, "a TMA box spans at most 256 rows");
    static_assert(kConsumerWarpgroups >= 1 && kNThreads <= 1024, "1..8 consumer warpgroups");
    static_assert(kStages >= 2, "a ring of one slot would serialize copy and compute");
    static_assert(kOffK % 1024 == 0 && kKVBytes % 1024 == 0 && kQChunkBytes % 1024 == 0 &&
                      kKVChunkBytes % 1024 == 0,
                  "TMA destinations / wgmma operands start on 1024-byte swizzle-pattern boundaries");
    static_assert(kOffBar % 8 == 0, "mbarriers are 8-byte aligned");
    static_assert(kKVBytes < (1 << 20) && kQBytes < (1 << 20), "mbarrier tx-count limit (2^20 - 1 bytes)");
    static_assert((2 * kBlockM) % kNThreads == 0, "fa-bench tile rule (registry.cpp)");
};

// One CTA's shared memory in Tr's layout: the base rounded up to 1024 bytes (128-byte-swizzled TMA
// destinations and wgmma operands need it), Q, the K and V rings, the full barriers of Q and of
// each ring slot (one arrival each: the TMA-issuing thread's expect_tx, completed by the bytes),
// and where the rung's release state starts.
template <class Tr>
struct CtaSmem {
    uint32_t base, q, k, v, bar_q, bar_k0, bar_v0, release;

    __device__ __forceinline__ explicit CtaSmem(unsigned char* raw)
        : base((ptx::smem_u32(raw) + 1023u) & ~1023u),
          q(base + Tr::kOffQ),
          k(base + Tr::kOffK),
          v(base + Tr::kOffV),
          bar_q(base + Tr::kOffBar),
          bar_k0(bar_q + 8),
          bar_v0(bar_q + 8 + 8 * Tr::kStages),
          release(base + Tr::kOffRelease) {}

    // Thread 0, before the CTA barrier that publishes them (with hopper::fence_mbarrier_init).
    __device__ __forceinline__ void init_full_barriers() const {
        ptx::mbarrier_init(bar_q, 1);
#pragma unroll
        for (int s = 0; s < Tr::kStages; ++s) {
            ptx::mbarrier_init(bar_k0 + 8 * s, 1);
            ptx::mbarrier_init(bar_v0 + 8 * s, 1);
        }
    }
};

}  // namespace fa::wgmma
