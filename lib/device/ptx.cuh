// PTX wrappers, each named after the instruction it emits (seed 004's building blocks).
// sm_80+ only: cp.async, ldmatrix and mma.sync.m16n8k16 arrived with Ampere.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace fa::ptx {

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// cp.async.cg: 16 bytes global -> shared, bypassing L1 (.cg) since each tile is read once per CTA.
// src_bytes < 16 zero-fills the rest: rows past the end of a sequence are loaded as zeros.
__device__ __forceinline__ void cp_async_cg_16(void* smem_dst, const void* gmem_src, int src_bytes = 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_u32(smem_dst)),
                 "l"(gmem_src), "r"(src_bytes));
}

__device__ __forceinline__ void cp_async_commit_group() { asm volatile("cp.async.commit_group;\n" ::); }

// Wait until at most `kPending` committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait_group() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

// D = A·B + C, A 16x16 (row), B 16x8 (col), fp32 accumulate. A: 4 regs, B: 2 regs, C/D: 4 floats.
template <typename T>
__device__ __forceinline__ void mma_m16n8k16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]);

template <>
__device__ __forceinline__ void mma_m16n8k16<__nv_bfloat16>(float (&d)[4], const uint32_t (&a)[4],
                                                            const uint32_t (&b)[2]) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

template <>
__device__ __forceinline__ void mma_m16n8k16<__half>(float (&d)[4], const uint32_t (&a)[4],
                                                     const uint32_t (&b)[2]) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// Two fp32 values -> one register of two 16-bit values (low half = first), for P as an A operand.
template <typename T>
__device__ __forceinline__ uint32_t pack2(float lo, float hi);

template <>
__device__ __forceinline__ uint32_t pack2<__nv_bfloat16>(float lo, float hi) {
    __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&v);
}

template <>
__device__ __forceinline__ uint32_t pack2<__half>(float lo, float hi) {
    __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&v);
}

// exp2 on the SFU (ex2.approx.ftz.f32): the scale is folded into the argument by the caller.
__device__ __forceinline__ float ex2_approx(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
    return y;
}

// ---- Shared-memory operands by 32-bit address (rungs 3-7) ----
// These take a shared-window address (smem_u32) instead of a generic pointer: the main loops keep
// one 32-bit base per tile and add per-lane swizzled offsets and compile-time immediates, instead
// of carrying 64-bit generic pointers through cvta for every load.

// ldmatrix.x4: four 8x8 b16 matrices; lanes 8i..8i+7 give the row addresses of matrix i.
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t smem_addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr));
}

// ldmatrix.x4.trans: as ldmatrix_x4, each 8x8 matrix transposed on the way (V for O += P·V).
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t smem_addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr));
}

// cp_async_cg_16 above, to a shared-window address.
__device__ __forceinline__ void cp_async_cg_16(uint32_t smem_dst, const void* gmem_src, int src_bytes = 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_dst), "l"(gmem_src), "r"(src_bytes));
}

// 4-byte shared store (st.shared.b32), for 16-bit fragment pairs in the epilogue.
__device__ __forceinline__ void st_shared_b32(uint32_t smem_addr, uint32_t v) {
    asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(smem_addr), "r"(v) : "memory");
}

// 4-byte shared load (ld.shared.b32): rung 8's V transpose reads one key row's 4 columns per lane.
__device__ __forceinline__ uint32_t ld_shared_b32(uint32_t smem_addr) {
    uint32_t v;
    asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(v) : "r"(smem_addr) : "memory");
    return v;
}

