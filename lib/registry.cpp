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

}  // namespace

const std::vector<KernelInfo>& kernel_registry() {
    // Capabilities (fa/registry.h): the fused rungs write the LSE; split-KV and packed GQA are on
    // the decode-capable rungs (mma and the Hopper tier; fa/splitkv.h says why split-KV exists).
    constexpr KernelCaps kPlain{};
    constexpr KernelCaps kLse{true, false, false};
    constexpr KernelCaps kDecode{true, true, true};
    static const std::vector<KernelInfo> kRegistry = {
        {0, "naive", "materialized S and P in global memory: cuBLAS GEMM, fp32 softmax, cuBLAS GEMM", 80,
         &naive_instances, &naive_workspace_bytes, false, kPlain, &naive_problem_limit},
        {1, "tiled", "fused online softmax, Q/K/V tiles in shared memory, FP32 scalar math (no tensor cores)", 80,
         &tiled_instances, nullptr, false, kLse},
        {2, "cp_async", "tiled + cp.async 16-byte copies, two-stage K/V pipeline, 16-byte O stores", 80,
         &cp_async_instances, nullptr, false, kLse},
        {3, "mma", "cp_async + tensor cores: mma.sync m16n8k16, ldmatrix(.trans) from swizzled smem, P in registers", 80,
         &mma_instances, nullptr, false, kDecode},
        {4, "warp_specialized",
         "mma + producer warps filling a K/V ring via mbarriers; sm_90: producer warpgroup, setmaxnreg (num_threads counts consumers)",
         80, &warp_specialized_instances, nullptr, false, kLse},
        {5, "wgmma_tma",
         "Hopper: TMA into a 3-4 stage mbarrier ring, wgmma for S = Q.K^T and O += P.V, plain schedule", 90,
         &wgmma_tma_instances, nullptr, true, kDecode},
        {6, "wgmma_ws",
         "wgmma_tma + producer warpgroup, setmaxnreg, consumer ping-pong (num_threads counts consumers; +128 launched)",
         90, &wgmma_ws_instances, nullptr, true, kDecode},
        {7, "wgmma_overlap",
         "wgmma_ws + intra-warpgroup overlap: S(t+1) issued with P(t).V(t), softmax under the PV wgmma (+128 launched)",
         90, &wgmma_overlap_instances, nullptr, true, kDecode},
        // FP8 inputs only (Float8E4M3FN, bf16 O): every other dtype is UNSUPPORTED from its instance table.
        {8, "wgmma_fp8",
         "wgmma_overlap on FP8: e4m3 wgmma k32 for both GEMMs, V transposed in smem by the producer, P as e4m3 (+128 launched)",
         90, &wgmma_fp8_instances, nullptr, true, kPlain},
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

// The example's can_implement rules for one tile configuration.
std::string tile_rule_violation(const TileConfig& t) {
    if (t.m_block_size == 0) return {};
    if (t.num_threads % 32 != 0) return "num_threads must be a multiple of 32";
    if ((t.m_block_size * 2) % t.num_threads != 0) return "(m_block_size * 2) must be divisible by num_threads";
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

    const KernelInstance* pick = runnable.front();  // the kernel's tuned default on this device
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
            if (std::string why = tile_rule_violation(*tile); !why.empty())
                return fmt::format("tile {} breaks the rule: {}", tile_str(*tile), why);
            return fmt::format("tile {} (m_block_size x n_block_size x num_threads) not instantiated; valid: {}",
                               tile_str(*tile), fmt::join(have, ", "));
        }
    }
    if (std::string why = tile_rule_violation(pick->tile); !why.empty()) return why;  // a bad instance row
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
