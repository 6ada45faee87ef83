#include <catch2/catch.hpp>

#include "timing.h"

TEST_CASE("summarize: median, extremes and noise of per-launch times", "[timing]") {
    // Unsorted input; odd count: the middle value. Sample standard deviation 1 over mean 2: 50 %.
    const fa::Timing odd = fa::summarize({3.0, 1.0, 2.0});
    CHECK(odd.median == 2.0);
    CHECK(odd.min == 1.0);
    CHECK(odd.max == 3.0);
    CHECK(odd.noise_pct == Approx(50.0));
    // Even count: the mean of the two middle values.
    CHECK(fa::summarize({4.0, 1.0, 3.0, 2.0}).median == 2.5);
    // One launch has no spread to report.
    const fa::Timing one = fa::summarize({0.7});
    CHECK(one.median == 0.7);
    CHECK(one.noise_pct == 0.0);
}
