// Hopper (sm_90a) PTX wrappers, each named after the instruction it emits: mbarrier transaction
// counts (plain mbarrier init / arrive / wait, sm_80+, are in ptx.cuh), TMA (cp.async.bulk.tensor),
// proxy fences, wgmma and its shared-memory matrix descriptors, setmaxnreg and named barriers.
// Rungs 5-7 are built on these; rung 4's sm_90a rows use setmaxnreg. Only what a rung uses is
// here: the 4-D TMA load and store (the maps are (head_dim, seqlen, heads, batch)) and wgmma with
// N = 64 and 128 (head_dim and key-tile sizes of the instantiated tiles).
//
// Everything here needs `-gencode=arch=compute_90a,code=sm_90a` (wgmma and setmaxnreg exist only
// on the "a" target). The bodies are compiled only where __CUDA_ARCH_FEAT_SM90_ALL is defined, so
// a translation unit that includes this header can still be built for sm_80 (the kernels that use
// it then compile to empty stubs and must not be registered there).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "device/ptx.cuh"

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define FA_HOPPER_ENABLED 1
#else
#define FA_HOPPER_ENABLED 0
#endif

namespace fa::hopper {

// ---------------------------------------------------------------------------------------------
// mbarrier with transaction counts. A phase completes when its pending arrival count reaches 0
// AND its transaction count (bytes announced by expect_tx, minus bytes delivered by TMA
// complete_tx) is 0; then the phase bit flips and the counts reset for the next phase.
// ---------------------------------------------------------------------------------------------

// fence.mbarrier_init: makes this thread's mbarrier.init visible to the other threads and to the
// async proxy (TMA's complete_tx) before they touch the barrier. Follow it with a CTA barrier.
__device__ __forceinline__ void fence_mbarrier_init() {
#if FA_HOPPER_ENABLED
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}

// mbarrier.arrive.expect_tx: one arrival, and `tx_bytes` more bytes this phase must receive
// before it can complete. Issued by the TMA-issuing thread before (or after) its copies.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(uint32_t bar, uint32_t tx_bytes) {
#if FA_HOPPER_ENABLED
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(tx_bytes)
                 : "memory");
#endif
}

// ---------------------------------------------------------------------------------------------
// TMA: cp.async.bulk.tensor. Coordinates are element indices, innermost dimension first; boxes
// reaching past a tensor's extent are zero-filled on load (the full box's bytes still count
// towards complete_tx) and clipped on store. `tmap` is the generic address of a CUtensorMap that
// lives in kernel-parameter (__grid_constant__), constant or global memory.
// ---------------------------------------------------------------------------------------------

__device__ __forceinline__ void tma_load_4d(uint32_t smem_dst, const void* tmap, uint32_t bar, int c0, int c1,
                                            int c2, int c3) {
#if FA_HOPPER_ENABLED
    asm volatile(
        "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], "
        "[%6];\n" ::"r"(smem_dst),
        "l"(reinterpret_cast<uint64_t>(tmap)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar)
        : "memory");
#endif
}

// The 5-D form, for Q and O: (head_dim, heads of a packed GQA group, seqlen, head slot, batch),
// lib/hopper_tma.cpp.
__device__ __forceinline__ void tma_load_5d(uint32_t smem_dst, const void* tmap, uint32_t bar, int c0, int c1,
                                            int c2, int c3, int c4) {
#if FA_HOPPER_ENABLED
    asm volatile(
        "cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5, "
        "%6}], [%7];\n" ::"r"(smem_dst),
        "l"(reinterpret_cast<uint64_t>(tmap)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4), "r"(bar)
        : "memory");
#endif
}

__device__ __forceinline__ void tma_store_5d(const void* tmap, uint32_t smem_src, int c0, int c1, int c2, int c3,
                                             int c4) {
#if FA_HOPPER_ENABLED
    asm volatile("cp.async.bulk.tensor.5d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5, %6}], [%1];\n" ::"l"(
                     reinterpret_cast<uint64_t>(tmap)),
                 "r"(smem_src), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4)
                 : "memory");
