// The GPU reference: plain FP32 attention, written for clarity and independence, not speed.
// A CTA takes kRows query rows of one (batch, head). Pass 1 finds each row's maximum score;
// pass 2 recomputes the scores, exponentiates with expf and accumulates P·V over chunks of
// kChunk keys. At 4×8192×16×128 it reads K twice and V once per 8 rows from L2 (~0.8 TB),
// well under a second on an H100 — and it runs once per problem, not per kernel.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cmath>
#include <cstring>

#include "fa/fp8.h"
#include "fa/reference.h"

namespace fa {
namespace {

constexpr int kRows = 8;           // query rows per CTA: K/V reads amortized over 8 rows
constexpr int kThreads = 256;      // one key per thread per chunk
constexpr int kChunk = kThreads;   // keys per chunk
constexpr int kMaxHeadDim = 256;   // largest head_dim fa-bench accepts
constexpr int kOutPerThread = kRows * kMaxHeadDim / kThreads;  // 8 (row, dim) outputs per thread

template <typename T> __device__ float ref_load(const T* p);
template <> __device__ float ref_load<float>(const float* p) { return *p; }
template <> __device__ float ref_load<__half>(const __half* p) { return __half2float(*p); }
template <> __device__ float ref_load<__nv_bfloat16>(const __nv_bfloat16* p) { return __bfloat162float(*p); }
// FP8 through fa/fp8.h's decoder, the one the host tests check (not the kernels' conversions).
template <> __device__ float ref_load<__nv_fp8_e4m3>(const __nv_fp8_e4m3* p) { return e4m3_to_float(p->__x); }

// T: the input type; O is written as float (o_ref). The descales are 1 except for FP8 inputs, and
// multiplying by 1 is exact, so the other dtypes' reference is unchanged by them.
template <typename T>
__global__ void __launch_bounds__(kThreads) reference_kernel(FwdParams prm, float* o_ref, float* lse_ref) {
    __shared__ float q_s[kRows][kMaxHeadDim];
    __shared__ float p_s[kRows][kChunk];
    __shared__ float red_s[kRows][kThreads / 32];
    __shared__ float max_s[kRows];  // row maxima, kept here rather than in 8 more registers (no spills)

    const int D = prm.head_dim, Sk = prm.seqlen_k;
    // One linear block index over grid.y x grid.x, split into (batch, head, row block): grid.y and
    // grid.z would cap heads and batch at 65535, grid.x alone the blocks at 2^31 - 1.
    const int64_t row_blocks = (prm.seqlen_q + kRows - 1) / kRows;
    const int64_t block = static_cast<int64_t>(blockIdx.y) * gridDim.x + blockIdx.x;
    if (block >= row_blocks * prm.heads * prm.batch) return;  // the grid's rounding tail: the whole CTA leaves
    const int row0 = static_cast<int>(block % row_blocks) * kRows;
    const int64_t h = (block / row_blocks) % prm.heads, b = block / (row_blocks * prm.heads);
    const int64_t h_kv = h / prm.heads_per_kv;
    const T* q = static_cast<const T*>(prm.q) + b * prm.q_batch_stride + h * prm.q_head_stride;
    const T* k = static_cast<const T*>(prm.k) + b * prm.k_batch_stride + h_kv * prm.k_head_stride;
    const T* v = static_cast<const T*>(prm.v) + b * prm.v_batch_stride + h_kv * prm.v_head_stride;
    float* o = o_ref + b * prm.o_batch_stride + h * prm.o_head_stride;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;

    for (int i = threadIdx.x; i < kRows * D; i += kThreads) {
        const int r = i / D, d = i % D;
        q_s[r][d] = row0 + r < prm.seqlen_q ? ref_load(q + (row0 + r) * prm.q_row_stride + d) * prm.q_descale : 0.0f;
    }
    __syncthreads();

    auto visible = [&](int r, int j) { return j < Sk && (!prm.causal || j <= row0 + r); };
    auto score = [&](int r, int j) {
        float s = 0.0f;
        for (int d = 0; d < D; ++d) s += q_s[r][d] * (ref_load(k + j * prm.k_row_stride + d) * prm.k_descale);
        return s * prm.scale;
    };
    // Block-wide reduction of one value per row; op is max or sum.
    auto reduce_rows = [&](float (&x)[kRows], bool is_max) {
        for (int r = 0; r < kRows; ++r) {
            for (int off = 16; off > 0; off /= 2) {
                const float y = __shfl_xor_sync(0xffffffffu, x[r], off);
                x[r] = is_max ? fmaxf(x[r], y) : x[r] + y;
            }
            if (lane == 0) red_s[r][warp] = x[r];
        }
        __syncthreads();
        for (int r = 0; r < kRows; ++r) {
            float acc = red_s[r][0];
            for (int w = 1; w < kThreads / 32; ++w) acc = is_max ? fmaxf(acc, red_s[r][w]) : acc + red_s[r][w];
            x[r] = acc;
        }
        __syncthreads();
    };

    float row_max[kRows];
    for (int r = 0; r < kRows; ++r) row_max[r] = -INFINITY;
    for (int j = threadIdx.x; j < Sk; j += kThreads)
        for (int r = 0; r < kRows; ++r)
            if (visible(r, j)) row_max[r] = fmaxf(row_max[r], score(r, j));
    reduce_rows(row_max, true);
    if (threadIdx.x == 0)
        for (int r = 0; r < kRows; ++r) max_s[r] = row_max[r];
    __syncthreads();

    float row_sum[kRows] = {};
    float acc[kOutPerThread] = {};
    for (int j0 = 0; j0 < Sk; j0 += kChunk) {
        const int j = j0 + threadIdx.x;
        for (int r = 0; r < kRows; ++r) {
            const float pr = visible(r, j) ? expf(score(r, j) - max_s[r]) : 0.0f;
            p_s[r][threadIdx.x] = pr;
            row_sum[r] += pr;
        }
        __syncthreads();
        const int keys = min(kChunk, Sk - j0);
        for (int t = 0; t < kOutPerThread; ++t) {
            const int i = threadIdx.x + t * kThreads;
            if (i >= kRows * D) break;
            const int r = i / D, d = i % D;
            float sum = 0.0f;
            for (int jj = 0; jj < keys; ++jj)
                sum += p_s[r][jj] * (ref_load(v + (j0 + jj) * prm.v_row_stride + d) * prm.v_descale);
            acc[t] += sum;
        }
        __syncthreads();
    }
    reduce_rows(row_sum, false);
    if (lse_ref != nullptr && threadIdx.x < kRows && row0 + threadIdx.x < prm.seqlen_q) {
        // Natural log: the scores above are already scaled and exponentiated with expf.
        const int r = threadIdx.x;
        // b * heads + h is the block's (batch, head) index, block / row_blocks; recomputed from
        // blockIdx here rather than keeping b and h live through the loops (that spilled).
        const int64_t head_of_batch = (static_cast<int64_t>(blockIdx.y) * gridDim.x + blockIdx.x) / row_blocks;
        lse_ref[head_of_batch * prm.seqlen_q + row0 + r] =
            row_sum[r] > 0.0f ? max_s[r] + logf(row_sum[r]) : -INFINITY;
    }

    for (int t = 0; t < kOutPerThread; ++t) {
        const int i = threadIdx.x + t * kThreads;
        if (i >= kRows * D) break;
        const int r = i / D, d = i % D;
        if (row0 + r < prm.seqlen_q)
            o[(row0 + r) * prm.o_row_stride + d] = row_sum[r] > 0.0f ? acc[t] / row_sum[r] : 0.0f;
    }
}

// splitmix64: a well-mixed 64-bit hash, so index i and seed s give an independent-looking draw.
__device__ __forceinline__ uint64_t splitmix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

template <typename T> __device__ T store_as(float x);
template <> __device__ float store_as<float>(float x) { return x; }
template <> __device__ __half store_as<__half>(float x) { return __float2half_rn(x); }
template <> __device__ __nv_bfloat16 store_as<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

__device__ __forceinline__ uint64_t normal_key(uint64_t seed, uint64_t stream_id) {
    return splitmix64(seed ^ splitmix64(stream_id + 1));
}

// Element i of the standard-normal tensor `key`: a pure function of (key, i), so the FP8 path can
// read the values twice (amax, then quantize) and get the tensor every other dtype gets.
__device__ __forceinline__ float normal_at(uint64_t key, std::size_t i) {
    const uint64_t bits = splitmix64(key ^ (i * 0xD1B54A32D192ED03ull));
    // Box–Muller on two 24-bit uniforms in (0, 1].
    const float u1 = (static_cast<float>(bits >> 40) + 1.0f) * (1.0f / 16777216.0f);
    const float u2 = static_cast<float>((bits >> 8) & 0xFFFFFF) * (1.0f / 16777216.0f);
    return sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
}

template <typename T>
__global__ void normal_kernel(T* dst, std::size_t count, uint64_t seed, uint64_t stream_id) {
    const uint64_t key = normal_key(seed, stream_id);
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        dst[i] = store_as<T>(normal_at(key, i));
}

// max |x| of the tensor into *amax_bits (as the bits of a non-negative float, which order like
// unsigned integers; *amax_bits starts at 0).
__global__ void normal_amax_kernel(unsigned* amax_bits, std::size_t count, uint64_t seed, uint64_t stream_id) {
    const uint64_t key = normal_key(seed, stream_id);
    float m = 0.0f;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        m = fmaxf(m, fabsf(normal_at(key, i)));
    for (int off = 16; off > 0; off /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
    if (threadIdx.x % 32 == 0) atomicMax(amax_bits, __float_as_uint(m));
}

// The same values times 2^scale_exp, rounded to e4m3 by fa/fp8.h's encoder.
__global__ void normal_e4m3_kernel(uint8_t* dst, std::size_t count, uint64_t seed, uint64_t stream_id,
                                   int scale_exp) {
    const uint64_t key = normal_key(seed, stream_id);
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        dst[i] = float_to_e4m3(ldexpf(normal_at(key, i), scale_exp));
}

// FP8: amax pass, the scale on the host, quantize pass (fill_random_normal's contract).
cudaError_t fill_random_e4m3(uint8_t* dst, std::size_t count, uint64_t seed, uint64_t stream_id, cudaStream_t stream,
                             float* descale, int blocks, int threads) {
    unsigned* amax_dev = nullptr;
    cudaError_t e = cudaMallocAsync(&amax_dev, sizeof(unsigned), stream);
    if (e != cudaSuccess) return e;
    unsigned amax_bits = 0;
    e = cudaMemsetAsync(amax_dev, 0, sizeof(unsigned), stream);
    if (e == cudaSuccess) {
        normal_amax_kernel<<<blocks, threads, 0, stream>>>(amax_dev, count, seed, stream_id);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaMemcpyAsync(&amax_bits, amax_dev, sizeof(unsigned), cudaMemcpyDeviceToHost, stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    cudaFreeAsync(amax_dev, stream);
    if (e != cudaSuccess) return e;
    float amax;
    std::memcpy(&amax, &amax_bits, sizeof(float));
    const int k = fp8_scale_exponent(amax);
    *descale = std::ldexp(1.0f, -k);
    normal_e4m3_kernel<<<blocks, threads, 0, stream>>>(dst, count, seed, stream_id, k);
    return cudaGetLastError();
}

}  // namespace

cudaError_t attention_reference_gpu(const FwdParams& prm, float* o_ref, cudaStream_t stream, float* lse_ref) {
    if (prm.head_dim > kMaxHeadDim || prm.heads_per_kv < 1) return cudaErrorInvalidValue;
    constexpr long long kMaxGridX = 2147483647LL, kMaxGridY = 65535;
    const long long blocks = (prm.seqlen_q + kRows - 1LL) / kRows * prm.heads * prm.batch;
    const long long rows_of_grid = (blocks + kMaxGridX - 1) / kMaxGridX;  // grid.y: as few as fit
    if (rows_of_grid > kMaxGridY) return cudaErrorInvalidConfiguration;
    const dim3 grid(static_cast<unsigned>((blocks + rows_of_grid - 1) / rows_of_grid),
                    static_cast<unsigned>(rows_of_grid));
    switch (prm.dtype) {
        case DType::Float32: reference_kernel<float><<<grid, kThreads, 0, stream>>>(prm, o_ref, lse_ref); break;
        case DType::Float16: reference_kernel<__half><<<grid, kThreads, 0, stream>>>(prm, o_ref, lse_ref); break;
        case DType::BFloat16:
            reference_kernel<__nv_bfloat16><<<grid, kThreads, 0, stream>>>(prm, o_ref, lse_ref);
            break;
        case DType::Float8E4M3FN:
            reference_kernel<__nv_fp8_e4m3><<<grid, kThreads, 0, stream>>>(prm, o_ref, lse_ref);
            break;
    }
    return cudaGetLastError();
}

cudaError_t fill_random_normal(void* dst, DType dtype, std::size_t count, uint64_t seed, uint64_t stream_id,
                               cudaStream_t stream, float* descale) {
    const int threads = 256, blocks = 1024;  // grid-stride: ~262k threads cover any size
    if (dtype == DType::Float8E4M3FN) {
        if (descale == nullptr) return cudaErrorInvalidValue;
        return fill_random_e4m3(static_cast<uint8_t*>(dst), count, seed, stream_id, stream, descale, blocks, threads);
    }
    if (descale != nullptr) *descale = 1.0f;
    switch (dtype) {
        case DType::Float32:
            normal_kernel<<<blocks, threads, 0, stream>>>(static_cast<float*>(dst), count, seed, stream_id);
            break;
        case DType::Float16:
            normal_kernel<<<blocks, threads, 0, stream>>>(static_cast<__half*>(dst), count, seed, stream_id);
            break;
        case DType::BFloat16:
            normal_kernel<<<blocks, threads, 0, stream>>>(static_cast<__nv_bfloat16*>(dst), count, seed, stream_id);
            break;
        case DType::Float8E4M3FN: break;  // above
    }
    return cudaGetLastError();
}

}  // namespace fa
