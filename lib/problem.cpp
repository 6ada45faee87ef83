#include "fa/problem.h"

#include <algorithm>
#include <cmath>

namespace fa {

const char* dtype_name(DType t) {
    switch (t) {
        case DType::Float16: return "Float16";
        case DType::BFloat16: return "BFloat16";
        case DType::Float32: return "Float32";
        case DType::Float8E4M3FN: return "Float8E4M3FN";
    }
    return "?";
}

std::string dtype_names() {
    std::string out;
    for (DType t : kAllDTypes) out += std::string(out.empty() ? "" : ", ") + dtype_name(t);
    return out;
}

const char* layout_name(Layout l) { return l == Layout::BSHD ? "bshd" : "bhsd"; }

bool parse_dtype(const std::string& s, DType* out) {
    for (DType t : kAllDTypes) {
        if (s == dtype_name(t)) {
            *out = t;
            return true;
        }
    }
    return false;
}

bool parse_layout(const std::string& s, Layout* out) {
    for (Layout l : {Layout::BSHD, Layout::BHSD}) {
        if (s == layout_name(l)) {
            *out = l;
            return true;
        }
    }
    return false;
}

float effective_scale(const ProblemShape& p) {
    return p.softmax_scale != 0.0f ? p.softmax_scale : 1.0f / std::sqrt(static_cast<float>(p.head_dim));
}

double unmasked_scores(int seqlen_q, int seqlen_k, bool causal) {
    const double sq = seqlen_q, sk = seqlen_k;
    if (!causal) return sq * sk;
    // Rows i < Sk see i+1 keys (a triangle); rows i >= Sk see all Sk keys.
    const double tri_rows = std::min(sq, sk);
    return tri_rows * (tri_rows + 1.0) / 2.0 + (sq - tri_rows) * sk;
}

double attention_flops(const ProblemShape& p) {
    return 4.0 * p.batch * p.heads * p.head_dim * unmasked_scores(p.seqlen_q, p.seqlen_k, p.causal);
}

double compulsory_bytes(const ProblemShape& p) {
    const double bd = static_cast<double>(p.batch) * p.head_dim;
    const double q_or_o = static_cast<double>(p.seqlen_q) * p.heads * bd;  // elements of Q, and of O
    const double k_or_v = static_cast<double>(p.seqlen_k) * p.kv_heads() * bd;
    return (q_or_o + 2.0 * k_or_v) * static_cast<double>(input_bytes(p.dtype)) +
           q_or_o * static_cast<double>(output_bytes(p.dtype));
}

void set_strides(const ProblemShape& p, FwdParams* f) {
    const int64_t d = p.head_dim;
    auto fill = [&](int64_t seqlen, int64_t h, int64_t* batch_s, int64_t* row_s, int64_t* head_s) {
        if (p.layout == Layout::BSHD) {
            *row_s = h * d;
            *head_s = d;
        } else {
            *row_s = d;
            *head_s = seqlen * d;
        }
        *batch_s = seqlen * h * d;
    };
    fill(p.seqlen_q, p.heads, &f->q_batch_stride, &f->q_row_stride, &f->q_head_stride);
    fill(p.seqlen_k, p.kv_heads(), &f->k_batch_stride, &f->k_row_stride, &f->k_head_stride);
    fill(p.seqlen_k, p.kv_heads(), &f->v_batch_stride, &f->v_row_stride, &f->v_head_stride);
    fill(p.seqlen_q, p.heads, &f->o_batch_stride, &f->o_row_stride, &f->o_head_stride);
}

FwdParams make_fwd_params(const ProblemShape& p, const void* q, const void* k, const void* v, void* o,
                          void* workspace, std::size_t workspace_bytes, const InputDescales& descale) {
    FwdParams prm{};
    prm.q = q;
    prm.k = k;
    prm.v = v;
    prm.o = o;
    set_strides(p, &prm);
    prm.batch = p.batch;
    prm.heads = p.heads;
    prm.heads_kv = p.kv_heads();
    prm.heads_per_kv = p.heads_per_kv();
    prm.seqlen_q = p.seqlen_q;
    prm.seqlen_k = p.seqlen_k;
    prm.head_dim = p.head_dim;
    prm.scale = effective_scale(p);
    prm.scale_log2 = prm.scale * 1.4426950408889634f;  // log2(e)
    prm.causal = p.causal;
    prm.dtype = p.dtype;
    prm.q_descale = descale.q;
    prm.k_descale = descale.k;
    prm.v_descale = descale.v;
    prm.workspace = workspace;
    prm.workspace_bytes = workspace_bytes;
    // Plain launch: no LSE output, no split, no packing, head slots in order (a LaunchPlan sets
    // the splits, packing and order).
    prm.lse = nullptr;
    prm.num_splits = 1;
    prm.o_partial = nullptr;
    prm.lse_partial = nullptr;
    prm.tail_tiles = 0;
    prm.tail_splits = 1;
    prm.tail_partial = nullptr;
    prm.pack_gqa = false;
    prm.lpt_group = 1;
    return prm;
}

}  // namespace fa
