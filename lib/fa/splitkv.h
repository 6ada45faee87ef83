// Split-KV (flash-decoding): when a problem has too few row blocks to fill the GPU (decode: one
// query row per sequence), the key range of every row block is cut into num_splits chunks run by
// separate CTAs. Each writes a partial O, normalized by its own row sum, in fp32, and its rows'
// log-sum-exp; one combine kernel merges them exactly:
//   lse = log Σ_i exp(lse_i),   o = Σ_i exp(lse_i − lse) · o_i.
// Every split-capable rung uses the same partial layout (FwdParams::o_partial / lse_partial) and
// the same combine launch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "fa/params.h"
#include "fa/problem.h"

namespace fa {

// Largest split count fa-bench launches: past ~1 wave of CTAs more splits only add partial traffic.
inline constexpr int kMaxSplits = 128;

// The heuristic behind --num_splits 0. `ctas` = CTAs of the launch without splitting (row blocks ×
// heads × batch), `slots` = CTAs the GPU holds at once (SMs × resident CTAs per SM), `key_blocks`
// = key tiles of one row block. Returns 1 when the launch already fills 80 % of a wave; otherwise
// the fewest splits that give the shortest chunk of key blocks per CTA with all CTAs in one wave
// (fill the SMs, stop where another split no longer shortens the critical path).
int choose_num_splits(long long ctas, int slots, int key_blocks, int max_splits = kMaxSplits);

// Key tiles of one row block: ceil(seqlen_k / block_n), the range split-KV cuts into chunks.
inline int key_blocks(int seqlen_k, int block_n) { return (seqlen_k + block_n - 1) / block_n; }

// Partial outputs of a split launch: o_partial (fp32, [splits][B][H][Sq][D]) then lse_partial
// (fp32, [splits][B][H][Sq]), each 256-byte aligned. 0 when num_splits <= 1.
std::size_t splitkv_workspace_bytes(const ProblemShape& p, int num_splits);

// Points prm.o_partial / prm.lse_partial into `workspace` (splitkv_workspace_bytes long) and sets
// prm.num_splits.
void assign_splitkv_workspace(FwdParams* prm, int num_splits, void* workspace);

// Merges prm.o_partial / prm.lse_partial (prm.num_splits > 1) into prm.o (prm.dtype, prm's O
// strides) and, if prm.lse is set, the final log-sum-exp. Rows every split saw no key of get
// zeros and -inf. Never synchronizes.
cudaError_t splitkv_combine(const FwdParams& prm, cudaStream_t stream);

}  // namespace fa
