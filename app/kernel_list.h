// --list: every registered kernel with what it supports.
#pragma once

#include <cstdio>

namespace fa {

// One line per kernel (rung, minimum SM, title), then one per (dtype, head_dim) with its tiles
// and which one is the default where.
void print_kernel_list(std::FILE* out);

}  // namespace fa
