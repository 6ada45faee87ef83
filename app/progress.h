// "k of N" and an estimate of the time left, on one line of stderr that is redrawn in place while
// a sweep runs, and only when stderr is a terminal: pipes, logs and the CSV get nothing extra.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace fa {

class Progress {
  public:
    // `total`: the launches the sweep will time; `out`: where the line goes (stderr), shown only
    // when `enabled` (progress_wanted() for stderr).
    Progress(int total, std::FILE* out, bool enabled);
    ~Progress() { clear(); }

    // Before work item k (0-based) starts: "[k+1/N] <what>  mm:ss elapsed, about mm:ss left".
    void start(int k, const std::string& what);
    // Erases the line, so that a table row printed next starts on a clean line.
    void clear();

    // Estimated seconds left after `done` of `total` items took `elapsed_s`: the mean per item so
    // far times the items left (none before the first item has finished).
    static double seconds_left(int done, int total, double elapsed_s);
    // "mm:ss", or "h:mm:ss" from an hour on.
    static std::string clock(double seconds);

  private:
    int total_;
    std::FILE* out_;
    bool enabled_;
    bool drawn_ = false;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// Whether a progress line belongs on `out`: a terminal that is not TERM=dumb.
bool progress_wanted(std::FILE* out);

}  // namespace fa
