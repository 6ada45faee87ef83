// GPU tests: without a usable CUDA device the binary says so and exits 77, which CTest reports as
// "Skipped" — visible in every CI log, never a silent pass.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <cstdio>

#include "device.h"

int main(int argc, char** argv) {
    const fa::DeviceInfo dev = fa::query_device(0);
    if (!dev.present) {
        std::printf("SKIPPED: the [gpu] tests need a CUDA GPU (%s)\n", dev.why_absent.c_str());
        return 77;
    }
    return Catch::Session().run(argc, argv);
}
