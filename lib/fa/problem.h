// ProblemShape and the analytic metrics every row reports (FLOPs, compulsory bytes, intensity).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "fa/params.h"

namespace fa {

enum class Layout : int { BSHD = 0, BHSD = 1 };

struct ProblemShape {
    int batch = 4;
    int seqlen_q = 8192;
    int seqlen_k = 8192;
    int heads = 16;
    int heads_kv = 0;  // K/V heads (GQA); 0 = heads. Must divide heads.
    int head_dim = 128;
    bool causal = false;
    DType dtype = DType::BFloat16;
    Layout layout = Layout::BSHD;
    float softmax_scale = 0.0f;  // 0: 1/sqrt(head_dim)
    int num_splits = 0;          // split-KV request: 0 = heuristic, 1 = off, N = N chunks

    int kv_heads() const { return heads_kv > 0 ? heads_kv : heads; }
    int heads_per_kv() const { return heads / kv_heads(); }
};

// Every dtype, in the order --list, --schema and the messages name them.
inline constexpr DType kAllDTypes[] = {DType::Float16, DType::BFloat16, DType::Float32, DType::Float8E4M3FN};

const char* dtype_name(DType t);    // "Float16", "BFloat16", "Float32", "Float8E4M3FN" (the CuTe DSL's names)
// "Float16, BFloat16, Float32, Float8E4M3FN": the names of kAllDTypes, for rules and messages.
std::string dtype_names();
const char* layout_name(Layout l);  // "bshd", "bhsd"
bool parse_dtype(const std::string& s, DType* out);
bool parse_layout(const std::string& s, Layout* out);

float effective_scale(const ProblemShape& p);  // softmax_scale, or 1/sqrt(head_dim) when 0

// Score entries a query row actually uses, summed over rows: Sq·Sk, or with the top-left causal
// mask (key j visible to row i iff j <= i) sum_i min(i + 1, Sk).
double unmasked_scores(int seqlen_q, int seqlen_k, bool causal);

// 4·B·H·D·(unmasked scores): 2 FLOPs per multiply-add in each of the two GEMMs (S = QKᵀ, O = PV).
// Softmax's exponentials and the rescale are not counted, as FlashAttention's benchmarks do.
double attention_flops(const ProblemShape& p);

// Q read and O written once (B·H·Sq·D each), K and V read once (B·H_kv·Sk·D each): Q, K and V at
// input_bytes(dtype), O at output_bytes(dtype) (FP8: 1 byte in, 2 out). With grouped K/V heads a
// K/V byte serves heads / heads_kv query heads.
double compulsory_bytes(const ProblemShape& p);

inline double arithmetic_intensity(const ProblemShape& p) {
    return attention_flops(p) / compulsory_bytes(p);
}

// Element strides of q/k/v/o for the chosen layout, written into params (pointers untouched).
void set_strides(const ProblemShape& p, FwdParams* params);

// The per-tensor descales of FP8 inputs (FwdParams::q_descale ...): 1 for the other dtypes.
struct InputDescales {
    float q = 1.0f, k = 1.0f, v = 1.0f;
};

// The FwdParams of problem `p` over device tensors q, k, v (contiguous in p.layout, of p.dtype,
// whose stored values times `descale` are the inputs) and o (of output_dtype(p.dtype)) and the
// kernel's workspace. The one place a ProblemShape becomes kernel arguments: the runner and the
// tests launch through it, and a field FwdParams gains is filled here.
FwdParams make_fwd_params(const ProblemShape& p, const void* q, const void* k, const void* v, void* o,
                          void* workspace, std::size_t workspace_bytes, const InputDescales& descale = {});

}  // namespace fa
