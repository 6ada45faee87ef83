// Split-KV (flash-decoding): when a problem has too few row blocks to fill the GPU (decode: one
// query row per sequence), the key range of every row block is cut into num_splits chunks run by
// separate CTAs. Each writes a partial O, normalized by its own row sum, in fp32, and its rows'
// log-sum-exp; one combine launch merges them exactly:
//   lse = log Σ_i exp(lse_i),   o = Σ_i exp(lse_i − lse) · o_i.
// Every split-capable rung uses the same partial layout (FwdParams::o_partial / lse_partial) and
// the same combine launch.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "fa/params.h"
#include "fa/problem.h"

namespace fa {

// Largest split count fa-bench launches: past ~1 wave of CTAs more splits only add partial traffic.
inline constexpr int kMaxSplits = 128;

// The heuristic behind --num_splits 0. `ctas` = CTAs of the launch without splitting (row blocks ×
// heads × batch), `slots` = CTAs the GPU holds at once (SMs × resident CTAs per SM), `key_blocks`
// = key tiles of one row block. Under 80 % of a wave: the fewest splits that give the shortest
// chunk of key blocks per CTA with all CTAs in one wave (fill the SMs, stop where another split
// no longer shortens the critical path). From 80 % on: 1, except where `balance_waves` (the
// launch plan sets it for decode, every query row of a head in one row block) and a split of at
// most kMaxBalanceSplits fills the waves clearly better (below).
// `fill_slots` (0: `slots`) is what the one-wave rule fills: the launch plan passes SMs x
// split_fill_ctas_per_sm (below).
// `chunks` is what the one-wave rule's chunks must hold: at least `min_blocks` key blocks, and at least
// `wide_min_blocks` wherever the count passes `one_warp_splits`, the splits the combine merges with one
// warp a row (past them its merge costs more: combine_warps_per_row). The default holds any chunk;
// split_chunk_rule (below) gives rung 10's.
struct SplitChunkRule {
    int min_blocks = 1;
    int one_warp_splits = kMaxSplits;
    int wide_min_blocks = 1;
};
int choose_num_splits(long long ctas, int slots, int key_blocks, bool balance_waves = false, int fill_slots = 0,
                      int max_splits = kMaxSplits, SplitChunkRule chunks = {});

// CTAs an SM the one-wave rule fills at most: enough that their K/V stages in flight reach
// kSplitFillBytesPerSm, no more than are resident (split_fill_ctas_per_sm). Past that an SM already
// reads the KV cache at the memory's rate, and each split more shortens every CTA's chunk against
// its fixed costs (the prologue's first loads, the merge and the partial's write).
// Rung 10 at head_dim 128 (32 KB of K and V a 64-key stage, three CTAs an SM resident) at 1x32x1xS
// with 8 K/V heads, GB/s by split count (session 39 call B, an H200): S = 131,072: 24 / 32 / 49 / 64
// splits 3,868 / 4,188 / 4,111 / 3,666 (192 / 256 / 392 / 512 CTAs; 49 filled three an SM); S =
// 32,768: 16 / 24 / 32 / 47: 2,617 / 2,992 / 3,254 / 3,126; with 32 K/V heads 8 or 12 splits (256 or
// 384 CTAs) level: 4,531 / 4,553. Filling two (call G, scripts/ab.py, three rounds, medians, against
// filling three): with 8 K/V heads 1.000-1.055x along S = 1k-256k (8k: 43 -> 32 splits, 2,025 ->
// 2,137 GB/s; 65k: 49 -> 32, 3,662 -> 3,801), with 32 K/V heads (12 -> 8 splits) 0.986-1.003x (2k
// 2,406 -> 2,374, 256k 4,589 -> 4,561); geometric mean over the 18 points 1.0065x.
// Rung 10 at head_dim 64 (16 KB a stage, four resident) at two an SM read 3.2-3.7 TB/s, and at
// four 3.6-4.5 (session 40 call D, an H200, two rounds, GB/s, splits 2 -> 4 CTAs an SM, cuDNN in the
// same call): 8x32x1x32768 1 -> 2 splits 3,703 -> 4,476 (cuDNN 4,472), with 8 K/V heads 4 -> 8
// 3,524 -> 4,169 (4,190); 1x32x1x131072 8 -> 16 3,626 -> 4,364 (4,376), 8 K/V heads 33 -> 66 3,222 ->
// 3,632 (3,861): what two CTAs an SM hold in flight at head_dim 128, not their count, is the rule.
inline constexpr long long kSplitFillBytesPerSm = 64 * 1024;
// K/V stages of `stage_kv_bytes` that hold kSplitFillBytesPerSm: ceil(64 KB / stage).
inline long long stages_to_fill_sm(long long stage_kv_bytes) {
    const long long stage = std::max(stage_kv_bytes, 1LL);
    return (kSplitFillBytesPerSm + stage - 1) / stage;
}
inline int split_fill_ctas_per_sm(int ctas_per_sm, long long stage_kv_bytes) {
    return static_cast<int>(std::clamp<long long>(stages_to_fill_sm(stage_kv_bytes), 1, std::max(ctas_per_sm, 1)));
}

// Decode from 0.8 waves on: the last wave of a memory-bound grid leaves SMs' read rate unused. Rung
// 10 at 64x32x1x8192x128 (session 39, an H200, two rounds each, GB/s): with 8 K/V heads, 512 CTAs on
// 396 slots (132 SMs x 3), one split left a second wave of 116 CTAs: 4,091 / 4,089 against 4,471 /
// 4,474, 4,499 / 4,489, 4,348 / 4,346, 4,463 / 4,461 with 2 / 3 / 4 / 6 splits (call E; cuDNN 4,529
// in call D); with 32, 2,048 CTAs (5.17 waves): 4,541 / 4,544 against 4,570, 4,626, 4,638, 4,643
// (call E). The count taken minimizes waves per split, ceil(n·ctas / slots) / n (512 CTAs: 2, 1.5,
// 1.33, 1.5 for 1-4 splits; 2,048: 6, 5.5, 5.33, 5.25), the fewest on a tie, keeping chunks of
// kMinBalanceChunkBlocks, and only where that is under kBalanceGain of one split's (4,096 CTAs:
// 10.5 against 11, not taken: a split's partials and combine launch are not free).
inline constexpr int kMaxBalanceSplits = 4;
inline constexpr int kMinBalanceChunkBlocks = 8;
inline constexpr double kBalanceGain = 0.95;

// Key tiles of one row block: ceil(seqlen_k / block_n), the range split-KV cuts into chunks.
inline int key_blocks(int seqlen_k, int block_n) { return (seqlen_k + block_n - 1) / block_n; }

// Float4 partial loads a combine lane keeps in flight (lib/splitkv_combine.cu): one warp merges a
// row's splits in one round of loads up to combine_one_warp_splits — 16 up to head_dim 128 (one
// float4 a lane of a row), 8 above (two).
inline constexpr int kCombineLoadsInFlight = 16;
inline constexpr int combine_one_warp_splits(int head_dim) { return kCombineLoadsInFlight / (head_dim <= 128 ? 1 : 2); }

// Rung 10's SplitChunkRule (choose_num_splits): two key blocks (a chunk of one has no second stage whose
// load overlaps the first's math, and pays the CTA's fixed costs — Q, the partial's write, a share of
// the combine — for one tile), and past one_warp_splits kSplitFillBytesPerSm of K/V (what an SM needs
// in flight): more splits then pay the several-warps merge for chunks too short to be worth it.
// Rung 10 along B = 1 (session 42 call A, an H200, two rounds, 1k-32k keys, 8 and 32 K/V heads,
// head_dim 64 / 128 / 256, splits 2-128 by powers of two, µs; results/nvidia-h200/session42/): every
// chunk of one key block lost to two — head_dim 64 with 8 K/V heads 1k 16 -> 8 splits 9.41 -> 9.15,
// 2k 32 -> 16 10.59 -> 10.08; head_dim 128 2k 32 -> 16 11.97 -> 11.39; head_dim 256 1k 32 -> 16 12.86 ->
// 12.54. At head_dim 64 (16 KB a block) past 16 splits four blocks beat two: 4k 16 splits 10.46 against
// 32's 11.30 and the old rule's 64 at 12.06, 8k 32 splits 12.38 against 64's 13.18; at 2k the 16 splits
// one warp merges (chunks of two) beat 8 (four): 10.08 against 10.46. Elsewhere (32 K/V heads but
// head_dim 64 at 1k keys; with 8, head_dim 128 from 4k, 256 from 2k, 64 from 16k) the fill already
// kept chunks that long and the count stays; at every point of the scan the rule's count is the
// fastest measured. Call B (three rounds against main): +2 to +12 % where rung 10's count moved. The
// launch plan applies it to rung 10 only (KernelCaps::split_chunk_rule): at 1k keys it cost rungs 3,
// 7 and 9 7-10 % (0.930 / 0.911 / 0.896x), at 2k rungs 7 and 9 3 % (rung 3 gained 4.5 %).
inline constexpr int kMinSplitChunkBlocks = 2;
inline SplitChunkRule split_chunk_rule(long long stage_kv_bytes, int head_dim) {
    return {kMinSplitChunkBlocks, combine_one_warp_splits(head_dim),
            static_cast<int>(std::clamp<long long>(stages_to_fill_sm(stage_kv_bytes), kMinSplitChunkBlocks, kMaxSplits))};
}

// Warps the combine gives each output row (lib/splitkv_combine.cu, its comment says why): one up to
// `one_warp_splits` (what one warp loads in one round: 16 up to head_dim 128, 8 at 256); past that the
// fewest, doubling from two up to kCombineMaxWarpsPerRow, that leave each lane slot (one lane group
// of one warp; `lane_groups` a warp: 2 at head_dim 64, else 1) at most kCombineSplitsPerSlot splits.
// Session 41 (an H200, scripts/ab.py, three rounds, calls C-E): four splits a slot took the
// combine to 3.7-4.1 µs at 16 to 64 splits (ncu) and rung 10 at 1x32x1xSk with 8 K/V heads 1.11-1.12x
// at head_dim 64 (4k and 16k keys, 64 splits) and 1.09x at 256 (4k, 32), but at 16 splits and fewer
// it lost 1.5-10 % to one warp a row, whose floor is lower (3.2-3.4 µs against 3.7-4.4).
inline constexpr int kCombineMaxWarpsPerRow = 8;
inline constexpr int kCombineSplitsPerSlot = 4;
inline int combine_warps_per_row(int num_splits, int lane_groups, int one_warp_splits) {
    if (num_splits <= one_warp_splits) return 1;
    int warps = 2;
    while (warps < kCombineMaxWarpsPerRow && warps * lane_groups * kCombineSplitsPerSlot < num_splits) warps *= 2;
    return warps;
}

// Partial outputs of a split launch: o_partial (fp32, [splits][B][H][Sq][D]) then lse_partial
// (fp32, [splits][B][H][Sq]), each 256-byte aligned. 0 when num_splits <= 1.
std::size_t splitkv_workspace_bytes(const ProblemShape& p, int num_splits);

// Points prm.o_partial / prm.lse_partial into `workspace` (splitkv_workspace_bytes long) and sets
// prm.num_splits.
void assign_splitkv_workspace(FwdParams* prm, int num_splits, void* workspace);

// Merges prm.o_partial / prm.lse_partial (prm.num_splits > 1) into prm.o (prm.dtype, prm's O
// strides) and, if prm.lse is set, the final log-sum-exp. Rows every split saw no key of get
// zeros and -inf. Never synchronizes.
cudaError_t splitkv_combine(const FwdParams& prm, cudaStream_t stream);

// ---- The tail split (FwdParams::tail_tiles; KernelCaps::tail_split) ----
// A launch of identical non-causal tiles takes as many tile times as it has waves, rounded up: at
// 1x16x16384x128 rung 8's 192-row blocks are 86 x 16 = 1,376 CTAs on 132 SMs, 10 full waves and
// a last one of 56 tiles that runs a whole tile time on 42 % of the GPU (10.4 / 11 = 95 % of a
// perfect balance). Twice the tiles (2x16x16384) measured +4.6 % per tile on the H100 (session
// 27 call 1). Cutting each of the last wave's tiles into k key chunks run by k CTAs (k·tail <=
// SMs) ends the launch after 1/k of a tile time instead; the chunks merge as split-KV's do, but in
// the kernel (the last of a tile's CTAs to finish merges), and only the tail pays the partials.
// Rungs 7 and 9 (bf16 / fp16) split too since session 30 (call 1, H100 SXM, default timing rule,
// two rounds, against the build without it): 4x16x8192x128 (4 tiles x 4 chunks) rung 9 644.2 ->
// 665.0 TFLOP/s, rung 7 640.8 -> 657.2; 4x32x4096x64 (44 x 3) 478.6 -> 499.5, 466.2 -> 481.5;
// 8x32x2048x64 (44 x 2) 463.7 -> 478.6, rung 7 433.9 -> 430.5; unsplit 2x16x8192x128 level.
// Measured and not kept (session 30 call 5): a last wave more than half full split where some k
// shortens it, ceil(k·tail / SMs) / k < 1 tile time: the 2,048 tiles of 128 rows of every 16-head,
// 16k-token problem are 15 waves and 68 tiles, 3 chunks each two rounds of a third of a tile
// (model: 15.67 tile times instead of 16, +2.1 %). Rungs 7 and 9 at d128 / d256 from 4,096 keys,
// rung 8 at 1x16x16384x256: -1.1 to +1.2 %, level; a non-persistent grid's waves are not in
// lock-step (its CTAs end at different times), so a tail of half a wave is already partly filled.
// And at the power cap the idle SMs' power goes to the others' clock (session 38 call B, an H200,
// rungs 7 and 9 at 1xHx8192x8192): per GHz the 2,048 tiles of H = 32 do 2-3 % less than the 2,112
// of H = 33 (rung 9 at head_dim 128 386-388 against 398-400 TFLOP/s per GHz), but they ran at
// 1,650-1,674 MHz against 1,606-1,614, and rung 9's TFLOP/s came out level (640-646 against
// 639-646); rung 7 kept less of it (623-631 against 647-656).
struct TailSplit {
    int tiles = 0;   // the grid's last `tiles` tiles are split (0: off)
    int splits = 1;  // CTAs per split tile
};
// Fewest key tiles per chunk (set by reasoning, not tuned): a chunk writes its partial once and the
// merging CTA reads it back, block_m·(head_dim + 8)·4 bytes (104 KB at rung 8's 192 x 128), about
// what 6 key tiles of K and Vᵀ bring in at FP8 head_dim 128; from 8 key tiles on, a chunk's own
// loads and math outweigh it. The split shapes measured (session 27) have 128-256 key tiles.
inline constexpr int kMinTailChunkBlocks = 8;
inline constexpr int kMaxTailSplits = 4;
// Largest tail the kernels' arrival counters cover (rung 8: one per tile and consumer warpgroup).
inline constexpr int kMaxTailTiles = 512;
// `ctas` tiles of `key_blocks` key tiles each on `slots` resident CTAs. Off for causal problems
// (their grid runs heaviest first, so the last wave holds the shortest tiles), with fewer than two
// chunks of kMinTailChunkBlocks, and where the last wave is more than half full (its tiles could
// not all be split; splitting them anyway measured level, above).
TailSplit choose_tail_split(long long ctas, int slots, int key_blocks, bool causal);
// Floats of one tail CTA's partial: O (block_m x head_dim, fp32) and 8 per row for its statistics
// (the running max and sum of each of the row's two threads, twice: a float4 per thread).
inline constexpr std::size_t tail_slot_floats(int block_m, int head_dim) {
    return static_cast<std::size_t>(block_m) * (head_dim + 8);
}

}  // namespace fa
