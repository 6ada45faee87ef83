#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "fa/registry.h"

TEST_CASE("registry: unique slugs, every kernel has instances that obey the tile rules", "[registry]") {
    std::set<std::string> slugs;
    for (const fa::KernelInfo& k : fa::kernel_registry()) {
        INFO(k.slug);
        CHECK(slugs.insert(k.slug).second);
        CHECK(k.min_sm >= 80);
        REQUIRE_FALSE(k.instances().empty());
        for (const fa::KernelInstance& inst : k.instances()) {
            CHECK(inst.launch != nullptr);
            CHECK(inst.head_dim % 8 == 0);
            if (inst.tile.m_block_size != 0) {
                CHECK(inst.tile.num_threads % 32 == 0);
                if (k.example_tile_rule) CHECK((inst.tile.m_block_size * 2) % inst.tile.num_threads == 0);
                CHECK(inst.kernel_func != nullptr);
            }
        }
    }
    CHECK(fa::find_kernel("naive") != nullptr);
    CHECK(fa::find_kernel("no-such-kernel") == nullptr);
}

TEST_CASE("check_support explains why a problem cannot run", "[registry]") {
    const fa::KernelInfo* naive = fa::find_kernel("naive");
    REQUIRE(naive != nullptr);
    fa::ProblemShape p;
    const fa::KernelInstance* inst = nullptr;

    CHECK(fa::check_support(*naive, p, nullptr, 90, 227 * 1024, &inst).empty());
    CHECK(inst != nullptr);

    CHECK(fa::check_support(*naive, p, nullptr, 75, 64 * 1024, &inst) == "needs sm_80 or newer, device is sm_75");
    CHECK(inst == nullptr);

    p.head_dim = 12;
    CHECK(fa::check_support(*naive, p, nullptr, 90, 227 * 1024, &inst) ==
          "head_dim must be a multiple of 8 (16-byte rows)");
}

TEST_CASE("check_support on tiled kernels names the valid tiles", "[registry]") {
    for (const fa::KernelInfo& k : fa::kernel_registry()) {
        const fa::KernelInstance& first = k.instances().front();
        if (first.tile.m_block_size == 0) continue;
        INFO(k.slug);
        fa::ProblemShape p;
        p.dtype = first.dtype;
        p.head_dim = first.head_dim;
        // 1,024 rows: no row's DefaultRule names the problem (rung 7's 160-key tile takes 2,048 on).
        p.seqlen_q = p.seqlen_k = 1024;
        const fa::KernelInstance* inst = nullptr;
        // No tile given: the first (default) instance.
        REQUIRE(fa::check_support(k, p, nullptr, 90, 227 * 1024, &inst).empty());
        CHECK(inst == &first);
        // A tile that obeys the rules but is not instantiated.
        const fa::TileConfig odd{256, 16, 512};
        const std::string why = fa::check_support(k, p, &odd, 90, 227 * 1024, &inst);
        CHECK(why.find("256x16x512") != std::string::npos);
        CHECK(why.find("valid:") != std::string::npos);
        CHECK(inst == nullptr);
        // Too little shared memory on the device.
        const std::string smem = fa::check_support(k, p, nullptr, 90, first.smem_bytes - 1, &inst);
        if (first.smem_bytes > 0) CHECK(smem.find("shared memory") != std::string::npos);
        // A head_dim nobody instantiates lists what exists.
        p.head_dim = 200;
        CHECK(fa::check_support(k, p, nullptr, 90, 227 * 1024, &inst).find("not instantiated") != std::string::npos);
    }
}

