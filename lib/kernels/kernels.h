// Declarations of what each kernel file exports; lib/registry.cpp turns them into the registry.
#pragma once

#include <cstddef>
#include <vector>

#include "fa/kernel_api.h"
#include "fa/problem.h"

namespace fa {

const std::vector<KernelInstance>& naive_instances();              // 00_naive.cu
std::size_t naive_workspace_bytes(const ProblemShape& problem);    // S (fp32) and P
const std::vector<KernelInstance>& tiled_instances();              // 01_tiled.cu
const std::vector<KernelInstance>& cp_async_instances();           // 02_cp_async.cu
const std::vector<KernelInstance>& mma_instances();                // 03_mma.cu
const std::vector<KernelInstance>& warp_specialized_instances();   // 04_warp_specialized.cu (all rows)
const std::vector<KernelInstance>& warp_specialized_sm90a_instances();  // its sm_90a build
const std::vector<KernelInstance>& wgmma_tma_instances();          // 05_wgmma_tma.cu (sm_90a)
const std::vector<KernelInstance>& wgmma_ws_instances();           // 06_wgmma_ws.cu (sm_90a)
const std::vector<KernelInstance>& wgmma_overlap_instances();      // 07_wgmma_overlap.cu (sm_90a)
const std::vector<KernelInstance>& wgmma_fp8_instances();          // 08_wgmma_fp8.cu (sm_90a)
std::size_t wgmma_fp8_workspace_bytes(const ProblemShape& problem);  // its V pre-pass's copy, where it runs one
const std::vector<KernelInstance>& wgmma_persistent_instances();   // 09_wgmma_persistent.cu (sm_90a)
const std::vector<KernelInstance>& mma_decode_instances();         // 10_mma_decode.cu

}  // namespace fa
