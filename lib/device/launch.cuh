// Host-side pieces every rung's launch function shares.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>
#include <utility>

#include "device/block_info.cuh"
#include "fa/kernel_api.h"
#include "fa/params.h"
#include "fa/splitkv.h"
#include "hopper_tma.h"

namespace fa {

// The DType of an element type, for KernelInstance rows.
template <typename T> constexpr DType dtype_of();
template <> constexpr DType dtype_of<float>() { return DType::Float32; }
template <> constexpr DType dtype_of<__half>() { return DType::Float16; }
template <> constexpr DType dtype_of<__nv_bfloat16>() { return DType::BFloat16; }
template <> constexpr DType dtype_of<__nv_fp8_e4m3>() { return DType::Float8E4M3FN; }

// The grid convention of every fused rung (device/block_info.cuh): x = row blocks · head slots ·
// batch, y = splits. The runner refuses problems whose x would pass 2^31 − 1 before launching.
inline dim3 fwd_grid(const FwdParams& p, int block_m) {
    const long long x = static_cast<long long>(fwd_row_blocks(p, block_m)) * fwd_head_slots(p) * p.batch;
    return dim3(static_cast<unsigned>(x), static_cast<unsigned>(p.num_splits > 1 ? p.num_splits : 1), 1);
}

// One launch through cudaLaunchKernelEx; with `programmatic`, a programmatic dependent launch (ptx.cuh,
// launch_dependent_grids): the kernel may then start while the stream's previous kernel still runs, so
// it must wait for it (wait_prerequisite_grids) before reading what it writes, or read nothing it
// writes nor anything written after it started. Returns the launch's error. Never synchronizes.
template <typename... Params, typename... Args>
cudaError_t launch_kernel(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream,
                          bool programmatic, Args&&... args) {
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    cfg.attrs = programmatic ? attr : nullptr;
    cfg.numAttrs = programmatic ? 1 : 0;
    return cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...);
}

// A tail split's two grids (FwdParams::tail_tiles, fa/splitkv.h): fwd_grid's tiles less the split
// ones (x may be 0: every tile split), then one CTA per chunk of the split ones.
inline dim3 grid_before_tail(const FwdParams& p, int block_m) {
    dim3 g = fwd_grid(p, block_m);
    g.x -= static_cast<unsigned>(p.tail_tiles);
    return g;
}
inline dim3 tail_chunk_grid(const FwdParams& p) {
    return dim3(static_cast<unsigned>(p.tail_tiles) * static_cast<unsigned>(p.tail_splits), 1, 1);
}

// After the main kernel of a split launch, the one combine kernel (fa/splitkv.h) merges the
// partial outputs; a launch without splits returns `e` unchanged.
inline cudaError_t finish_splits(const FwdParams& p, cudaError_t e, cudaStream_t stream) {
    if (e != cudaSuccess || p.num_splits <= 1) return e;
    return splitkv_combine(p, stream);
}

// Lets `kernel` use `bytes` of dynamic shared memory: above 48 KiB a kernel must opt in. With
// `max_carveout` it also asks for the largest shared-memory carveout, so that the driver does not
// settle for an L1/shared split that fits fewer CTAs per SM than the kernel was sized for.
template <typename Kernel>
cudaError_t prepare_smem(Kernel kernel, std::size_t bytes, bool max_carveout = false) {
    if (bytes > 48 * 1024) {
        const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes));
        if (e != cudaSuccess) return e;
    }
    if (max_carveout)
        return cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    cudaSharedmemCarveoutMaxShared);
    return cudaSuccess;
}

// The launch of every rung whose kernel takes FwdParams alone: fwd_grid's grid, Tr::kNThreads
// threads, Tr::kSmemBytes of dynamic shared memory (opted in by prepare_smem). Never synchronizes.
template <class Tr, auto kKernel, bool kMaxCarveout>
cudaError_t launch_fwd(const FwdParams& p, cudaStream_t stream) {
    if (const cudaError_t e = prepare_smem(kKernel, Tr::kSmemBytes, kMaxCarveout); e != cudaSuccess) return e;
    kKernel<<<fwd_grid(p, Tr::kBlockM), Tr::kNThreads, Tr::kSmemBytes, stream>>>(p);
    return finish_splits(p, cudaGetLastError(), stream);
}

// Rows of a Q box: Tr::kQBoxRows where the traits define it (rung 9 loads one warpgroup's half of
// Q at a time at head_dim 256), else the CTA's kBlockM.
template <class Tr, class = void>
struct QBoxRows {
    static constexpr int value = Tr::kBlockM;
};
template <class Tr>
struct QBoxRows<Tr, std::void_t<decltype(Tr::kQBoxRows)>> {
    static constexpr int value = Tr::kQBoxRows;
};
template <class Tr>
constexpr int q_box_rows() {
    return QBoxRows<Tr>::value;
}