TEST_CASE("rows built for sm_90a are the default on sm_90 and skipped elsewhere", "[registry]") {
    const fa::KernelInfo* ws = fa::find_kernel("warp_specialized");
    REQUIRE(ws != nullptr);
    fa::ProblemShape p;
    p.dtype = fa::DType::BFloat16;
    p.head_dim = 128;
    const fa::KernelInstance* inst = nullptr;

    // On sm_90 the default is a setmaxnreg row (producer warpgroup, 8 consumer warps per SM).
    REQUIRE(fa::check_support(*ws, p, nullptr, 90, 227 * 1024, &inst).empty());
    REQUIRE(inst != nullptr);
    CHECK(inst->only_sm == 90);
    const fa::TileConfig sm90a_tile = inst->tile;

    // On sm_80 (and sm_100) the default is a portable row, and the sm_90a tile is refused by name.
    for (int sm : {80, 100}) {
        INFO("sm_" << sm);
        REQUIRE(fa::check_support(*ws, p, nullptr, sm, 163 * 1024, &inst).empty());
        REQUIRE(inst != nullptr);
        CHECK(inst->only_sm == 0);
        const std::string why = fa::check_support(*ws, p, &sm90a_tile, sm, 227 * 1024, &inst);
        CHECK(why.find("built for sm_90a and runs on sm_90 only") != std::string::npos);
        CHECK(inst == nullptr);
    }
    // The portable rows stay selectable on sm_90.
    const fa::TileConfig portable{176, 32, 352};
    REQUIRE(fa::check_support(*ws, p, &portable, 90, 227 * 1024, &inst).empty());
    CHECK(inst->only_sm == 0);
}

TEST_CASE("runnable_instances: the rows a device can launch", "[registry]") {
    const fa::KernelInfo* ws = fa::find_kernel("warp_specialized");
    const fa::KernelInfo* wgmma = fa::find_kernel("wgmma_tma");
    REQUIRE(ws != nullptr);
    REQUIRE(wgmma != nullptr);
    const std::size_t lots = 227 * 1024;
    auto has_sm90a_row = [](const std::vector<const fa::KernelInstance*>& rows) {
        for (const fa::KernelInstance* inst : rows)
            if (inst->only_sm == 90) return true;
        return false;
    };

    // sm_90 runs both builds of rung 4, in registry order (the sm_90a default first); sm_80 and
    // sm_100 only the portable rows.
    const auto on90 = fa::runnable_instances(*ws, fa::DType::BFloat16, 128, 90, lots);
    REQUIRE_FALSE(on90.empty());
    CHECK(on90.front()->only_sm == 90);
    for (int sm : {80, 100}) {
        INFO("sm_" << sm);
        const auto rows = fa::runnable_instances(*ws, fa::DType::BFloat16, 128, sm, lots);
        CHECK_FALSE(rows.empty());
        CHECK_FALSE(has_sm90a_row(rows));
    }
    // The Hopper rungs run on sm_90 only; nothing runs below a kernel's minimum SM.
    CHECK_FALSE(fa::runnable_instances(*wgmma, fa::DType::BFloat16, 128, 90, lots).empty());
    CHECK(fa::runnable_instances(*wgmma, fa::DType::BFloat16, 128, 100, lots).empty());
    CHECK(fa::runnable_instances(*ws, fa::DType::BFloat16, 128, 75, lots).empty());
    // A row over the device's shared memory drops out; with no device (sm 0) every row is listed.
    const std::size_t first_smem = on90.front()->smem_bytes;
    for (const fa::KernelInstance* inst : fa::runnable_instances(*ws, fa::DType::BFloat16, 128, 90, first_smem - 1))
        CHECK(inst->smem_bytes < first_smem);
    std::size_t instantiated = 0;
    for (const fa::KernelInstance& inst : ws->instances())
        if (inst.dtype == fa::DType::BFloat16 && inst.head_dim == 128) ++instantiated;
    CHECK(fa::runnable_instances(*ws, fa::DType::BFloat16, 128, 0, 0).size() == instantiated);
}

