// fa-bench's NVTX domain. The range names are an interface: README's ncu and nsys commands select
// "fa-bench@<kernel> <problem> timed" and the others by regex, so they stay as they are.
#pragma once

#include <nvtx3/nvtx3.hpp>

#include "schema.h"

namespace fa {

struct NvtxDomain {
    static constexpr const char* name{kNvtxDomain};
};
using NvtxRange = nvtx3::scoped_range_in<NvtxDomain>;

}  // namespace fa
