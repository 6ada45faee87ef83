#include <catch2/catch.hpp>

#include "fa/splitkv.h"

TEST_CASE("split heuristic: a launch that fills the GPU is not split", "[splitkv]") {
    // 2048 CTAs on 132 slots: 15.5 waves already.
    CHECK(fa::choose_num_splits(2048, 132, 64) == 1);
    // 0.8 of a wave (106 of 132) is the threshold.
    CHECK(fa::choose_num_splits(106, 132, 64) == 1);
    // Past half a wave, more splits add waves as fast as they shorten the chunks: no gain.
    CHECK(fa::choose_num_splits(100, 132, 64) == 1);
    // 40 CTAs: 3 splits = 120 CTAs in one wave, chunks of 22 blocks instead of 64.
    CHECK(fa::choose_num_splits(40, 132, 64) == 3);
    // One key block cannot be split.
    CHECK(fa::choose_num_splits(8, 132, 1) == 1);
}

TEST_CASE("split heuristic: decode fills one wave with the fewest splits", "[splitkv]") {
    // B=1, H_kv=8 (packed GQA), one row block, 1024 key blocks, 132 slots: 16 splits = 128 CTAs
    // (97 % of a wave); 4 splits would leave 3/4 of the SMs idle.
    CHECK(fa::choose_num_splits(8, 132, 1024) == 16);
    // 32 CTAs: 4 splits = 128 CTAs, 97 %.
    CHECK(fa::choose_num_splits(32, 132, 1024) == 4);
    // Never more splits than key blocks: 3 key blocks, 8 CTAs.
    CHECK(fa::choose_num_splits(8, 132, 3) <= 3);
    // 64 CTAs: 2 splits = 128 CTAs.
    CHECK(fa::choose_num_splits(64, 132, 256) == 2);
}

TEST_CASE("split heuristic: a decode launch splits for fuller waves", "[splitkv]") {
    // 64x32x1x8192 with 8 K/V heads on rung 10: 512 CTAs, 396 slots, 128 key blocks. Waves per
    // split 2 / 1.5 / 1.33 / 1.5 for 1-4 splits: 3 (session 39 calls B and E measured it the fastest).
    CHECK(fa::choose_num_splits(512, 396, 128, true) == 3);
    // 32 K/V heads, 2,048 CTAs: 6 / 5.5 / 5.33 / 5.25: 4.
    CHECK(fa::choose_num_splits(2048, 396, 128, true) == 4);
    // Off without balance_waves (prefill keeps its 80 % rule).
    CHECK(fa::choose_num_splits(512, 396, 128, false) == 1);
    CHECK(fa::choose_num_splits(2048, 396, 128, false) == 1);
    // Whole waves stay whole (ties take the fewest), and a gain under 5 % is not taken: 4,096 CTAs
    // are 11 waves whole, 10.5 a split at best.
    CHECK(fa::choose_num_splits(792, 396, 128, true) == 1);
    CHECK(fa::choose_num_splits(396, 396, 128, true) == 1);
    CHECK(fa::choose_num_splits(256, 264, 128, true) == 1);  // 0.97 of one wave
    CHECK(fa::choose_num_splits(4096, 396, 128, true) == 1);
    // Chunks keep kMinBalanceChunkBlocks key blocks: 16 blocks allow 2 splits, 15 none.
    CHECK(fa::choose_num_splits(512, 396, 16, true) == 2);
    CHECK(fa::choose_num_splits(512, 396, 15, true) == 1);
    // Under 80 % of a wave the one-wave rule holds whatever balance_waves says.
    CHECK(fa::choose_num_splits(40, 132, 64, true) == 3);
}

TEST_CASE("split heuristic: the one-wave rule fills fill_slots", "[splitkv]") {
    // Rung 10 at 1x32x1x131072 with 8 K/V heads: 8 CTAs, 3 an SM resident (396), 2 filled (264),
    // 2,048 key blocks: 33 splits (264 CTAs) instead of 49 (392).
    CHECK(fa::choose_num_splits(8, 396, 2048, true, 264) == 33);
    CHECK(fa::choose_num_splits(8, 396, 2048, true) == 49);
    // The 80 % threshold and the wave balance still count every resident slot: 300 CTAs on 396
    // are under 0.8 of a wave, but 264 filled slots hold them once already.
    CHECK(fa::choose_num_splits(300, 396, 128, true, 264) == 1);
    CHECK(fa::choose_num_splits(512, 396, 128, true, 264) == 3);
}

