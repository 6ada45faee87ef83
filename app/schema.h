// What fa-bench writes and names, as data: the CSV columns with their meanings, the kernel list
// in rung order with every instance, the dtypes with their check tolerances, the option defaults
// and the NVTX range names. `fa-bench --schema` prints it as one JSON document, so the scripts in
// scripts/ read it from the binary instead of keeping copies that drift.
#pragma once

#include <cstdio>
#include <string>

#include "fa/problem.h"

namespace fa {

// Bumped when a key of the JSON document changes meaning or goes away (new keys do not bump it).
inline constexpr int kSchemaVersion = 1;

// The NVTX domain of every range fa-bench opens (ncu --nvtx-include "regex:<domain>@...").
inline constexpr const char* kNvtxDomain = "fa-bench";

// A problem inside NVTX range names, as a fmt format whose fields are CSV column names, so a
// script can both fill it and turn it into a pattern that reads a range name back.
inline constexpr const char* kNvtxProblemTag =
    "{dtype} b{batch_size} h{num_head} hkv{num_head_kv} sq{seqlen_q} sk{seqlen_k} d{head_dim} c{is_causal}";

std::string nvtx_problem_tag(const ProblemShape& p);

// The ranges around one kernel's launches are "<kernel> <problem>" plus one of these suffixes
// (--profile's single launch has none); the reference's is kNvtxReferencePrefix + "<problem>".
inline constexpr const char* kNvtxCheckSuffix = " check";
inline constexpr const char* kNvtxWarmupSuffix = " warmup";
inline constexpr const char* kNvtxTimedSuffix = " timed";
inline constexpr const char* kNvtxReferencePrefix = "reference ";

// The --schema document (JSON, ends with a newline). Touches no GPU: it reads the registry and
// the tables only.
std::string schema_json();

}  // namespace fa