#endif
}

// Shared -> global tensor store, tracked by the issuing thread's bulk async-group.
__device__ __forceinline__ void tma_store_4d(const void* tmap, uint32_t smem_src, int c0, int c1, int c2, int c3) {
#if FA_HOPPER_ENABLED
    asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5}], [%1];\n" ::"l"(
                     reinterpret_cast<uint64_t>(tmap)),
                 "r"(smem_src), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
                 : "memory");
#endif
}

// cp.async.bulk.commit_group: closes this thread's group of bulk stores issued so far.
__device__ __forceinline__ void bulk_commit_group() {
#if FA_HOPPER_ENABLED
    asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
#endif
}

// cp.async.bulk.wait_group.read N: at most N groups still reading their shared-memory source
// (after which that shared memory may be overwritten, or the CTA may exit).
template <int N>
__device__ __forceinline__ void bulk_wait_group_read() {
#if FA_HOPPER_ENABLED
    asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
#endif
}

// stmatrix.x4 (sm_90): four 8x8 b16 matrices to shared memory, the inverse of ldmatrix.x4:
// thread t's register i goes to row t/4, b16 columns 2(t%4), 2(t%4)+1 of matrix i; lanes 8i..8i+7
// give the row addresses of matrix i. Rung 8's V transpose writes Vᵀ with it.
__device__ __forceinline__ void stmatrix_x4(uint32_t smem_addr, const uint32_t (&r)[4]) {
#if FA_HOPPER_ENABLED
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(smem_addr), "r"(r[0]),
                 "r"(r[1]), "r"(r[2]), "r"(r[3])
                 : "memory");
#endif
}

// fence.proxy.async.shared::cta: orders this thread's generic-proxy shared-memory accesses (st.shared)
// with later async-proxy accesses (TMA store reading, wgmma reading) of the same memory. Needed
// in every writing thread, before the barrier that hands the data to the TMA/wgmma issuer.
__device__ __forceinline__ void fence_proxy_async_shared_cta() {
#if FA_HOPPER_ENABLED
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

// `v` as ptxas sees it: one value for the whole warp (lane 0's, broadcast), so what is computed
// from it can live in uniform registers. The consumer warpgroup index is the case that matters:
// derived from threadIdx it is per-thread to ptxas, so Q's wgmma descriptor (which depends on it)
// sat in vector registers and every HGMMA of S = Q·Kᵀ needed two R2UR moves and a 64-bit add
// first (rung 7 d128: 16 R2UR and 19 IMAD per main-loop iteration, all in the issue window;
// with the broadcast, none and 4). Rungs 5-7 and 9 use it: +1.5-4 % on long prefill (session 11
// call 1, 07_wgmma_overlap.cu); rung 8 does not (-6 % there).
__device__ __forceinline__ int warp_uniform(int v) { return __shfl_sync(0xffffffffu, v, 0); }

// ---------------------------------------------------------------------------------------------
// Named barriers (bar.sync id, nthreads): ids 1..15 are free for the kernel (0 is __syncthreads);
// nthreads is a multiple of 32 and every participating warp executes it.
// ---------------------------------------------------------------------------------------------
__device__ __forceinline__ void named_barrier_sync(uint32_t id, uint32_t nthreads) {
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(nthreads) : "memory");
}

__device__ __forceinline__ void named_barrier_arrive(uint32_t id, uint32_t nthreads) {
    asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(nthreads) : "memory");
}

// ---------------------------------------------------------------------------------------------
// setmaxnreg: moves the register budget of every warp of a warpgroup (all four must execute it).
// Takes effect only in a kernel with a register cap at entry (__launch_bounds__(threads, 1)),
// each warpgroup role in one branch. kRegs is a multiple of 8 in [24, 256].
// ---------------------------------------------------------------------------------------------
template <int kRegs>
__device__ __forceinline__ void setmaxnreg_inc() {
    static_assert(kRegs % 8 == 0 && kRegs >= 24 && kRegs <= 256, "setmaxnreg range");
#if FA_HOPPER_ENABLED
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
#endif
}