TEST_CASE("split heuristic: the one-wave rule fills 64 KB of K/V stages an SM", "[splitkv]") {
    // Rung 10: head_dim 128, 64 keys, 16-bit (32 KB a stage), 3 resident -> 2 an SM; head_dim 64
    // (16 KB) with 4 resident -> 4; head_dim 256's 32-key tile (32 KB) -> 2.
    CHECK(fa::split_fill_ctas_per_sm(3, 2LL * 64 * 128 * 2) == 2);
    CHECK(fa::split_fill_ctas_per_sm(4, 2LL * 64 * 64 * 2) == 4);
    CHECK(fa::split_fill_ctas_per_sm(3, 2LL * 32 * 256 * 2) == 2);
    // Never more than are resident, never fewer than one: rung 3's 2 an SM at 16 KB a stage, the
    // Hopper rungs' one, an unknown occupancy (0), a stage larger than the target.
    CHECK(fa::split_fill_ctas_per_sm(2, 16 * 1024) == 2);
    CHECK(fa::split_fill_ctas_per_sm(1, 16 * 1024) == 1);
    CHECK(fa::split_fill_ctas_per_sm(0, 16 * 1024) == 1);
    CHECK(fa::split_fill_ctas_per_sm(3, 160 * 1024) == 1);
    // A stage that does not divide the target rounds up: 24 KB -> 3.
    CHECK(fa::split_fill_ctas_per_sm(4, 24 * 1024) == 3);
    // 8x32x1x32768 at head_dim 64 (256 CTAs, 512 key blocks): 4 an SM fill 528 slots -> 2 splits;
    // two an SM (264) would leave it whole (session 40 call D: 3,703 -> 4,476 GB/s).
    CHECK(fa::choose_num_splits(256, 528, 512, true, 132 * fa::split_fill_ctas_per_sm(4, 16 * 1024)) == 2);
    CHECK(fa::choose_num_splits(256, 528, 512, true, 264) == 1);
}

