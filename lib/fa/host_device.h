// FA_HOST_DEVICE: a function both the kernels (nvcc) and the host code and unit tests (the C++
// compiler, which knows no __host__ / __device__) compile.
#pragma once

#if defined(__CUDACC__)
#define FA_HOST_DEVICE __host__ __device__
#else
#define FA_HOST_DEVICE
#endif