template <int kRegs>
__device__ __forceinline__ void setmaxnreg_dec() {
    static_assert(kRegs % 8 == 0 && kRegs >= 24 && kRegs <= 256, "setmaxnreg range");
#if FA_HOPPER_ENABLED
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
#endif
}

// Shared-memory atomic add with acquire-release semantics at CTA scope; returns the old value.
// (atom.acq_rel.cta.shared::cta.add.u32)
__device__ __forceinline__ uint32_t atom_add_acq_rel_cta_shared(uint32_t addr, uint32_t v) {
    uint32_t old = 0;
#if FA_HOPPER_ENABLED
    asm volatile("atom.acq_rel.cta.shared::cta.add.u32 %0, [%1], %2;\n" : "=r"(old) : "r"(addr), "r"(v) : "memory");
#endif
    return old;
}

// ---------------------------------------------------------------------------------------------
// wgmma: warpgroup-wide (128 threads, 4 consecutive warps starting at a warp index divisible by
// 4) asynchronous D(64 x N, fp32) (+)= A(64 x 16) · B(16 x N).
//
// Ordering rules (PTX ISA, wgmma):
//   * wgmma.fence before the first wgmma.mma_async of a batch whenever the accumulator or A
//     registers were touched by other instructions since the previous wgmma (rescaling O, writing
//     P); consecutive wgmmas into the same accumulator need no fence between them.
//   * wgmma.commit_group closes the batch; wgmma.wait_group N blocks until at most N batches of
//     this warp are pending. Only then may D be read, or A registers / the smem operands reused.
//   * The compiler does not see the asynchrony: the accumulator registers are pinned around the
//     asynchronous window with warpgroup_fence_operand (an empty asm that "writes" them) so no
//     read or write of them is moved across wgmma / commit / wait.
// ---------------------------------------------------------------------------------------------

__device__ __forceinline__ void wgmma_fence() {
#if FA_HOPPER_ENABLED
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}

__device__ __forceinline__ void wgmma_commit_group() {
#if FA_HOPPER_ENABLED
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}

template <int N>
__device__ __forceinline__ void wgmma_wait_group() {
#if FA_HOPPER_ENABLED
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
#endif
}

template <int kN>
__device__ __forceinline__ void warpgroup_fence_operand(float (&r)[kN]) {
#pragma unroll
    for (int i = 0; i < kN; ++i) asm volatile("" : "+f"(r[i])::"memory");
}

template <int kN>
__device__ __forceinline__ void warpgroup_fence_operand(uint32_t (&r)[kN]) {
#pragma unroll
    for (int i = 0; i < kN; ++i) asm volatile("" : "+r"(r[i])::"memory");
}