TEST_CASE("split heuristic: chunks of two key blocks, of 64 KB past one combine warp", "[splitkv]") {
    // split_chunk_rule: two blocks; past 16 splits (8 at head_dim 256) 64 KB of K/V: four 16 KB
    // blocks at head_dim 64, two 32 KB blocks at 128 and 256; a stage of 64 KB or more keeps two.
    const fa::SplitChunkRule d64 = fa::split_chunk_rule(2LL * 64 * 64 * 2, 64);
    const fa::SplitChunkRule d128 = fa::split_chunk_rule(2LL * 64 * 128 * 2, 128);
    const fa::SplitChunkRule d256 = fa::split_chunk_rule(2LL * 32 * 256 * 2, 256);
    CHECK((d64.min_blocks == 2 && d64.one_warp_splits == 16 && d64.wide_min_blocks == 4));
    CHECK((d128.min_blocks == 2 && d128.one_warp_splits == 16 && d128.wide_min_blocks == 2));
    CHECK((d256.min_blocks == 2 && d256.one_warp_splits == 8 && d256.wide_min_blocks == 2));
    CHECK(fa::split_chunk_rule(2LL * 128 * 128 * 2, 128).wide_min_blocks == 2);
    // Rung 10 at 1x32x1xSk with 8 K/V heads (8 CTAs), the counts session 42 call A measured fastest:
    // head_dim 64 fills 528 slots (66 splits), 64-key blocks.
    auto d64_splits = [&](int seqlen_k) { return fa::choose_num_splits(8, 528, seqlen_k / 64, true, 528, 128, d64); };
    CHECK(d64_splits(1024) == 8);    // 16 blocks: chunks of 2 (16 splits of 1 block before)
    CHECK(d64_splits(2048) == 16);   // 32: chunks of 2, one combine warp (32 splits before)
    CHECK(d64_splits(4096) == 16);   // 64: past 16 splits chunks of 4 would take 16 (64 before)
    CHECK(d64_splits(8192) == 32);   // 128: chunks of 4 (64 before)
    CHECK(d64_splits(16384) == 64);  // 256: chunks of 4, as before
    CHECK(d64_splits(32768) == 64);  // 512: the fill's 66 splits, chunks of 8, as before
    // head_dim 128 fills 264 slots (33 splits): 1k 16 -> 8, 2k 32 -> 16, from 4k as before (32).
    auto d128_splits = [&](int seqlen_k) { return fa::choose_num_splits(8, 396, seqlen_k / 64, true, 264, 128, d128); };
    CHECK(d128_splits(1024) == 8);
    CHECK(d128_splits(2048) == 16);
    CHECK(d128_splits(4096) == 32);
    CHECK(d128_splits(131072) == 33);
    // head_dim 256, 32-key blocks: 1k 32 -> 16 (past its 8 one-warp splits, chunks of 2).
    CHECK(fa::choose_num_splits(8, 396, 32, true, 264, 128, d256) == 16);
    CHECK(fa::choose_num_splits(8, 396, 64, true, 264, 128, d256) == 32);
    // With 32 K/V heads the fill keeps chunks long already: 16 splits from 2k keys at head_dim 64;
    // at 1k (16 blocks) chunks of two: 8.
    CHECK(fa::choose_num_splits(32, 528, 16, true, 528, 128, d64) == 8);
    CHECK(fa::choose_num_splits(32, 528, 32, true, 528, 128, d64) == 16);
    // Never below one split, whatever the rule: 3 key blocks at chunks of 2 -> 1; 1 block -> 1.
    CHECK(fa::choose_num_splits(8, 528, 3, true, 528, 128, d64) == 1);
    CHECK(fa::choose_num_splits(8, 528, 1, true, 528, 128, d64) == 1);
}

TEST_CASE("split heuristic: the smallest count of the shortest critical path", "[splitkv]") {
    // 10 key blocks, 2 CTAs, 132 slots: 5 splits give chunks of 2 in one wave; 6..9 splits give
    // chunks of 2 too (one split left with less or nothing), 10 give chunks of 1 → 10 wins.
    CHECK(fa::choose_num_splits(2, 132, 10) == 10);
    // 2 CTAs on 12 slots: 6 splits fill the wave with chunks of 2; 10 splits need 2 waves of 1.
    CHECK(fa::choose_num_splits(2, 12, 10) == 5);
    for (int slots : {20, 40, 60, 132}) {
        const int n = fa::choose_num_splits(2, slots, 10);
        CHECK(n >= 1);
        CHECK(n <= 10);
        CHECK(2 * n <= slots);  // one wave
        // No smaller count has as short a critical path.
        auto path = [&](int k) { return ((2LL * k + slots - 1) / slots) * ((10 + k - 1) / k); };
        for (int k = 1; k < n; ++k) CHECK(path(k) > path(n));
    }
}

TEST_CASE("split workspace: fp32 partial O then LSE, 256-byte aligned", "[splitkv]") {
    fa::ProblemShape p;
    p.batch = 2;
    p.heads = 3;
    p.seqlen_q = 5;
    p.head_dim = 64;
    CHECK(fa::splitkv_workspace_bytes(p, 1) == 0);
    // 4 splits · 30 rows: O 4·30·64·4 = 30,720 B (a multiple of 256), LSE 480 B → 512.
    CHECK(fa::splitkv_workspace_bytes(p, 4) == 30720 + 512);
    fa::FwdParams f{};
    f.batch = p.batch;
    f.heads = p.heads;
    f.seqlen_q = p.seqlen_q;
    f.head_dim = p.head_dim;
    alignas(256) static unsigned char ws[30720 + 512];
    fa::assign_splitkv_workspace(&f, 4, ws);
    CHECK(f.num_splits == 4);
    CHECK(reinterpret_cast<unsigned char*>(f.o_partial) == ws);
    CHECK(reinterpret_cast<unsigned char*>(f.lse_partial) == ws + 30720);
    fa::assign_splitkv_workspace(&f, 1, ws);
    CHECK(f.num_splits == 1);
    CHECK(f.o_partial == nullptr);
}

