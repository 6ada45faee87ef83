// The causal / tail mask as one bound per query position (device/mask.cuh, visible_key_bound), which
// the Hopper rungs' mask_tile compares each element against, is the same rule as key_visible, the
// per-key form the other rungs and the references use; and tile_needs_mask flags every key tile
// holding an invisible key of the row block (a tile it passes runs unmasked).
#include <catch2/catch.hpp>

#include "device/mask.cuh"

TEST_CASE("visible_key_bound is key_visible as a prefix of the keys", "[mask]") {
    int checked = 0;
    for (const bool causal : {false, true})
        for (int seqlen_k = 1; seqlen_k <= 70; ++seqlen_k)
            for (int pos = 0; pos <= 80; ++pos) {
                const int bound = fa::visible_key_bound(pos, seqlen_k, causal);
                REQUIRE(bound >= 1);  // every query position sees key 0 (top-left causal alignment)
                REQUIRE(bound <= seqlen_k);
                for (int col = 0; col <= 80; ++col) {
                    if ((col < bound) != fa::key_visible(pos, col, seqlen_k, causal)) {
                        FAIL("causal " << causal << " seqlen_k " << seqlen_k << " pos " << pos << " col " << col);
                    }
                    ++checked;
                }
            }
    CHECK(checked == 2 * 70 * 81 * 81);
}

TEST_CASE("mask_tile's per-element compare: column offset j against the bound less the thread's first column",
          "[mask]") {
    // mask_tile (wgmma_steps.cuh) hides element j of a thread whose first column is first_col when
    // j >= visible_key_bound(pos) - first_col; that is key_visible(pos, first_col + j) for every tile
    // start and lane column, including tiles past the bound (negative offsets) and before it.
    for (const bool causal : {false, true})
        for (const int seqlen_k : {1, 17, 64, 100, 129})
            for (int pos = 0; pos < 140; pos += 3)
                for (int n_start = 0; n_start < 160; n_start += 16)
                    for (int c0 = 0; c0 < 8; c0 += 2)
                        for (int j = 0; j < 64; ++j) {
                            const int first_col = n_start + c0;
                            const bool hidden = j >= fa::visible_key_bound(pos, seqlen_k, causal) - first_col;
                            REQUIRE(hidden == !fa::key_visible(pos, first_col + j, seqlen_k, causal));
                        }
}

TEST_CASE("tile_needs_mask flags every key tile with an invisible key of the row block", "[mask]") {
    // A row block of block_m positions from first_pos: a tile it does not flag must be visible to
    // every row of the block (the unmasked loop applies no mask at all).
    for (const bool causal : {false, true})
        for (const int seqlen_k : {1, 50, 128, 200})
            for (const int block_n : {16, 64, 80, 128})
                for (int first_pos = 0; first_pos < 260; first_pos += 7)
                    for (int n_start = 0; n_start < seqlen_k; n_start += block_n) {
                        if (fa::tile_needs_mask(first_pos, n_start, block_n, seqlen_k, causal)) continue;
                        for (int row = first_pos; row < first_pos + 128; ++row)
                            for (int col = n_start; col < n_start + block_n; ++col)
                                REQUIRE(fa::key_visible(row, col, seqlen_k, causal));
                    }
}

TEST_CASE("unmasked_key_tiles counts the tiles before the first one tile_needs_mask flags", "[mask]") {
    // Rungs 7 and 9 run that many tiles, from tile_begin, without the mask test: each must be one
    // tile_needs_mask passes, and the next (if any) one it flags, for every tail split's first tile.
    int prefixes = 0;
    for (const bool causal : {false, true})
        for (const int seqlen_k : {1, 50, 128, 200, 384, 777})
            for (const int block_n : {64, 80, 128, 160})
                for (int first_pos = 0; first_pos < 900; first_pos += 13)
                    for (int tile_begin = 0; tile_begin <= 3; ++tile_begin)
                        for (int n_tiles = 0; n_tiles <= 8; ++n_tiles) {
                            const int u = fa::unmasked_key_tiles(first_pos, tile_begin, n_tiles, block_n, seqlen_k,
                                                                 causal);
                            REQUIRE(u >= 0);
                            REQUIRE(u <= n_tiles);
                            for (int t = 0; t < n_tiles; ++t) {
                                const bool needs = fa::tile_needs_mask(first_pos, (tile_begin + t) * block_n, block_n,
                                                                       seqlen_k, causal);
                                if (needs != (t >= u))
                                    FAIL("causal " << causal << " seqlen_k " << seqlen_k << " block_n " << block_n
                                                   << " first_pos " << first_pos << " tile_begin " << tile_begin
                                                   << " tile " << t << " of " << n_tiles << ": " << u);
                            }
                            prefixes += u > 0 && u < n_tiles;
                        }
    CHECK(prefixes > 1000);  // the split point falls inside the range often, not only at its ends
}