// Shared-memory matrix descriptor (PTX ISA "Matrix Descriptor Format"), 64 bits:
//   bits  0-13  start address >> 4        (shared-window byte address, 16-byte granular)
//   bits 16-29  leading-dimension byte offset (LBO) >> 4
//   bits 32-45  stride-dimension byte offset (SBO) >> 4
//   bits 49-51  base offset: 0 when the swizzle pattern starts on a 1024-byte boundary (always here)
//   bits 62-63  layout: 0 none, 1 = 128-byte swizzle, 2 = 64-byte, 3 = 32-byte
//
// 128-byte swizzle, 16-bit elements (T = 8 elements = 16 bytes). The swizzle atom is 8 rows of
// 128 bytes (1024 B, 1024-aligned); inside it, the 16-byte chunk c of row r sits at chunk
// c ^ (r % 8). This is exactly what TMA writes with CU_TENSOR_MAP_SWIZZLE_128B for a box whose
// inner extent is 64 elements (128 B), so TMA tiles feed wgmma directly.
//
//  K-major operand (A = Q, B = K for S = Q·Kᵀ): each M/N row keeps 64 consecutive K elements in
//  one 128-byte atom row. Canonical layout ((8,m),(T,2k)):((8T,SBO),(1,T)):
//    SBO = byte distance between consecutive 8-row groups = 1024 (atoms stacked along M/N),
//    LBO = unused for swizzled K-major layouts (the K extent of one wgmma, 16 elements = 32 B,
//          never leaves the 128-byte atom row); encoded as 1 by convention.
//    k-step kk inside the atom: start address + 32·kk bytes. The hardware applies the XOR on the
//    final address bits [4,7) ^ [7,10), so an unaligned start inside the atom is legal as long
//    as the atom itself is 1024-aligned (base offset 0). A second 64-wide K chunk (head_dim 128)
//    is a separate block of rows·128 bytes: its own start address.
//
//  MN-major operand (B = V for O += P·V: N = head_dim is the contiguous dimension, K = keys):
//  canonical layout ((T,8,m),(8,k)):((1,T,LBO),(8T,SBO)): 64 consecutive N elements form one
//  128-byte row, 8 consecutive K (key) rows form one 1024-byte atom.
//    SBO = byte distance between consecutive 8-key groups along K = 1024 (atoms stacked),
//    LBO = byte distance between consecutive 64-element N chunks (head_dim 64..127, ...) =
//          the size of one 64-column block of the tile, keys·128 bytes.
//    k-step kk (16 keys = 2 atoms): start address + 2048·kk bytes (stays 1024-aligned).
//    The instruction's imm-trans-b = 1 declares B MN-major (allowed for f16/bf16 only).
__device__ __forceinline__ uint64_t make_smem_desc_sw128(uint32_t smem_addr, uint32_t lbo_bytes, uint32_t sbo_bytes) {
    return static_cast<uint64_t>((smem_addr & 0x3FFFF) >> 4) |
           (static_cast<uint64_t>((lbo_bytes & 0x3FFFF) >> 4) << 16) |
           (static_cast<uint64_t>((sbo_bytes & 0x3FFFF) >> 4) << 32) | (1ull << 62);
}

// The same descriptor for a 64-byte swizzled K-major operand (layout type 2): rows of 64 bytes, 8
// of them (512 bytes, 512-aligned) one swizzle atom in which chunk c of row r sits at c ^ ((r / 2) %
// 4): address bits [4,6) ^ [7,9). SBO = 512 between 8-row groups; a k-step inside the row is +32
// bytes of start address, as for 128-byte rows. Rung 8's Vᵀ at head_dim 256 (64 keys a row).
__device__ __forceinline__ uint64_t make_smem_desc_sw64(uint32_t smem_addr, uint32_t lbo_bytes, uint32_t sbo_bytes) {
    return static_cast<uint64_t>((smem_addr & 0x3FFFF) >> 4) |
           (static_cast<uint64_t>((lbo_bytes & 0x3FFFF) >> 4) << 16) |
           (static_cast<uint64_t>((sbo_bytes & 0x3FFFF) >> 4) << 32) | (2ull << 62);
}

// The same descriptors as two 32-bit words (rung 8 since session 26): lo = start address >> 4 (bits
// 0-13) | LBO >> 4 << 16, hi = SBO >> 4 | layout type << 30. A ring slot or k-step moves only the
// start address, and a shared address stays below 2^18 (227 KiB), so its offset >> 4 never carries
// out of bits 0-13: adding to lo alone is the 64-bit add, and hi is a constant of the operand.
// ptxas rebuilt every 64-bit descriptor from the shared base in each loop trip (rung 8, d128: ~45
// uniform-datapath instructions around 8 QGMMA a tile); the words let it add one 32-bit offset.
__device__ __forceinline__ uint32_t smem_desc_lo(uint32_t smem_addr, uint32_t lbo_bytes) {
    return ((smem_addr & 0x3FFFF) >> 4) | (((lbo_bytes & 0x3FFFF) >> 4) << 16);
}
constexpr uint32_t smem_desc_hi(uint32_t sbo_bytes, uint32_t layout_type) {
    return ((sbo_bytes & 0x3FFFF) >> 4) | (layout_type << 30);
}
constexpr uint32_t kLayoutSw128 = 1, kLayoutSw64 = 2;