// 16-byte shared store (st.shared.v4.b32): rung 8's V transpose writes 16 keys of one column.
__device__ __forceinline__ void st_shared_v4_b32(uint32_t smem_addr, uint4 v) {
    asm volatile("st.shared.v4.b32 [%0], {%1,%2,%3,%4};\n" ::"r"(smem_addr), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
}

// 16-byte shared load (ld.shared.v4.b32), for the epilogue's coalesced global stores.
__device__ __forceinline__ uint4 ld_shared_v4_b32(uint32_t smem_addr) {
    uint4 v;
    asm volatile("ld.shared.v4.b32 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "r"(smem_addr)
                 : "memory");
    return v;
}

// %tid.x through a volatile read (S2R), so the compiler re-reads it where it is used instead of
// keeping lane-derived values live across a register-heavy loop.
__device__ __forceinline__ int tid_x() {
    int t;
    asm volatile("mov.u32 %0, %%tid.x;\n" : "=r"(t));
    return t;
}

// Programmatic dependent launch (sm_90+; no-ops below). A kernel launched after this one with
// cudaLaunchAttributeProgrammaticStreamSerialization may be scheduled once every CTA of this grid
// has called launch_dependent_grids() or exited, instead of after the grid and its memory flush
// complete; the dependent must call wait_prerequisite_grids() before it reads what this grid
// wrote, which returns only once this grid has completed and its writes are visible. Two such
// dependents: the split-KV combine (lib/splitkv_combine.cu), whose launch then overlaps the main
// kernel's last wave instead of following it, and rung 8's tail chunks, which read nothing the
// tiles' kernel writes and so never wait (lib/kernels/08_wgmma_fp8.cu, launch_attention).
__device__ __forceinline__ void launch_dependent_grids() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void wait_prerequisite_grids() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

// %ctaid.x and %ctaid.y read afresh, for the same reason: block coordinates derived again in an
// epilogue instead of being carried through a register-bound main loop.
__device__ __forceinline__ int ctaid_x() {
    int t;
    asm volatile("mov.u32 %0, %%ctaid.x;\n" : "=r"(t));
    return t;
}
__device__ __forceinline__ int ctaid_y() {
    int t;
    asm volatile("mov.u32 %0, %%ctaid.y;\n" : "=r"(t));
    return t;
}

// mbarrier (sm_80+): a 64-bit shared-memory barrier with an expected arrival count and a phase
// bit that flips each time the count is reached. Rung 4 signals its K/V ring with them.
__device__ __forceinline__ void mbarrier_init(uint32_t bar, uint32_t count) {
    asm volatile("mbarrier.init.shared.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

// One arrival (release: this thread's prior shared-memory accesses are ordered before it).
__device__ __forceinline__ void mbarrier_arrive(uint32_t bar) {
    asm volatile(
        "{\n"
        ".reg .b64 state;\n"
        "mbarrier.arrive.shared.b64 state, [%0];\n"
        "}\n" ::"r"(bar)
        : "memory");
}

// Non-blocking test: has the phase with parity `parity` completed? (sm_80)
__device__ __forceinline__ bool mbarrier_test_wait_parity(uint32_t bar, uint32_t parity) {
    uint32_t done;
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "mbarrier.test_wait.parity.shared.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n"
        "}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
    return done != 0;
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// As test_wait, but the hardware may suspend the thread for a while before answering false, so a
// waiting warp stops competing for issue slots (sm_90). An explicit suspend-time hint (10 ms)
// changed neither instruction counts nor times of rungs 4 and 7-9 (session 17 call 1, at 512 keys).
// At 8k-16k keys the producer's empty-slot waits do poll (rung 7 at 2x16x8192x128: ~22 M TRYWAITs,
// FA4's sleeping waits 0.6 M), yet the hint (ptxas: a failed wait sleeps on NANOSLEEP.SYNCS) measured
// level again on rungs 7-9 and -0.6 to -1.7 % on rung 8 (session 36 call D, an H200). On the
// producer's empty-slot waits alone (rungs 6, 7, 9): 0.9985x (session 37 call F).
__device__ __forceinline__ bool mbarrier_try_wait_parity(uint32_t bar, uint32_t parity) {
    uint32_t done;
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "mbarrier.try_wait.parity.shared.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n"
        "}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
    return done != 0;
}
#endif

// Blocks until the phase with parity `parity` of `bar` has completed (acquire: what the arriving
// threads, or the cp.async writes they tracked, wrote before arriving is visible afterwards).
__device__ __forceinline__ void mbarrier_wait_parity(uint32_t bar, uint32_t parity) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    while (!mbarrier_try_wait_parity(bar, parity)) {
    }
#else
    while (!mbarrier_test_wait_parity(bar, parity)) {
    }
#endif
}

// x, through a mov ptxas cannot see through: it keeps the value in a register instead of
// rebuilding it from its inputs at every use (rung 8's descriptor words, rebuilt from the shared
// base in every loop trip otherwise).
__device__ __forceinline__ uint32_t opaque(uint32_t x) {
    uint32_t y;
    asm volatile("mov.b32 %0, %1;" : "=r"(y) : "r"(x));
    return y;
}

}  // namespace fa::ptx
