// --list: every registered kernel with what it supports.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "fa/problem.h"
#include "options.h"

namespace fa {

// What --list shows: the kernels, dtypes and head dims given with it (each empty: all).
struct ListFilter {
    std::vector<std::string> kernels;  // slugs; "all" or empty: every kernel
    std::vector<DType> dtypes;
    std::vector<int> head_dims;
};

// --list's filter: --kernel, and --dtype / --head_dim where they were given.
ListFilter list_filter(const Options& o);

// One line per kernel (rung, minimum SM, title), then one per (dtype, head_dim) with its tiles
// and which one is the default where; a (dtype, head_dim) the filter asks for that a kernel has
// not instantiated gets a line saying so. Needs no GPU.
void print_kernel_list(std::FILE* out, const ListFilter& filter = {});

}  // namespace fa
