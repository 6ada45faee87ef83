#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "progress.h"

TEST_CASE("progress: the estimate is the mean time per finished item times the items left", "[progress]") {
    CHECK(fa::Progress::seconds_left(0, 10, 5.0) < 0);  // nothing finished: no estimate yet
    CHECK(fa::Progress::seconds_left(2, 10, 30.0) == Approx(120.0));
    CHECK(fa::Progress::seconds_left(10, 10, 30.0) == Approx(0.0));
}

TEST_CASE("progress: clocks read mm:ss, and h:mm:ss from an hour on", "[progress]") {
    CHECK(fa::Progress::clock(0) == "00:00");
    CHECK(fa::Progress::clock(59.6) == "01:00");
    CHECK(fa::Progress::clock(754) == "12:34");
    CHECK(fa::Progress::clock(3600 + 62) == "1:01:02");
}

TEST_CASE("progress: nothing is written when it is not enabled (a pipe, a file)", "[progress]") {
    std::FILE* f = std::tmpfile();
    REQUIRE(f != nullptr);
    CHECK_FALSE(fa::progress_wanted(f));
    {
        fa::Progress p(5, f, fa::progress_wanted(f));
        p.start(0, "mma BFloat16 b4 h16 sq8192 sk8192 d128 c0");
        p.clear();
    }
    CHECK(std::ftell(f) == 0);
    std::fclose(f);
}

TEST_CASE("progress: on a terminal, one line redrawn in place and erased at the end", "[progress]") {
    std::FILE* f = std::tmpfile();
    REQUIRE(f != nullptr);
    {
        fa::Progress p(3, f, true);
        p.start(0, "naive x");
        p.start(1, "mma x");
    }
    std::rewind(f);
    char buf[512] = {};
    const std::string text(buf, std::fread(buf, 1, sizeof buf - 1, f));
    std::fclose(f);
    CHECK(text.find("\r\x1b[K[1/3] naive x  00:00 elapsed, estimate after the first one") == 0);
    CHECK(text.find("\r\x1b[K[2/3] mma x  00:00 elapsed, about 00:00 left") != std::string::npos);
    CHECK(text.size() >= 4);
    CHECK(text.substr(text.size() - 4) == "\r\x1b[K");
    CHECK(text.find('\n') == std::string::npos);
}