TEST_CASE("tail split: the last wave's tiles cut into key chunks where it is at most half full", "[splitkv]") {
    // 1x16x16384x128 on rung 8's 192-row blocks: 1,376 tiles of 256 key tiles on 132 SMs, 10 full
    // waves and 56 tiles: 2 chunks each (112 CTAs) end the launch half a tile time earlier.
    fa::TailSplit t = fa::choose_tail_split(1376, 132, 256, false);
    CHECK(t.tiles == 56);
    CHECK(t.splits == 2);
    // Causal grids run heaviest first: their last wave holds the shortest tiles. Not split.
    CHECK(fa::choose_tail_split(1376, 132, 256, true).tiles == 0);
    // A last wave of 68 (over half): 2 chunks each would need 136 CTAs, more than one wave (3 chunks
    // each, two rounds of a third of a tile, measured level in session 30: fa/splitkv.h).
    CHECK(fa::choose_tail_split(2048, 132, 256, false).tiles == 0);
    // Whole waves: nothing to split.
    CHECK(fa::choose_tail_split(1320, 132, 256, false).tiles == 0);
    // 20 tiles: up to 6 chunks fit the wave, kMaxTailSplits caps them at 4.
    t = fa::choose_tail_split(20, 132, 256, false);
    CHECK(t.tiles == 20);
    CHECK(t.splits == fa::kMaxTailSplits);
    // Chunks of at least kMinTailChunkBlocks key tiles: 17 key tiles make 2, 15 none.
    CHECK(fa::choose_tail_split(20, 132, 17, false).splits == 2);
    CHECK(fa::choose_tail_split(20, 132, 15, false).tiles == 0);
    // 44 tiles on 132 SMs (1x16x2048 at 192 rows is 176: 132 + 44): 3 chunks of 11 key tiles.
    t = fa::choose_tail_split(176, 132, 33, false);
    CHECK(t.tiles == 44);
    CHECK(t.splits == 3);
    CHECK(fa::choose_tail_split(0, 132, 256, false).tiles == 0);
}

TEST_CASE("split-KV combine: one warp a row up to one round of loads, then up to 4 splits a lane slot", "[splitkv]") {
    // One warp while its one round of loads covers the splits: 16 at head_dim 64 and 128, 8 at 256.
    CHECK(fa::combine_warps_per_row(2, 1, 16) == 1);
    CHECK(fa::combine_warps_per_row(16, 1, 16) == 1);
    CHECK(fa::combine_warps_per_row(16, 2, 16) == 1);
    CHECK(fa::combine_warps_per_row(8, 1, 8) == 1);
    // Past it, from two warps, doubling until a slot holds at most 4: 17 -> 8 at head_dim 128
    // (3 a slot), 17 -> 4 at head_dim 64 (two groups, 3 a slot), 9 -> 4 at head_dim 256 (3 a slot).
    CHECK(fa::combine_warps_per_row(17, 1, 16) == 8);
    CHECK(fa::combine_warps_per_row(17, 2, 16) == 4);
    CHECK(fa::combine_warps_per_row(9, 1, 8) == 4);
    CHECK(fa::combine_warps_per_row(9, 2, 16) == 1);
    // The B = 1 GQA decode counts (session 41 calls C and D): 33 -> 8 at head_dim 128 and 256 (5 a
    // slot), 64 -> 8 at head_dim 64 (4 a slot); never more than 8 (128 splits: 16 a slot).
    CHECK(fa::combine_warps_per_row(33, 1, 16) == 8);
    CHECK(fa::combine_warps_per_row(33, 1, 8) == 8);
    CHECK(fa::combine_warps_per_row(64, 2, 16) == 8);
    CHECK(fa::combine_warps_per_row(128, 1, 16) == fa::kCombineMaxWarpsPerRow);
    // 32 splits at head_dim 64: four warps (two groups each) hold 4 a slot, so not eight.
    CHECK(fa::combine_warps_per_row(32, 2, 16) == 4);
    CHECK(fa::combine_warps_per_row(33, 2, 16) == 8);
}
