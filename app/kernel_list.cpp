#include "kernel_list.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "fa/registry.h"

namespace fa {

void print_kernel_list(std::FILE* out) {
    // One line per (dtype, head_dim) so the list stays short.
    struct Group {
        std::string key;
        std::string line;
        bool has_portable = false;  // a row without only_sm was seen (the first one is a default)
    };
    for (const KernelInfo& k : kernel_registry()) {
        fmt::print(out, "{:<18} rung {}  sm_{}+  {}\n", k.slug, k.rung, k.min_sm, k.title);
        std::vector<Group> groups;
        for (const KernelInstance& inst : k.instances()) {
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
            if (inst.only_sm != 0) {
                tile += fmt::format(" sm_{}a only", inst.only_sm);
                if (first) tile += fmt::format(" [default on sm_{}]", inst.only_sm);
            } else if (!g->has_portable) {
                tile += first ? " [default]" : " [default elsewhere]";
                g->has_portable = true;
            }
            g->line += tile;
        }
        for (const Group& g : groups) fmt::print(out, "    {}\n", g.line);
    }
    fmt::print(out, "tiles are m_block_size x n_block_size x num_threads; [default] is used when no tile flag is given\n");
}

}  // namespace fa