// The launch of the Hopper rungs (5-7), whose kernels take FwdParams and the four TMA maps: the
// maps are encoded for Tr's tiles (Q boxes of kBlockM rows, K/V of kBlockN, O of one consumer
// warpgroup's 64 rows), then as launch_fwd with kLaunchThreads threads (rungs 6-7 launch a
// producer warpgroup on top of Tr::kNThreads). cudaErrorInvalidValue if the problem is not Tr's
// or the maps cannot be encoded. Never synchronizes.
// `grid` replaces fwd_grid's where given (rung 9: one CTA per SM, each looping over fwd_grid's tiles);
// `v_map` replaces V's map where given (rung 8's pre-pass: the map of V's transposed copy).
// `programmatic`: a programmatic dependent launch (launch_kernel; a tail split's chunks after the
// tiles' kernel, launch_tma_fwd_tail_split).
template <class Tr, int kLaunchThreads, typename Kernel>
cudaError_t launch_tma_fwd(Kernel kernel, const FwdParams& p, cudaStream_t stream, const dim3* grid = nullptr,
                           const CUtensorMap* v_map = nullptr, bool programmatic = false) {
    if (p.head_dim != Tr::kHeadDim || p.dtype != dtype_of<typename Tr::T>()) return cudaErrorInvalidValue;
    FwdTensorMaps maps;
    if (!encode_fwd_tensor_maps(p, TmaBoxRows{q_box_rows<Tr>(), Tr::kBlockN, Tr::kWarpgroupRows}, &maps))
        return cudaErrorInvalidValue;
    if (v_map != nullptr) maps.v = *v_map;
    if (const cudaError_t e = prepare_smem(kernel, Tr::kSmemBytes); e != cudaSuccess) return e;
    const cudaError_t e = launch_kernel(kernel, grid ? *grid : fwd_grid(p, Tr::kBlockM), dim3(kLaunchThreads),
                                        Tr::kSmemBytes, stream, programmatic, p, maps.q, maps.k, maps.v, maps.o);
    return finish_splits(p, e, stream);
}

// A launch with a tail split (FwdParams::tail_tiles, fa/splitkv.h) on the rungs that run it as two
// builds of their kernel (rung 7's ws kernel, rung 8): `tiles_kernel` over the grid's unsplit
// tiles, then `chunks_kernel` over the split tiles' chunks as a programmatic dependent launch (the
// tiles' kernel calls launch_dependents; the chunks read only what was written before it started:
// Q, K, V, rung 8's pre-pass Vᵀ, and write O rows and partials it does not touch), whose CTAs take
// SMs as the last wave frees them (rung 8, session 27: +0.6 to +2.2 % over a plain launch). Where
// every tile is split, the chunks' launch is a plain one: the kernel before it in the stream (rung
// 8's pre-pass) may write what they read. Without a split, `tiles_kernel` over fwd_grid.
template <class Tr, int kLaunchThreads, typename Kernel>
cudaError_t launch_tma_fwd_tail_split(Kernel tiles_kernel, Kernel chunks_kernel, const FwdParams& p,
                                      cudaStream_t stream, const CUtensorMap* v_map = nullptr) {
    if (p.tail_tiles == 0) return launch_tma_fwd<Tr, kLaunchThreads>(tiles_kernel, p, stream, nullptr, v_map);
    const dim3 tiles = grid_before_tail(p, Tr::kBlockM), chunks = tail_chunk_grid(p);
    if (tiles.x == 0) return launch_tma_fwd<Tr, kLaunchThreads>(chunks_kernel, p, stream, &chunks, v_map);
    const cudaError_t e = launch_tma_fwd<Tr, kLaunchThreads>(tiles_kernel, p, stream, &tiles, v_map);
    if (e != cudaSuccess) return e;
    return launch_tma_fwd<Tr, kLaunchThreads>(chunks_kernel, p, stream, &chunks, v_map, true);
}

// The registry row of the instance that traits Tr describe. num_threads is the tile's thread
// count as the registry reports it: the computing threads (warp-specialized rungs launch their
// producer warp or warpgroup on top of them). `rule`: the problems for which the row is the
// default other than as its kernel's first row (KernelInstance::default_rule; none by default).
template <class Tr>
KernelInstance instance_of(const void* kernel, LaunchFn launch, int num_threads = Tr::kNThreads,
                           DefaultRule rule = {}) {
    return KernelInstance{dtype_of<typename Tr::T>(), Tr::kHeadDim, TileConfig{Tr::kBlockM, Tr::kBlockN, num_threads},
                          static_cast<std::size_t>(Tr::kSmemBytes), kernel, launch, 0, rule};
}

// The registry row of kernel kKernel launched by launch_fwd.
template <class Tr, auto kKernel, bool kMaxCarveout = false>
KernelInstance fwd_instance(int num_threads = Tr::kNThreads) {
    return instance_of<Tr>(reinterpret_cast<const void*>(kKernel), launch_fwd<Tr, kKernel, kMaxCarveout>, num_threads);
}

}  // namespace fa
