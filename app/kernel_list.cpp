#include "kernel_list.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "fa/registry.h"

namespace fa {

namespace {

template <typename T>
bool wanted(const std::vector<T>& filter, const T& value) {
    return filter.empty() || std::find(filter.begin(), filter.end(), value) != filter.end();
}

bool instance_matches(const KernelInstance& inst, const ListFilter& f) {
    if (!wanted(f.dtypes, inst.dtype)) return false;
    if (f.head_dims.empty() || inst.head_dim == 0) return true;  // head_dim 0: any
    return wanted(f.head_dims, inst.head_dim);
}

// The (dtype, head_dim) pairs the filter names that kernel `k` has no instance for.
std::vector<std::string> missing_pairs(const KernelInfo& k, const ListFilter& f) {
    std::vector<std::string> out;
    auto has = [&](const DType* t, const int* d) {
        for (const KernelInstance& inst : k.instances())
            if ((t == nullptr || inst.dtype == *t) && (d == nullptr || inst.head_dim == 0 || inst.head_dim == *d))
                return true;
        return false;
    };
    if (!f.dtypes.empty() && !f.head_dims.empty()) {
        for (DType t : f.dtypes)
            for (int d : f.head_dims)
                if (!has(&t, &d)) out.push_back(fmt::format("{:<9} head_dim {}", dtype_name(t), d));
    } else if (!f.dtypes.empty()) {
        for (DType t : f.dtypes)
            if (!has(&t, nullptr)) out.push_back(fmt::format("{:<9}", dtype_name(t)));
    } else {
        for (int d : f.head_dims)
            if (!has(nullptr, &d)) out.push_back(fmt::format("head_dim {}", d));
    }
    return out;
}

}  // namespace

void print_kernel_list(std::FILE* out, const ListFilter& filter) {
    // One line per (dtype, head_dim) so the list stays short.
    struct Group {
        std::string key;
        std::string line;
        bool has_portable = false;  // a row without only_sm was seen (the first one is a default)
    };
    const bool all = filter.kernels.empty() || filter.kernels.front() == "all";
    for (const KernelInfo& k : kernel_registry()) {
        if (!all && !wanted(filter.kernels, std::string(k.slug))) continue;
        fmt::print(out, "{:<18} rung {}  sm_{}+  {}\n", k.slug, k.rung, k.min_sm, k.title);
        std::vector<Group> groups;
        for (const KernelInstance& inst : k.instances()) {
            if (!instance_matches(inst, filter)) continue;
            const std::string key =
                fmt::format("{:<9} head_dim {}", dtype_name(inst.dtype), inst.head_dim ? std::to_string(inst.head_dim) : "any");
            std::string tile = inst.tile.m_block_size ? fmt::format("{}x{}x{} ({} KiB smem)", inst.tile.m_block_size,
                                                                    inst.tile.n_block_size, inst.tile.num_threads,
                                                                    inst.smem_bytes / 1024)
                                                      : "untiled";
            auto g = std::find_if(groups.begin(), groups.end(), [&](const Group& x) { return x.key == key; });
            const bool first = g == groups.end();
            if (first) g = groups.insert(groups.end(), Group{key, key + ": ", false});
            else g->line += ", ";
            // The default is the first row the device can run (check_support): an sm_XXa row
            // listed first is the default on that GPU, the first portable row everywhere else.
            if (inst.default_rule.applies != nullptr) {
                // Not a default in the first-row sense: check_support picks it per problem.
                tile += fmt::format(" [default when {}]", inst.default_rule.when);
            } else if (inst.only_sm != 0) {
                tile += fmt::format(" sm_{}a only", inst.only_sm);
                if (first) tile += fmt::format(" [default on sm_{}]", inst.only_sm);
            } else if (!g->has_portable) {
                tile += first ? " [default]" : " [default elsewhere]";
                g->has_portable = true;
            }
            g->line += tile;
        }
        for (const Group& g : groups) fmt::print(out, "    {}\n", g.line);
        for (const std::string& pair : missing_pairs(k, filter)) fmt::print(out, "    {}: not instantiated\n", pair);
    }
    fmt::print(out, "tiles are m_block_size x n_block_size x num_threads; [default] is used when no tile flag is given\n");
}

ListFilter list_filter(const Options& o) {
    ListFilter f;
    f.kernels = o.kernels;
    if (o.was_given("dtype")) f.dtypes = o.dtypes;
    if (o.was_given("head_dim")) f.head_dims = o.head_dim;
    return f;
}

}  // namespace fa
