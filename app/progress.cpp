#include "progress.h"

#include <unistd.h>

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>

namespace fa {

Progress::Progress(int total, std::FILE* out, bool enabled) : total_(total), out_(out), enabled_(enabled) {}

double Progress::seconds_left(int done, int total, double elapsed_s) {
    if (done <= 0) return -1.0;
    return elapsed_s / done * (total - done);
}

std::string Progress::clock(double seconds) {
    const long s = static_cast<long>(seconds + 0.5);
    if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
    return fmt::format("{:02}:{:02}", s / 60, s % 60);
}

void Progress::start(int k, const std::string& what) {
    if (!enabled_) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double left = seconds_left(k, total_, elapsed);
    const std::string estimate = left < 0 ? "estimate after the first one" : "about " + clock(left) + " left";
    // \r and "erase to end of line" (ESC [K): the line is redrawn in place.
    fmt::print(out_, "\r\x1b[K[{}/{}] {}  {} elapsed, {}", k + 1, total_, what, clock(elapsed), estimate);
    std::fflush(out_);
    drawn_ = true;
}

void Progress::clear() {
    if (!drawn_) return;
    fmt::print(out_, "\r\x1b[K");
    std::fflush(out_);
    drawn_ = false;
}

bool progress_wanted(std::FILE* out) {
    const char* term = std::getenv("TERM");
    return ::isatty(::fileno(out)) != 0 && !(term != nullptr && std::strcmp(term, "dumb") == 0);
}

}  // namespace fa
