// Session 21: is MUFU.EX2.F16 (ex2.approx.f16x2, two per pair on sm_90) faster per exponential
// than MUFU.EX2 (ex2.approx.ftz.f32)? If so, rung 8's P (quantized to e4m3 anyway) could take
// its exponentials in f16. Throughput of 8 independent chains per thread, exps per ns.
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>

__global__ void ex2_f32(float* out, int iters, float seed) {
    float v[8];
    for (int j = 0; j < 8; ++j) v[j] = seed * (threadIdx.x + j) * 1e-6f - 1.0f;
    for (int i = 0; i < iters; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(v[j]));
    float s = 0;
    for (int j = 0; j < 8; ++j) s += v[j];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void ex2_f16x2(float* out, int iters, float seed) {
    uint32_t v[4];  // 8 exponentials a step, as above
    for (int j = 0; j < 4; ++j) {
        float a = seed * (threadIdx.x + j) * 1e-6f - 1.0f;
        asm("cvt.rn.f16x2.f32 %0, %1, %1;" : "=r"(v[j]) : "f"(a));
    }
    for (int i = 0; i < iters; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) asm volatile("ex2.approx.f16x2 %0, %0;" : "+r"(v[j]));
    float s = 0;
    for (int j = 0; j < 4; ++j) s += __uint_as_float(v[j]);
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void ex2_bf16x2(float* out, int iters, float seed) {
    uint32_t v[4];
    for (int j = 0; j < 4; ++j) {
        float a = seed * (threadIdx.x + j) * 1e-6f - 1.0f;
        asm("cvt.rn.bf16x2.f32 %0, %1, %1;" : "=r"(v[j]) : "f"(a));
    }
    for (int i = 0; i < iters; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) asm volatile("ex2.approx.ftz.bf16x2 %0, %0;" : "+r"(v[j]));
    float s = 0;
    for (int j = 0; j < 4; ++j) s += __uint_as_float(v[j]);
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

template <class F>
float time_it(F launch) {
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    for (int w = 0; w < 3; ++w) launch();
    cudaEventRecord(a);
    for (int r = 0; r < 10; ++r) launch();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    return ms / 10;
}

int main() {
    const int blocks = 132 * 8, threads = 256, iters = 4096;
    float* out;
    cudaMalloc(&out, blocks * threads * sizeof(float));
    const double exps = double(blocks) * threads * iters * 8;
    for (int round = 0; round < 2; ++round) {
        float t32 = time_it([&] { ex2_f32<<<blocks, threads>>>(out, iters, 1.0f); });
        float t16 = time_it([&] { ex2_f16x2<<<blocks, threads>>>(out, iters, 1.0f); });
        float tb16 = time_it([&] { ex2_bf16x2<<<blocks, threads>>>(out, iters, 1.0f); });
        std::printf("round %d: f32 %.3f ms %.1f exp/ns | f16x2 %.3f ms %.1f exp/ns | bf16x2 %.3f ms %.1f exp/ns\n", round,
                    t32, exps / t32 / 1e6, t16, exps / t16 / 1e6, tb16, exps / tb16 / 1e6);
    }
    std::printf("%s\n", cudaGetErrorString(cudaGetLastError()));
    return 0;
}