TEST_CASE("what check_support picks is a row runnable_instances lists", "[registry]") {
    const std::size_t lots = 227 * 1024;
    for (const fa::KernelInfo& k : fa::kernel_registry())
        for (int sm : {80, 90, 100})
            for (const fa::KernelInstance& row : k.instances()) {
                INFO(k.slug << " sm_" << sm << " " << fa::dtype_name(row.dtype) << " head_dim " << row.head_dim);
                fa::ProblemShape p;
                p.dtype = row.dtype;
                p.head_dim = row.head_dim ? row.head_dim : 64;
                const auto runnable = fa::runnable_instances(k, p.dtype, p.head_dim, sm, lots);
                const fa::KernelInstance* inst = nullptr;
                if (fa::check_support(k, p, nullptr, sm, lots, &inst).empty()) {
                    REQUIRE(inst != nullptr);
                    CHECK(std::find(runnable.begin(), runnable.end(), inst) != runnable.end());
                } else {
                    CHECK(runnable.empty());
                }
            }
}

TEST_CASE("check_support applies a kernel's own limit: naive's softmax grid", "[registry]") {
    const fa::KernelInfo* naive = fa::find_kernel("naive");
    REQUIRE(naive != nullptr);
    fa::ProblemShape p;
    p.heads = 4096;
    p.seqlen_q = 1 << 19;  // 2^31 CTAs: one past CUDA's grid.x limit
    const fa::KernelInstance* inst = nullptr;
    CHECK(fa::check_support(*naive, p, nullptr, 90, 227 * 1024, &inst) ==
          "its softmax launch needs num_head x seqlen_q = 2147483648 CTAs in grid.x, CUDA allows 2147483647");
    CHECK(inst == nullptr);
    p.seqlen_q = (1 << 19) - 1;
    CHECK(fa::check_support(*naive, p, nullptr, 90, 227 * 1024, &inst).empty());
}

// Issue #13: the CuTe example's 128x64x128 runs on every rung whose code can hold it, after the
// defaults (which do not change), and every other rung's reason names the closest legal tile.
TEST_CASE("the example's 128x64x128: built where legal, otherwise the closest legal tile named", "[registry]") {
    const fa::TileConfig example{128, 64, 128};
    for (fa::DType dtype : {fa::DType::BFloat16, fa::DType::Float16})
        for (int d : {64, 128}) {
            fa::ProblemShape p;
            p.dtype = dtype;
            p.head_dim = d;
            for (const char* slug : {"tiled", "cp_async", "mma", "warp_specialized", "wgmma_tma", "wgmma_ws",
                                     "wgmma_overlap"}) {
                const fa::KernelInfo* k = fa::find_kernel(slug);
                REQUIRE(k != nullptr);
                INFO(slug << " " << fa::dtype_name(dtype) << " head_dim " << d);
                const fa::KernelInstance* inst = nullptr;
                const std::string why = fa::check_support(*k, p, &example, 90, 227 * 1024, &inst);
                const bool scalar = std::string(slug) == "tiled" || std::string(slug) == "cp_async";
                const bool hopper = k->min_sm == 90;
                if (hopper) {
                    CHECK(why.find("the closest legal tile is 128x64x256") != std::string::npos);
                } else if (scalar && d == 128) {
                    CHECK(why.find("the closest legal tile is 64x64x128") != std::string::npos);
                } else {
                    CHECK(why.empty());
                    REQUIRE(inst != nullptr);
                    CHECK(inst->tile == example);
                }
            }
        }
    // mma at BFloat16 head_dim 128 runs the example's tile without a tile flag (03_mma.cu: measured
    // 11-13 % faster than 128x32x128 on the H100), and 128x32x128 stays selectable.
    fa::ProblemShape p;
    const fa::KernelInstance* inst = nullptr;
    CHECK(fa::check_support(*fa::find_kernel("mma"), p, nullptr, 80, 163 * 1024, &inst).empty());
    REQUIRE(inst != nullptr);
    CHECK(inst->tile == fa::TileConfig{128, 64, 128});
    const fa::TileConfig kept{128, 32, 128};
    CHECK(fa::check_support(*fa::find_kernel("mma"), p, &kept, 80, 163 * 1024, &inst).empty());
    // A legal Hopper tile that is simply not built names no rule, only the instantiated ones.
    const fa::TileConfig legal_hopper{128, 64, 256};
    const std::string why = fa::check_support(*fa::find_kernel("wgmma_tma"), p, &legal_hopper, 90, 227 * 1024, &inst);
    CHECK(why.find("not instantiated; valid: 128x128x256") != std::string::npos);
}