// wgmma.mma_async.sync.aligned.m64nNk16.f32.{bf16,f16}: N is the template argument of WgmmaM64
// (specialized for 64, 80, 128, 160 and 256; another N is one more specialization with its operand lists).
//   ss<T>(d, desc_a, desc_b, scale_d):     A and B from shared memory (both K-major here:
//                                          imm-trans-a = imm-trans-b = 0).
//   rs<T, kTransB>(d, a, desc_b, scale_d): A from registers (4 x b32 per thread: the m16n8k16
//                                          A-fragment layout of the thread's warp's 16 rows),
//                                          B from shared memory; kTransB = 1 for MN-major B.
//   scale_d = 0: D = A·B (the accumulator's old value is ignored); 1: D += A·B.
// d holds N/2 fp32 per thread: d[4j + 2h + e] is row 16·warp + lane/4 + 8h, column
// 8j + 2·(lane%4) + e of the 64 x N tile (the m16n8 accumulator layout, repeated over N/8).
template <int N>
struct WgmmaM64;

// Operand lists generated mechanically ("{%0, ..., %(N/2-1)}" and "+f"(d[i])), see WgmmaM64.
#define FA_WGMMA_D_REGS_N64 "{"\
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15" ", "\
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" "}"
#define FA_WGMMA_D_OPERANDS_N64 \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
    "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
    "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
    "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])

#define FA_WGMMA_D_REGS_N128 "{"\
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15" ", "\
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" ", "\
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47" ", "\
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" "}"
#define FA_WGMMA_D_OPERANDS_N128 \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
    "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
    "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
    "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
    "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
    "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
    "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
    "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])

// O += P·V at head_dim 256 (rs only: S = Q·Kᵀ never has 256 columns here).
#define FA_WGMMA_D_REGS_N256 "{"\
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15" ", "\
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" ", "\
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47" ", "\
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" ", "\
    "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79" ", "\
    "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95" ", "\
    "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111" ", "\
    "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127" "}"
#define FA_WGMMA_D_OPERANDS_N256 \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
    "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
    "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
    "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
    "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
    "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
    "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
    "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
    "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
    "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
    "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
    "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
    "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
    "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
    "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
    "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])

template <>
struct WgmmaM64<64> {
    template <typename T>
    static __device__ __forceinline__ void ss(float (&d)[32], uint64_t desc_a, uint64_t desc_b, uint32_t scale_d) {
        if constexpr (std::is_same_v<T, __nv_bfloat16>) {
            asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                         "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 " FA_WGMMA_D_REGS_N64
                         ", %32, %33, p, 1, 1, 0, 0;\n}\n"
                         : FA_WGMMA_D_OPERANDS_N64
                         : "l"(desc_a), "l"(desc_b), "r"(scale_d));
        } else {
            asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                         "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 " FA_WGMMA_D_REGS_N64
                         ", %32, %33, p, 1, 1, 0, 0;\n}\n"
                         : FA_WGMMA_D_OPERANDS_N64
                         : "l"(desc_a), "l"(desc_b), "r"(scale_d));
        }
    }
    template <typename T, int kTransB>
    static __device__ __forceinline__ void rs(float (&d)[32], const uint32_t (&a)[4], uint64_t desc_b, uint32_t scale_d) {
        if constexpr (std::is_same_v<T, __nv_bfloat16>) {
            asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
                         "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 " FA_WGMMA_D_REGS_N64
                         ", {%32, %33, %34, %35}, %36, p, 1, 1, %38;\n}\n"
                         : FA_WGMMA_D_OPERANDS_N64
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d), "n"(kTransB));
        } else {
            asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
                         "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 " FA_WGMMA_D_REGS_N64
                         ", {%32, %33, %34, %35}, %36, p, 1, 1, %38;\n}\n"
                         : FA_WGMMA_D_OPERANDS_N64
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d), "n"(kTransB));
        }
    }
};

