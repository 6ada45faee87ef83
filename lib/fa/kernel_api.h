// What a kernel file exports to the registry (lib/registry.cpp).
//
// A kernel file instantiates a small, explicit set of (dtype, head_dim, tile) configurations and
// lists them as KernelInstance rows. The registry and the runner choose among these rows; nothing
// is instantiated behind the user's back, so CI's build time stays bounded.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "fa/params.h"

namespace fa {

// The CuTe DSL example's three tile knobs. Zero fields mean "not a tiled kernel" (naive).
struct TileConfig {
    int m_block_size = 0;  // query rows per CTA
    int n_block_size = 0;  // key rows per main-loop iteration
    int num_threads = 0;   // threads per CTA

    bool operator==(const TileConfig& o) const {
        return m_block_size == o.m_block_size && n_block_size == o.n_block_size &&
               num_threads == o.num_threads;
    }
};

// The unit a kernel's two GEMMs (S = Q·Kᵀ, O = P·V) run on, which sets the model's math ceiling
// (fa/model.h): FFMA on the CUDA cores, or the tensor cores (mma.sync, wgmma, cuBLAS HMMA).
enum class MathUnit : int { CudaCoreFp32 = 0, TensorCore = 1 };

struct KernelInfo;
struct KernelInstance;
struct ProblemShape;

// Where a row other than its kernel's first is the default tile (check_support takes the first row
// whose rule holds, else the first row): `applies` says for which problems, `when` says it in
// words for --list ("[default when <when>]").
struct DefaultRule {
    bool (*applies)(const KernelInfo& kernel, const KernelInstance& inst, const ProblemShape& p) = nullptr;
    const char* when = nullptr;
};

// Launches one forward pass on `stream`. Returns the first CUDA error (cudaFuncSetAttribute,
// launch configuration); never synchronizes.
using LaunchFn = cudaError_t (*)(const FwdParams&, cudaStream_t);

struct KernelInstance {
    DType dtype;
    int head_dim;             // 0: any head_dim (the kernel checks its own rule)
    TileConfig tile;          // {0,0,0}: the kernel has no tile configuration
    std::size_t smem_bytes;   // dynamic shared memory per CTA, checked against the device limit
    const void* kernel_func;  // the __global__ function, for cudaFuncGetAttributes; may be null
    LaunchFn launch;
    // 0: runs wherever its kernel's min_sm allows. Otherwise built for the architecture-specific
    // target sm_{only_sm}a (setmaxnreg on sm_90a), so it runs on that compute capability only.
    int only_sm = 0;
    // Empty for most rows. Set: the default for the problems its rule names (the Hopper rungs'
    // 64-row decode tile, rung 9's 128-row head_dim-64 tile on short causal problems).
    DefaultRule default_rule;
};

}  // namespace fa