TEST_CASE("registry: the math unit of each rung, which sets its model ceiling", "[registry]") {
    // tiled and cp_async multiply with FFMA on the CUDA cores; naive's cuBLAS GEMMs and rungs 3-7
    // (mma.sync, wgmma) run on the tensor cores.
    for (const fa::KernelInfo& k : fa::kernel_registry()) {
        INFO(k.slug);
        const bool ffma = std::string(k.slug) == "tiled" || std::string(k.slug) == "cp_async";
        CHECK(k.caps.math == (ffma ? fa::MathUnit::CudaCoreFp32 : fa::MathUnit::TensorCore));
    }
}

// Issue #10: head_dim 256 runs FA3's 80-key tile on every Hopper rung (lib/device/wgmma_traits.cuh:
// 64-key tiles left S = Q·Kᵀ bound by shared-memory reads), 80 is a legal Hopper N, and a tile
// near it names it.
TEST_CASE("head_dim 256 on the Hopper rungs: the 128x80x256 tile", "[registry]") {
    for (const char* slug : {"wgmma_tma", "wgmma_ws", "wgmma_overlap", "wgmma_persistent"}) {
        const fa::KernelInfo* k = fa::find_kernel(slug);
        REQUIRE(k != nullptr);
        for (fa::DType dtype : {fa::DType::BFloat16, fa::DType::Float16}) {
            INFO(slug << " " << fa::dtype_name(dtype));
            fa::ProblemShape p;
            p.dtype = dtype;
            p.head_dim = 256;
            const fa::KernelInstance* inst = nullptr;
            CHECK(fa::check_support(*k, p, nullptr, 90, 227 * 1024, &inst).empty());
            REQUIRE(inst != nullptr);
            CHECK(inst->tile == fa::TileConfig{128, 80, 256});
            CHECK(inst->smem_bytes <= 227 * 1024);
            const fa::TileConfig near{128, 96, 256};
            CHECK(fa::check_support(*k, p, &near, 90, 227 * 1024, &inst).find("the closest legal tile is 128x80x256") !=
                  std::string::npos);
        }
    }
}

// Rung 9 is rung 7 made persistent: the same problems (LSE, split-KV, packed GQA), head_dims and
// tuned tiles. Rows with a DefaultRule are each rung's own (rung 7: the 64-row decode tile, which
// measured slower than rung 9's 128 rows on many-tile decode; rung 9: a 128-row head_dim-64 tile
// for short causal problems).
TEST_CASE("wgmma_persistent takes what wgmma_overlap takes", "[registry]") {
    const fa::KernelInfo* overlap = fa::find_kernel("wgmma_overlap");
    const fa::KernelInfo* persistent = fa::find_kernel("wgmma_persistent");
    REQUIRE(overlap != nullptr);
    REQUIRE(persistent != nullptr);
    CHECK(persistent->rung == 9);
    CHECK(persistent->min_sm == 90);
    CHECK(persistent->arch_specific);
    CHECK(persistent->caps.lse == overlap->caps.lse);
    CHECK(persistent->caps.split_kv == overlap->caps.split_kv);
    CHECK(persistent->caps.pack_gqa == overlap->caps.pack_gqa);
    auto tuned = [](const fa::KernelInfo* k) {
        std::vector<fa::KernelInstance> rows;
        for (const fa::KernelInstance& inst : k->instances())
            if (inst.default_rule.applies == nullptr) rows.push_back(inst);
        return rows;
    };
    const auto a = tuned(overlap);
    const auto b = tuned(persistent);
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        CHECK(a[i].dtype == b[i].dtype);
        CHECK(a[i].head_dim == b[i].head_dim);
        CHECK(a[i].tile == b[i].tile);
    }
}

