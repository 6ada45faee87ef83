// Device memory the host code owns, and the check every CUDA call of the runner goes through.
#pragma once

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <cstddef>
#include <stdexcept>

namespace fa {

// Throws the error as "<what>: <CUDA's text>"; run() turns it into exit status 1 after the rows
// finished so far have been printed and appended to the CSV.
inline void cuda_check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw std::runtime_error(fmt::format("{}: {}", what, cudaGetErrorString(e)));
}

// Device buffer that frees itself; fa-bench allocates per problem and never leaks across points.
struct DeviceBuffer {
    void* ptr = nullptr;
    std::size_t bytes = 0;
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t n) : bytes(n) {
        if (n) cuda_check(cudaMalloc(&ptr, n), "cudaMalloc");
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    ~DeviceBuffer() {
        if (ptr) cudaFree(ptr);
    }
};

}  // namespace fa