// S = Q·Kᵀ at head_dim 256 (ss only): 80 keys, FA3's d256 key tile (wgmma_traits.cuh, WgmmaTileD256).
#define FA_WGMMA_D_REGS_N80 "{"\
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15" ", "\
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" ", "\
    "%32, %33, %34, %35, %36, %37, %38, %39" "}"
#define FA_WGMMA_D_OPERANDS_N80 \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
    "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
    "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
    "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
    "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39])

template <>
struct WgmmaM64<80> {
    template <typename T>
    static __device__ __forceinline__ void ss(float (&d)[40], uint64_t desc_a, uint64_t desc_b, uint32_t scale_d) {
        if constexpr (std::is_same_v<T, __nv_bfloat16>) {
            asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %42, 0;\n"
                         "wgmma.mma_async.sync.aligned.m64n80k16.f32.bf16.bf16 " FA_WGMMA_D_REGS_N80
                         ", %40, %41, p, 1, 1, 0, 0;\n}\n"
                         : FA_WGMMA_D_OPERANDS_N80
                         : "l"(desc_a), "l"(desc_b), "r"(scale_d));
        } else {
            asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %42, 0;\n"
                         "wgmma.mma_async.sync.aligned.m64n80k16.f32.f16.f16 " FA_WGMMA_D_REGS_N80
                         ", %40, %41, p, 1, 1, 0, 0;\n}\n"
                         : FA_WGMMA_D_OPERANDS_N80
                         : "l"(desc_a), "l"(desc_b), "r"(scale_d));
        }
    }
};

// S = Q·Kᵀ at head_dim 128 with rung 7's 160-key tile (ss only; wgmma_traits.cuh, WgmmaTileD128Wide).
#define FA_WGMMA_D_REGS_N160 "{"\
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15" ", "\
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" ", "\
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47" ", "\
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" ", "\
    "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79" "}"
#define FA_WGMMA_D_OPERANDS_N160 \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
    "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
    "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
    "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
    "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
    "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
    "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
    "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
    "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
    "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79])

template <>
struct WgmmaM64<160> {
    template <typename T>
    static __device__ __forceinline__ void ss(float (&d)[80], uint64_t desc_a, uint64_t desc_b, uint32_t scale_d) {
        if constexpr (std::is_same_v<T, __nv_bfloat16>) {
            asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %82, 0;\n"
                         "wgmma.mma_async.sync.aligned.m64n160k16.f32.bf16.bf16 " FA_WGMMA_D_REGS_N160
                         ", %80, %81, p, 1, 1, 0, 0;\n}\n"
                         : FA_WGMMA_D_OPERANDS_N160
                         : "l"(desc_a), "l"(desc_b), "r"(scale_d));
        } else {
            asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %82, 0;\n"
                         "wgmma.mma_async.sync.aligned.m64n160k16.f32.f16.f16 " FA_WGMMA_D_REGS_N160
                         ", %80, %81, p, 1, 1, 0, 0;\n}\n"
                         : FA_WGMMA_D_OPERANDS_N160
                         : "l"(desc_a), "l"(desc_b), "r"(scale_d));
        }
    }
};