// Rung 9 numbers its tiles in one int: a problem whose tiles (x splits) pass 2^31 - 1 is refused
// with the reason, before anything runs.
TEST_CASE("check_support applies rung 9's own limit: its tile counter", "[registry]") {
    const fa::KernelInfo* persistent = fa::find_kernel("wgmma_persistent");
    REQUIRE(persistent != nullptr);
    fa::ProblemShape p;
    p.batch = 1;
    p.heads = 1 << 16;
    p.seqlen_q = 1 << 22;  // 2^15 row blocks x 2^16 heads = 2^31 tiles
    p.seqlen_k = 128;
    const fa::KernelInstance* inst = nullptr;
    CHECK(fa::check_support(*persistent, p, nullptr, 90, 227 * 1024, &inst) ==
          "its tile counter numbers up to 2147483648 tiles of 128 query rows (x num_splits) in an int, past 2147483647");
    CHECK(inst == nullptr);
    p.heads = (1 << 16) - 1;
    CHECK(fa::check_support(*persistent, p, nullptr, 90, 227 * 1024, &inst).empty());
    p.num_splits = 2;  // the split count multiplies the tiles
    CHECK_FALSE(fa::check_support(*persistent, p, nullptr, 90, 227 * 1024, &inst).empty());
    // Rung 7 launches one CTA per tile: fwd_grid's x alone is limited (by the runner).
    p.num_splits = 0;
    p.heads = 1 << 16;
    CHECK(fa::check_support(*fa::find_kernel("wgmma_overlap"), p, nullptr, 90, 227 * 1024, &inst).empty());
}

