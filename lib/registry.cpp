// The one list of every kernel fa-bench runs. Adding a rung = one row here + its file in lib/kernels.
#include "fa/registry.h"

#include <fmt/format.h>

#include <algorithm>

#include "kernels/kernels.h"

namespace fa {
namespace {

// naive's softmax launch has one CTA per (head, query row) of a batch in grid.x
// (lib/kernels/00_naive.cu), and CUDA allows at most 2^31 - 1 there.
std::string naive_problem_limit(const ProblemShape& p) {
    const long long ctas = static_cast<long long>(p.heads) * p.seqlen_q;
    if (ctas <= 2147483647LL) return {};
    return fmt::format("its softmax launch needs num_head x seqlen_q = {} CTAs in grid.x, CUDA allows 2147483647",
                       ctas);
}

// Rung 9 (09_wgmma_persistent.cu) numbers the tiles of fwd_grid's x · y in one int (its work
// counter); counted here at its smallest M tile (128 rows), packed GQA or not, and with the split
// count asked for (the heuristic splits only grids too small to fill the GPU).
std::string persistent_problem_limit(const ProblemShape& p) {
    const long long blocks = std::max((p.seqlen_q + 127LL) / 128 * p.heads,
                                      (static_cast<long long>(p.seqlen_q) * p.heads_per_kv() + 127) / 128 * p.kv_heads());
    const long long tiles = blocks * p.batch * std::max(p.num_splits, 1);
    if (tiles <= 2147483647LL) return {};
    return fmt::format("its tile counter numbers up to {} tiles of 128 query rows (x num_splits) in an int, past 2147483647",
                       tiles);
}

std::string tile_text(int m, int n, int threads) { return fmt::format("{}x{}x{}", m, n, threads); }

// Rungs 1-2 (lib/device/scalar_tile.cuh): a lane owns 8·m_block_size / num_threads query rows and
// keeps, per row, D/8 O accumulators, n_block_size/8 scores and one 16-byte Q chunk as fp32 in
// the S loop. ptxas (CUDA 13.0, sm_80) fits up to 192 such values beside addresses and softmax
// state: 236-240 registers at 128x64x128 head_dim 64 (8 rows x 24), 238-255 at 64x32x128
// head_dim 256 (4 x 44); at 128x64x128 head_dim 128 (8 x 32 = 256) it spills 472 bytes a thread.
std::string scalar_tile_limit(const TileConfig& t, const ProblemShape& p) {
    if (t.num_threads <= 0 || t.m_block_size <= 0) return {};
    const int chunk = 16 / static_cast<int>(dtype_bytes(p.dtype));
    auto live = [&](int m) { return 8 * m / t.num_threads * (p.head_dim / 8 + t.n_block_size / 8 + chunk); };
    constexpr int kMaxLive = 192;
    if (live(t.m_block_size) <= kMaxLive) return {};
    int m = t.m_block_size;
    while (m > t.num_threads / 8 && live(m) > kMaxLive) m /= 2;  // a lane keeps at least one row
    const std::string closest =
        live(m) <= kMaxLive ? fmt::format("; the closest legal tile is {}", tile_text(m, t.n_block_size, t.num_threads))
                            : "";
    return fmt::format("{} query rows per lane need {} live fp32 values for O, S and a Q chunk at head_dim {}, "
                       "past the {} that fit in 255 registers without spilling{}",
                       8 * t.m_block_size / t.num_threads, live(t.m_block_size), p.head_dim, kMaxLive, closest);
}

// Rungs 5-7 (lib/device/wgmma_traits.cuh): wgmma's M is 64 rows per 128-thread warpgroup, so a
// Hopper tile is 64·w query rows x 128·w consumer threads for w warpgroups (w <= 4: a TMA box
// spans at most 256 rows), and wgmma's N for S = Q·Kᵀ here is 64, 80 (head_dim 256) or 128 keys.
std::string hopper_tile_limit(const TileConfig& t, const ProblemShape&) {
    const bool legal = t.num_threads % 128 == 0 && t.m_block_size == t.num_threads / 2 && t.m_block_size <= 256 &&
                       (t.n_block_size == 64 || t.n_block_size == 80 || t.n_block_size == 128);
    if (legal) return {};
    // Keep the query rows (the work per CTA) and take the warpgroups they need.
    const int warpgroups = std::clamp((t.m_block_size + 32) / 64, 1, 4);
    const int n = t.n_block_size <= 72 ? 64 : t.n_block_size <= 104 ? 80 : 128;
    return fmt::format("Hopper tiles are 64 query rows per 128-thread consumer warpgroup (wgmma M = 64) and 64, 80 "
                       "or 128 keys (wgmma N); the closest legal tile is {}",
                       tile_text(64 * warpgroups, n, 128 * warpgroups));
}

}  // namespace

const std::vector<KernelInfo>& kernel_registry() {
    // Capabilities (fa/registry.h): the fused rungs write the LSE; split-KV and packed GQA are on
    // the decode-capable rungs (mma and the Hopper tier; fa/splitkv.h says why split-KV exists).
    // Math unit: naive's GEMMs are cuBLAS HMMA for 16-bit inputs (ncu: 13.5 % tensor pipe at
    // 4x16x4096x128), so its ceiling is the tensor cores'; tiled and cp_async multiply with FFMA
    // on the CUDA cores (34-36 TFLOP/s on the H100, against 67 FP32 and 1070 tensor).
    constexpr KernelCaps kPlain{};
    constexpr KernelCaps kLseFfma{true, false, false, MathUnit::CudaCoreFp32};
    constexpr KernelCaps kLse{true, false, false};
    constexpr KernelCaps kDecode{true, true, true};
    constexpr KernelCaps kDecodeTail{true, true, true, MathUnit::TensorCore, false, true};
    constexpr KernelCaps kPersistent{true, true, true, MathUnit::TensorCore, true, true};
    constexpr KernelCaps kTailSplit{false, false, false, MathUnit::TensorCore, false, true};
    constexpr KernelCaps kDecodeChunks{true, true, true, MathUnit::TensorCore, false, false, true};
    static const std::vector<KernelInfo> kRegistry = {
        {0, "naive", "materialized S and P in global memory: cuBLAS GEMM, fp32 softmax, cuBLAS GEMM", 80,
         &naive_instances, &naive_workspace_bytes, false, kPlain, &naive_problem_limit},
        {1, "tiled", "fused online softmax, Q/K/V tiles in shared memory, FP32 scalar math (no tensor cores)", 80,
         &tiled_instances, nullptr, false, kLseFfma, nullptr, &scalar_tile_limit},
        {2, "cp_async", "tiled + cp.async 16-byte copies, two-stage K/V pipeline, 16-byte O stores", 80,
         &cp_async_instances, nullptr, false, kLseFfma, nullptr, &scalar_tile_limit},
        {3, "mma", "cp_async + tensor cores: mma.sync m16n8k16, ldmatrix(.trans) from swizzled smem, P in registers", 80,
         &mma_instances, nullptr, false, kDecode},
        {4, "warp_specialized",
         "mma + producer warps filling a K/V ring via mbarriers; sm_90: producer warpgroup, setmaxnreg (num_threads counts consumers)",
         80, &warp_specialized_instances, nullptr, false, kLse},
        {5, "wgmma_tma",
         "Hopper: TMA into a 3-4 stage mbarrier ring, wgmma for S = Q.K^T and O += P.V, plain schedule", 90,
         &wgmma_tma_instances, nullptr, true, kDecode, nullptr, &hopper_tile_limit},
        {6, "wgmma_ws",
         "wgmma_tma + producer warpgroup, setmaxnreg, consumer ping-pong (num_threads counts consumers; +128 launched)",
         90, &wgmma_ws_instances, nullptr, true, kDecode, nullptr, &hopper_tile_limit},
        {7, "wgmma_overlap",
         "wgmma_ws + intra-warpgroup overlap: S(t+1) issued with P(t).V(t), softmax under the PV wgmma, a last wave at most half full split into key chunks (+128 launched)",
         90, &wgmma_overlap_instances, nullptr, true, kDecodeTail, nullptr, &hopper_tile_limit},
        // FP8 inputs only (Float8E4M3FN, bf16 O): every other dtype is UNSUPPORTED from its instance table.
        {8, "wgmma_fp8",
         "wgmma_overlap on FP8: e4m3 wgmma k32 for both GEMMs, V^T by a pre-pass kernel (>= 4096 rows per K/V head at d128, 2048 at d256, twice that causal) or in smem by the producer, P as e4m3, a last wave at most half full split into key chunks (+128 launched)",
         90, &wgmma_fp8_instances, &wgmma_fp8_workspace_bytes, true, kTailSplit},
        {9, "wgmma_persistent",
         "wgmma_overlap with one CTA per SM looping over the row tiles (global counter), next tile's loads under this one's end, a last wave at most half full split into key chunks (+128 launched)",
         90, &wgmma_persistent_instances, nullptr, true, kPersistent, &persistent_problem_limit, &hopper_tile_limit},
        {10, "mma_decode",
         "mma for decode: one 16-row band a CTA (mma.sync's M), its warps splitting each key tile 16 keys each (4 of a 64-key tile; 2 of 32 at head_dim 256) and merging their states once; three or four CTAs an SM",
         80, &mma_decode_instances, nullptr, false, kDecodeChunks, nullptr, nullptr, false},
    };
    return kRegistry;
}

const KernelInfo* find_kernel(std::string_view slug) {
    for (const KernelInfo& k : kernel_registry())
        if (slug == k.slug) return &k;
    return nullptr;
}

namespace {

std::string tile_str(const TileConfig& t) {
    return fmt::format("{}x{}x{}", t.m_block_size, t.n_block_size, t.num_threads);
}

// The rows of `kernel` built for (dtype, head_dim), whatever the device.
std::vector<const KernelInstance*> instantiated_for(const KernelInfo& kernel, DType dtype, int head_dim) {
    std::vector<const KernelInstance*> out;
    for (const KernelInstance& inst : kernel.instances())
        if (inst.dtype == dtype && (inst.head_dim == 0 || inst.head_dim == head_dim)) out.push_back(&inst);
    return out;
}

// The example's can_implement rules for one tile configuration (the second only where the rung's
// warps split the rows: KernelInfo::example_tile_rule).
std::string tile_rule_violation(const TileConfig& t, const KernelInfo& kernel) {
    if (t.m_block_size == 0) return {};
    if (t.num_threads % 32 != 0) return "num_threads must be a multiple of 32";
    if (kernel.example_tile_rule && (t.m_block_size * 2) % t.num_threads != 0)
        return "(m_block_size * 2) must be divisible by num_threads";
    return {};
}

}  // namespace

std::string check_support(const KernelInfo& kernel, const ProblemShape& p, const TileConfig* tile, int sm,
                          std::size_t smem_optin, const KernelInstance** chosen) {
    *chosen = nullptr;
    if (!kernel_runs_on(kernel, sm)) {
        if (sm < kernel.min_sm) return fmt::format("needs sm_{} or newer, device is sm_{}", kernel.min_sm, sm);
        return fmt::format("built for sm_{}a, which runs on sm_{} only; device is sm_{}", kernel.min_sm, kernel.min_sm,
                           sm);
    }
    if (p.head_dim % 8 != 0) return "head_dim must be a multiple of 8 (16-byte rows)";
    if (p.kv_heads() < 1 || p.heads % p.kv_heads() != 0) return "num_head_kv must divide num_head";
    if (p.num_splits > 1 && !kernel.caps.split_kv) {
        std::vector<std::string> have;
        for (const KernelInfo& k : kernel_registry())
            if (k.caps.split_kv) have.push_back(k.slug);
        return fmt::format("split-KV (--num_splits {}) is not implemented on this rung (it is on {})", p.num_splits,
                           fmt::join(have, ", "));
    }

    const std::vector<const KernelInstance*> matching = instantiated_for(kernel, p.dtype, p.head_dim);
    if (matching.empty()) {
        std::vector<std::string> have;
        for (const KernelInstance& inst : kernel.instances()) {
            std::string s = fmt::format("{}/{}", dtype_name(inst.dtype), inst.head_dim);
            if (std::find(have.begin(), have.end(), s) == have.end()) have.push_back(s);
        }
        return fmt::format("not instantiated for {} head_dim {} (has dtype/head_dim: {})", dtype_name(p.dtype),
                           p.head_dim, fmt::join(have, ", "));
    }

    // Rows built for an architecture-specific target (sm_90a) other than the device's drop out.
    // Rows over the shared-memory limit stay (unlike runnable_instances): a default tile that does
    // not fit is reported as such, not silently replaced by another tile.
    std::vector<const KernelInstance*> runnable;
    for (const KernelInstance* inst : matching)
        if (instance_runs_on(*inst, sm)) runnable.push_back(inst);
    if (runnable.empty())
        return fmt::format("{} head_dim {} is instantiated only for sm_{}a; device is sm_{}", dtype_name(p.dtype),
                           p.head_dim, matching.front()->only_sm, sm);

    // The kernel's tuned default on this device: the first row whose DefaultRule holds for the
    // problem (a decode or short-causal tile), else the first row.
    const KernelInstance* pick = runnable.front();
    for (const KernelInstance* inst : runnable)
        if (inst->default_rule.applies != nullptr && inst->default_rule.applies(kernel, *inst, p)) {
            pick = inst;
            break;
        }
    if (tile != nullptr && pick->tile.m_block_size != 0) {
        pick = nullptr;
        for (const KernelInstance* inst : runnable)
            if (inst->tile == *tile) pick = inst;
        if (pick == nullptr) {
            for (const KernelInstance* inst : matching)
                if (inst->tile == *tile)
                    return fmt::format("tile {} is built for sm_{}a and runs on sm_{} only; device is sm_{}",
                                       tile_str(*tile), inst->only_sm, inst->only_sm, sm);
            std::vector<std::string> have;
            for (const KernelInstance* inst : runnable) have.push_back(tile_str(inst->tile));
            if (std::string why = tile_rule_violation(*tile, kernel); !why.empty())
                return fmt::format("tile {} breaks the rule: {}", tile_str(*tile), why);
            const std::string limit = kernel.tile_limit ? kernel.tile_limit(*tile, p) : std::string();
            return fmt::format("tile {} (m_block_size x n_block_size x num_threads) not instantiated{}{}; valid: {}",
                               tile_str(*tile), limit.empty() ? "" : ": ", limit, fmt::join(have, ", "));
        }
    }
    if (std::string why = tile_rule_violation(pick->tile, kernel); !why.empty()) return why;  // a bad instance row
    if (kernel.problem_limit != nullptr)
        if (std::string why = kernel.problem_limit(p); !why.empty()) return why;
    if (sm != 0 && pick->smem_bytes > smem_optin)
        return fmt::format("tile {} needs {} B shared memory per CTA, device allows {} B", tile_str(pick->tile),
                           pick->smem_bytes, smem_optin);
    *chosen = pick;
    return {};
}

std::vector<const KernelInstance*> runnable_instances(const KernelInfo& kernel, DType dtype, int head_dim, int sm,
                                                      std::size_t smem_optin) {
    std::vector<const KernelInstance*> out;
    if (!kernel_runs_on(kernel, sm)) return out;
    for (const KernelInstance* inst : instantiated_for(kernel, dtype, head_dim))
        if (instance_runs_on(*inst, sm) && (sm == 0 || inst->smem_bytes <= smem_optin)) out.push_back(inst);
    return out;
}

}  // namespace fa