template <>
struct WgmmaM64<128> {
    template <typename T>
    static __device__ __forceinline__ void ss(float (&d)[64], uint64_t desc_a, uint64_t desc_b, uint32_t scale_d) {
        if constexpr (std::is_same_v<T, __nv_bfloat16>) {
            asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                         "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 " FA_WGMMA_D_REGS_N128
                         ", %64, %65, p, 1, 1, 0, 0;\n}\n"
                         : FA_WGMMA_D_OPERANDS_N128
                         : "l"(desc_a), "l"(desc_b), "r"(scale_d));
        } else {
            asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                         "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 " FA_WGMMA_D_REGS_N128
                         ", %64, %65, p, 1, 1, 0, 0;\n}\n"
                         : FA_WGMMA_D_OPERANDS_N128
                         : "l"(desc_a), "l"(desc_b), "r"(scale_d));
        }
    }
    template <typename T, int kTransB>
    static __device__ __forceinline__ void rs(float (&d)[64], const uint32_t (&a)[4], uint64_t desc_b, uint32_t scale_d) {
        if constexpr (std::is_same_v<T, __nv_bfloat16>) {
            asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
                         "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 " FA_WGMMA_D_REGS_N128
                         ", {%64, %65, %66, %67}, %68, p, 1, 1, %70;\n}\n"
                         : FA_WGMMA_D_OPERANDS_N128
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d), "n"(kTransB));
        } else {
            asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
                         "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 " FA_WGMMA_D_REGS_N128
                         ", {%64, %65, %66, %67}, %68, p, 1, 1, %70;\n}\n"
                         : FA_WGMMA_D_OPERANDS_N128
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d), "n"(kTransB));
        }
    }
};

template <>
struct WgmmaM64<256> {
    template <typename T, int kTransB>
    static __device__ __forceinline__ void rs(float (&d)[128], const uint32_t (&a)[4], uint64_t desc_b, uint32_t scale_d) {
        if constexpr (std::is_same_v<T, __nv_bfloat16>) {
            asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
                         "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 " FA_WGMMA_D_REGS_N256
                         ", {%128, %129, %130, %131}, %132, p, 1, 1, %134;\n}\n"
                         : FA_WGMMA_D_OPERANDS_N256
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d), "n"(kTransB));
        } else {
            asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
                         "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 " FA_WGMMA_D_REGS_N256
                         ", {%128, %129, %130, %131}, %132, p, 1, 1, %134;\n}\n"
                         : FA_WGMMA_D_OPERANDS_N256
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d), "n"(kTransB));
        }
    }
};

// ---------------------------------------------------------------------------------------------
// FP8: wgmma.mma_async.sync.aligned.m64nNk32.f32.e4m3.e4m3 (rung 8). Same accumulator layout as
// the k16 forms; K = 32 elements = 32 bytes per instruction, so a k-step advances a K-major
// descriptor by 32 bytes exactly as a bf16 k16 step does. 8-bit operands have no transpose
// immediates: both A and B must be K-major (B = Vᵀ for O += P·V, which rung 8 builds in shared
// memory). The trailing "1, 1" are imm-scale-a and imm-scale-b (no negation).
//   ss(d, desc_a, desc_b, scale_d):  A and B from shared memory.
//   rs(d, a, desc_b_lo, desc_b_hi, scale_d):
//                                    B's descriptor as its two words (smem_desc_lo / smem_desc_hi);
//                                    A from registers: 4 x b32 of 4 e4m3 each, the k32 A-fragment
//                                    layout (PTX ISA, "Matrix Fragments for wgmma.mma_async.m64nNk32"):
//                                    thread (warp w, lane l) holds rows 16w + l/4 (a0-a3, a8-a11) and
//                                    16w + l/4 + 8 (a4-a7, a12-a15), columns 4·(l%4) + i (a0-a7) and
//                                    16 + 4·(l%4) + i (a8-a15), a0 in the low byte of the first register.
// ---------------------------------------------------------------------------------------------
template <int N>
struct WgmmaM64E4M3;

template <>
struct WgmmaM64E4M3<128> {
    static __device__ __forceinline__ void ss(float (&d)[64], uint64_t desc_a, uint64_t desc_b, uint32_t scale_d) {
#if FA_HOPPER_ENABLED
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 " FA_WGMMA_D_REGS_N128
                     ", %64, %65, p, 1, 1;\n}\n"
                     : FA_WGMMA_D_OPERANDS_N128
                     : "l"(desc_a), "l"(desc_b), "r"(scale_d));
#endif
    }
    static __device__ __forceinline__ void rs(float (&d)[64], const uint32_t (&a)[4], uint32_t desc_b_lo,
                                              uint32_t desc_b_hi, uint32_t scale_d) {
#if FA_HOPPER_ENABLED
        asm volatile("{\n.reg .pred p;\n.reg .b64 db;\nsetp.ne.b32 p, %70, 0;\nmov.b64 db, {%68, %69};\n"
                     "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 " FA_WGMMA_D_REGS_N128
                     ", {%64, %65, %66, %67}, db, p, 1, 1;\n}\n"
                     : FA_WGMMA_D_OPERANDS_N128
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(desc_b_lo), "r"(desc_b_hi), "r"(scale_d));
#endif
    }
};