TEST_CASE("a row's DefaultRule makes it the default for the problems it names", "[registry]") {
    const fa::KernelInstance* inst = nullptr;
    fa::ProblemShape p;
    p.dtype = fa::DType::BFloat16;
    p.head_dim = 128;
    p.batch = 1;
    p.heads = 32;
    p.seqlen_k = 131072;

    // Rungs 6 and 7: the 64-row decode tile once every query row of a (batch, K/V head) fits 64 rows
    // (packed GQA: seqlen_q x heads per K/V head), the 128-row tile otherwise.
    for (const char* slug : {"wgmma_ws", "wgmma_overlap"}) {
        INFO(slug);
        const fa::KernelInfo* k = fa::find_kernel(slug);
        REQUIRE(k != nullptr);
        const struct {
            int seqlen_q, heads_kv, m_block;
        } cases[] = {{1, 8, 64}, {1, 32, 64}, {16, 8, 64}, {64, 32, 64}, {17, 8, 128}, {65, 32, 128}, {4096, 32, 128}};
        for (const auto& c : cases) {
            INFO("seqlen_q " << c.seqlen_q << " heads_kv " << c.heads_kv);
            p.seqlen_q = c.seqlen_q;
            p.heads_kv = c.heads_kv;
            REQUIRE(fa::check_support(*k, p, nullptr, 90, 227 * 1024, &inst).empty());
            CHECK(inst->tile.m_block_size == c.m_block);
        }
        // A tile flag still wins over the rule.
        p.seqlen_q = 1;
        const fa::TileConfig big{128, 128, 256};
        REQUIRE(fa::check_support(*k, p, &big, 90, 227 * 1024, &inst).empty());
        CHECK(inst->tile == big);
    }

    // Rung 7 at head_dim 128: the 160-key tile from 2,048 query and key rows on, causal or not
    // (07_wgmma_overlap.cu); rung 9 the same tile from 2,048 rows when non-causal
    // (09_wgmma_persistent.cu); rung 6 keeps 128 keys. The decode tile's rule comes first.
    p.heads_kv = 0;
    const struct {
        int seqlen_q, seqlen_k;
        bool causal;
        int overlap_n, persistent_n;
    } d128[] = {{2048, 2048, false, 160, 160}, {8192, 8192, true, 160, 128}, {16384, 4096, false, 160, 160},
                {2047, 8192, false, 128, 128}, {8192, 2047, true, 128, 128}, {4096, 2047, false, 128, 128},
                {512, 512, false, 128, 128}};
    for (fa::DType dtype : {fa::DType::BFloat16, fa::DType::Float16})
        for (const auto& c : d128) {
            INFO(fa::dtype_name(dtype) << " seqlen_q " << c.seqlen_q << " seqlen_k " << c.seqlen_k << " causal "
                                       << c.causal);
            p.dtype = dtype;
            p.seqlen_q = c.seqlen_q;
            p.seqlen_k = c.seqlen_k;
            p.causal = c.causal;
            for (const char* slug : {"wgmma_ws", "wgmma_overlap", "wgmma_persistent"}) {
                INFO(slug);
                REQUIRE(fa::check_support(*fa::find_kernel(slug), p, nullptr, 90, 227 * 1024, &inst).empty());
                const std::string name(slug);
                const int n = name == "wgmma_overlap" ? c.overlap_n : name == "wgmma_persistent" ? c.persistent_n : 128;
                CHECK(inst->tile == fa::TileConfig{128, n, 256});
            }
        }
    p.dtype = fa::DType::BFloat16;
    p.seqlen_q = 1;  // rows fit 64: the decode tile, whatever seqlen_k
    REQUIRE(fa::check_support(*fa::find_kernel("wgmma_overlap"), p, nullptr, 90, 227 * 1024, &inst).empty());
    CHECK(inst->tile.m_block_size == 64);
    p.seqlen_q = 8192;  // a tile flag still wins
    const fa::TileConfig narrow{128, 128, 256};
    REQUIRE(fa::check_support(*fa::find_kernel("wgmma_overlap"), p, &narrow, 90, 227 * 1024, &inst).empty());
    CHECK(inst->tile == narrow);
    p.causal = false;

    // Rung 9 at head_dim 64: the 128-row tile for causal problems of at most 1,024 rows.
    const fa::KernelInfo* persistent = fa::find_kernel("wgmma_persistent");
    REQUIRE(persistent != nullptr);
    p.head_dim = 64;
    p.heads_kv = 0;
    const struct {
        int seqlen;
        bool causal;
        int m_block;
    } d64[] = {{512, true, 128}, {1024, true, 128}, {1025, true, 192}, {512, false, 192}, {8192, true, 192}};
    for (const auto& c : d64) {
        INFO("seqlen " << c.seqlen << " causal " << c.causal);
        p.seqlen_q = p.seqlen_k = c.seqlen;
        p.causal = c.causal;
        REQUIRE(fa::check_support(*persistent, p, nullptr, 90, 227 * 1024, &inst).empty());
        CHECK(inst->tile.m_block_size == c.m_block);
    }

    // Rung 9 at head_dim 256: the staged 64-key tile up to 512 keys, 1,024 when causal, and at most
    // 1,024 query rows (session 18 calls 7-8); the 80-key tile elsewhere. bf16 and fp16 alike.
    p.head_dim = 256;
    const struct {
        int seqlen_q, seqlen_k;
        bool causal;
        int n_block;
    } d256[] = {{512, 512, false, 64},   {512, 512, true, 64},    {1024, 1024, true, 64},  {1024, 1024, false, 80},
                {1024, 513, false, 80},  {2048, 2048, true, 80},  {2048, 512, false, 80},  {1, 512, false, 64},
                {1024, 1025, true, 80}};
    for (fa::DType dtype : {fa::DType::BFloat16, fa::DType::Float16})
        for (const auto& c : d256) {
            INFO(fa::dtype_name(dtype) << " seqlen_q " << c.seqlen_q << " seqlen_k " << c.seqlen_k << " causal "
                                       << c.causal);
            p.dtype = dtype;
            p.seqlen_q = c.seqlen_q;
            p.seqlen_k = c.seqlen_k;
            p.causal = c.causal;
            REQUIRE(fa::check_support(*persistent, p, nullptr, 90, 227 * 1024, &inst).empty());
            CHECK(inst->tile == fa::TileConfig{128, c.n_block, 256});
        }
}
