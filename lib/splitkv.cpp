#include "fa/splitkv.h"

#include <algorithm>

namespace fa {

int choose_num_splits(long long ctas, int slots, int key_blocks, bool balance_waves, int fill_slots,
                      int max_splits, SplitChunkRule chunks) {
    if (ctas <= 0 || slots <= 0 || key_blocks <= 1) return 1;
    // 80 % of a wave or more: the SMs are (nearly) all busy already, and a split would only add
    // the partial-output traffic (n · B·H·Sq·D·4 B, written and read) and the combine launch;
    // except decode, whose last wave leaves read rate unused where a split fills the waves
    // clearly better (splitkv.h: kMaxBalanceSplits, kBalanceGain).
    if (static_cast<double>(ctas) >= 0.8 * slots) {
        if (!balance_waves) return 1;
        const int limit = std::min({kMaxBalanceSplits, max_splits, key_blocks / kMinBalanceChunkBlocks});
        auto waves_per_split = [&](int n) { return static_cast<double>((n * ctas + slots - 1) / slots) / n; };
        int best = 1;
        for (int n = 2; n <= limit; ++n)
            if (waves_per_split(n) < waves_per_split(best)) best = n;
        return waves_per_split(best) < kBalanceGain * waves_per_split(1) ? best : 1;
    }
    // Splits that still fit in one wave: every CTA then runs at once and the launch takes as long
    // as one chunk of ceil(key_blocks / n) blocks. Past one wave, more splits shorten the chunks
    // only as fast as they add waves (and every split adds partial traffic), so they are not tried.
    const long long one_wave = std::max<long long>(1, (fill_slots > 0 ? fill_slots : slots) / ctas);
    int limit = static_cast<int>(std::min<long long>({max_splits, key_blocks, one_wave}));
    // Chunks of at least chunks.min_blocks, and past the splits one combine warp merges of at least
    // wide_min_blocks, but never fewer splits than that warp merges (splitkv.h, SplitChunkRule; the
    // default rule leaves the limit as it is).
    limit = std::max(1, std::min(limit, key_blocks / std::max(chunks.min_blocks, 1)));
    if (limit > chunks.one_warp_splits)
        limit = std::max(chunks.one_warp_splits, std::min(limit, key_blocks / std::max(chunks.wide_min_blocks, 1)));
    auto chunk = [&](int n) { return (key_blocks + n - 1) / n; };
    // The fewest splits that reach the shortest chunk: e.g. 10 key blocks on room for 6 splits
    // give chunks of 2 with 5 splits already, and a 6th split would only be left empty.
    int n = limit;
    while (n > 1 && chunk(n - 1) == chunk(limit)) --n;
    return n;
}

TailSplit choose_tail_split(long long ctas, int slots, int key_blocks, bool causal) {
    if (causal || ctas <= 0 || slots <= 0) return {};
    const long long tail = ctas % slots;
    if (tail == 0 || tail > kMaxTailTiles) return {};
    const long long splits = std::min<long long>({slots / tail, key_blocks / kMinTailChunkBlocks, kMaxTailSplits});
    if (splits < 2) return {};
    return {static_cast<int>(tail), static_cast<int>(splits)};
}

namespace {
constexpr std::size_t kAlign = 256;
std::size_t round_up(std::size_t x) { return (x + kAlign - 1) / kAlign * kAlign; }
std::size_t partial_rows(const ProblemShape& p) {
    return static_cast<std::size_t>(p.batch) * p.heads * p.seqlen_q;
}
}  // namespace

std::size_t splitkv_workspace_bytes(const ProblemShape& p, int num_splits) {
    if (num_splits <= 1) return 0;
    const std::size_t rows = partial_rows(p) * num_splits;
    return round_up(rows * p.head_dim * sizeof(float)) + round_up(rows * sizeof(float));
}

void assign_splitkv_workspace(FwdParams* prm, int num_splits, void* workspace) {
    prm->num_splits = num_splits > 1 ? num_splits : 1;
    prm->o_partial = nullptr;
    prm->lse_partial = nullptr;
    if (num_splits <= 1) return;
    const std::size_t rows = static_cast<std::size_t>(prm->batch) * prm->heads * prm->seqlen_q * num_splits;
    auto* base = static_cast<unsigned char*>(workspace);
    prm->o_partial = reinterpret_cast<float*>(base);
    prm->lse_partial = reinterpret_cast<float*>(base + round_up(rows * prm->head_dim * sizeof(float)));
}

}  // namespace fa