// Head_dim 256 (WgmmaFp8D256): S = Q·Kᵀ over 64 keys (ss, or rs with Q's fragments in registers on
// the pre-pass way), O += P·Vᵀ with N = head_dim = 256.
template <>
struct WgmmaM64E4M3<64> {
    static __device__ __forceinline__ void ss(float (&d)[32], uint64_t desc_a, uint64_t desc_b, uint32_t scale_d) {
#if FA_HOPPER_ENABLED
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 " FA_WGMMA_D_REGS_N64
                     ", %32, %33, p, 1, 1;\n}\n"
                     : FA_WGMMA_D_OPERANDS_N64
                     : "l"(desc_a), "l"(desc_b), "r"(scale_d));
#endif
    }
    static __device__ __forceinline__ void rs(float (&d)[32], const uint32_t (&a)[4], uint32_t desc_b_lo,
                                              uint32_t desc_b_hi, uint32_t scale_d) {
#if FA_HOPPER_ENABLED
        asm volatile("{\n.reg .pred p;\n.reg .b64 db;\nsetp.ne.b32 p, %38, 0;\nmov.b64 db, {%36, %37};\n"
                     "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 " FA_WGMMA_D_REGS_N64
                     ", {%32, %33, %34, %35}, db, p, 1, 1;\n}\n"
                     : FA_WGMMA_D_OPERANDS_N64
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(desc_b_lo), "r"(desc_b_hi), "r"(scale_d));
#endif
    }
};

template <>
struct WgmmaM64E4M3<256> {
    static __device__ __forceinline__ void rs(float (&d)[128], const uint32_t (&a)[4], uint32_t desc_b_lo,
                                              uint32_t desc_b_hi, uint32_t scale_d) {
#if FA_HOPPER_ENABLED
        asm volatile("{\n.reg .pred p;\n.reg .b64 db;\nsetp.ne.b32 p, %134, 0;\nmov.b64 db, {%132, %133};\n"
                     "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 " FA_WGMMA_D_REGS_N256
                     ", {%128, %129, %130, %131}, db, p, 1, 1;\n}\n"
                     : FA_WGMMA_D_OPERANDS_N256
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(desc_b_lo), "r"(desc_b_hi), "r"(scale_d));
#endif
    }
};

// Four fp32 -> four e4m3 in one b32, x0 in the low byte (the A-fragment order), rounded to nearest
// even and saturated to +-448 (cvt.rn.satfinite.e4m3x2.f32 puts its first source in the upper
// byte of each half).
__device__ __forceinline__ uint32_t cvt_pack4_e4m3(float x0, float x1, float x2, float x3) {
    uint32_t out = 0;
#if FA_HOPPER_ENABLED
    asm("{\n.reg .b16 lo, hi;\n"
        "cvt.rn.satfinite.e4m3x2.f32 lo, %2, %1;\n"
        "cvt.rn.satfinite.e4m3x2.f32 hi, %4, %3;\n"
        "mov.b32 %0, {lo, hi};\n}\n"
        : "=r"(out)
        : "f"(x0), "f"(x1), "f"(x2), "f"(x3));
#endif
    return out;
}

#undef FA_WGMMA_D_REGS_N64
#undef FA_WGMMA_D_OPERANDS_N64
#undef FA_WGMMA_D_REGS_N128
#undef FA_WGMMA_D_OPERANDS_N128
#undef FA_WGMMA_D_REGS_N256
#undef FA_WGMMA_D_OPERANDS_N256

}  // namespace fa::hopper
