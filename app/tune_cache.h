// The --autotune cache: per (GPU, kernel, problem bucket) the tile that timed fastest, kept in a
// small tab-separated file next to the peaks cache, so that later runs without tile flags use it
// (plan.cpp: explicit tile flags > this cache > the kernel's default). Host-only: reading,
// writing and the bucket rule are unit-tested without a GPU (tests/unit/test_tune_cache.cpp).
//
// Bucket rule: problems that share every key field below run with the same tile. Sequence
// lengths go into power-of-two buckets, bucket b holding b/2 < seqlen <= b (seqlen 1 is bucket 1),
// so decode (seqlen_q 1) never shares an entry with prefill, and 4097..8192 share one. Grouped
// K/V heads (num_head_kv < num_head) are their own bucket: packed GQA changes the row blocks.
// Batch, head count and --num_splits are not keyed: they move the grid, not the per-CTA work
// that the tile shapes (README: Autotuning).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fa/kernel_api.h"
#include "fa/problem.h"

namespace fa {

struct TuneKey {
    std::string gpu;     // the device name, commas and control characters replaced (tune_key)
    std::string kernel;  // registry slug
    DType dtype = DType::BFloat16;
    int head_dim = 0;
    bool causal = false;
    int seqlen_q_bucket = 0;  // seqlen_bucket(seqlen_q)
    int seqlen_k_bucket = 0;
    bool grouped_kv = false;  // num_head_kv < num_head

    bool operator==(const TuneKey& o) const;
};

struct TuneEntry {
    TuneKey key;
    TileConfig tile;
    double median_ms = 0;  // the winner's median on the tuned problem
    double tflops = 0;
    int64_t tuned_at = 0;  // seconds since the Unix epoch
    std::string problem;   // the problem it was tuned on, "b4 h16 sq8192 sk8192" (no tabs)
};

// The smallest power of two >= seqlen (seqlen >= 1).
int seqlen_bucket(int seqlen);

// The key of `problem` run by kernel `kernel` on a GPU named `gpu`.
TuneKey tune_key(const std::string& gpu, const std::string& kernel, const ProblemShape& problem);

// "3d", "5h", "12m", "<1m": how long ago `tuned_at` was at `now` (both Unix seconds).
std::string tune_age(int64_t tuned_at, int64_t now);

// $XDG_CACHE_HOME/fa-bench/tune.csv, else $HOME/.cache/fa-bench/tune.csv, else ./fa-bench-tune.csv
// (the peaks file's folder: default_peaks_file()).
std::string default_tune_file();

class TuneCache {
  public:
    // Reads `path`. Never throws: a missing file is an empty cache; a file that is not a whole,
    // well-formed cache (a directory, unreadable, wrong header, a row with the wrong column count
    // or a bad value, a last line without its newline) is an empty cache and `*warning` says why
    // in one line, which --autotune's next save overwrites. Empty *warning: read as it is.
    static TuneCache load(const std::string& path, std::string* warning);

    // The entry for `key`, or null.
    const TuneEntry* find(const TuneKey& key) const;
    // Adds `e`, replacing an entry of the same key.
    void put(const TuneEntry& e);
    const std::vector<TuneEntry>& entries() const { return entries_; }

    // Writes every entry to `path` atomically: a temporary file in the same folder (created if
    // missing), checked after flush and close, then renamed over `path`. Returns an error
    // message, or an empty string; on error `path` is unchanged.
    std::string save(const std::string& path) const;

  private:
    std::vector<TuneEntry> entries_;
};

}  // namespace fa
