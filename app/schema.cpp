#include "schema.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <vector>

#include "build_info.h"
#include "fa/reference.h"
#include "fa/registry.h"
#include "options.h"
#include "report.h"

namespace fa {

std::string nvtx_problem_tag(const ProblemShape& p) {
    return fmt::format(fmt::runtime(kNvtxProblemTag), fmt::arg("dtype", dtype_name(p.dtype)),
                       fmt::arg("batch_size", p.batch), fmt::arg("num_head", p.heads),
                       fmt::arg("num_head_kv", p.kv_heads()),
                       fmt::arg("seqlen_q", p.seqlen_q), fmt::arg("seqlen_k", p.seqlen_k),
                       fmt::arg("head_dim", p.head_dim), fmt::arg("is_causal", p.causal ? 1 : 0));
}

namespace {

// Just enough JSON for one document: objects, arrays, strings, numbers, booleans. A container
// opened inline prints on one line (as does everything inside it), which keeps the per-instance
// and per-column entries one line each so the document stays readable.
class JsonWriter {
  public:
    JsonWriter& begin_object(bool inline_ = false) { return open('{', inline_); }
    JsonWriter& end_object() { return close('}'); }
    JsonWriter& begin_array(bool inline_ = false) { return open('[', inline_); }
    JsonWriter& end_array() { return close(']'); }
    JsonWriter& key(std::string_view k) {
        separator();
        out_ += quoted(k) + ": ";
        after_key_ = true;
        return *this;
    }
    JsonWriter& value(std::string_view v) { return scalar(quoted(v)); }
    JsonWriter& value(const char* v) { return value(std::string_view(v)); }
    JsonWriter& value(int v) { return scalar(std::to_string(v)); }
    JsonWriter& value(long long v) { return scalar(std::to_string(v)); }
    JsonWriter& value(double v) { return scalar(fmt::format("{}", v)); }  // shortest round-trip form
    JsonWriter& value(bool v) { return scalar(v ? "true" : "false"); }
    template <typename T>
    JsonWriter& field(std::string_view k, T v) {
        return key(k).value(v);
    }
    std::string take() { return std::move(out_) + "\n"; }

  private:
    struct Level {
        bool inline_;
        bool empty = true;
    };

    // What goes before an element: nothing right after its key; else a comma after an earlier
    // sibling, then a space (inline) or a new indented line.
    void separator() {
        if (after_key_) {
            after_key_ = false;
            return;
        }
        if (levels_.empty()) return;
        Level& l = levels_.back();
        if (!l.empty) out_ += ',';
        if (!l.inline_) out_ += '\n' + std::string(2 * levels_.size(), ' ');
        else if (!l.empty) out_ += ' ';
        l.empty = false;
    }
    JsonWriter& scalar(const std::string& text) {
        separator();
        out_ += text;
        return *this;
    }
    JsonWriter& open(char c, bool inline_) {
        separator();
        out_ += c;
        levels_.push_back({inline_ || (!levels_.empty() && levels_.back().inline_)});
        return *this;
    }
    JsonWriter& close(char c) {
        const Level l = levels_.back();
        levels_.pop_back();
        if (!l.inline_ && !l.empty) out_ += '\n' + std::string(2 * levels_.size(), ' ');
        out_ += c;
        return *this;
    }
    static std::string quoted(std::string_view s) {
        std::string q = "\"";
        for (char c : s) {
            if (c == '"' || c == '\\') q += '\\', q += c;
            else if (static_cast<unsigned char>(c) < 0x20) q += fmt::format("\\u{:04x}", c);
            else q += c;  // UTF-8 passes through: JSON text is UTF-8
        }
        return q + "\"";
    }

    std::string out_;
    std::vector<Level> levels_;
    bool after_key_ = false;
};

void write_kernels(JsonWriter& j) {
    std::vector<const KernelInfo*> kernels;
    for (const KernelInfo& k : kernel_registry()) kernels.push_back(&k);
    std::stable_sort(kernels.begin(), kernels.end(),
                     [](const KernelInfo* a, const KernelInfo* b) { return a->rung < b->rung; });
    j.key("kernels").begin_array();
    for (const KernelInfo* k : kernels) {
        j.begin_object();
        j.field("slug", k->slug).field("rung", k->rung).field("title", k->title).field("min_sm", k->min_sm);
        j.field("arch_specific", k->arch_specific);
        j.field("math_unit", k->caps.math == MathUnit::TensorCore ? "tensor" : "fp32");
        j.key("instances").begin_array();
        for (const KernelInstance& inst : k->instances()) {
            j.begin_object(true);
            j.field("dtype", dtype_name(inst.dtype)).field("head_dim", inst.head_dim);
            j.field("m_block_size", inst.tile.m_block_size).field("n_block_size", inst.tile.n_block_size);
            j.field("num_threads", inst.tile.num_threads);
            j.field("smem_bytes", static_cast<long long>(inst.smem_bytes)).field("only_sm", inst.only_sm);
            j.end_object();
        }
        j.end_array();
        j.end_object();
    }
    j.end_array();
}

}  // namespace

std::string schema_json() {
    JsonWriter j;
    j.begin_object();
    j.field("schema_version", kSchemaVersion).field("fa_bench_commit", fa::build_commit());

    j.key("csv_columns").begin_array();
    for (const CsvColumn& c : csv_column_table())
        j.begin_object(true).field("name", c.name).field("meaning", c.meaning).end_object();
    j.end_array();

    write_kernels(j);

    j.key("dtypes").begin_array();
    for (DType t : kAllDTypes) {
        const Tolerance tol = tolerance_for(t);
        j.begin_object(true).field("name", dtype_name(t)).field("element_bytes", static_cast<int>(dtype_bytes(t)));
        j.field("output_bytes", static_cast<int>(output_bytes(t)));  // O's element: FP8 writes bf16
        j.field("tolerance_rel_l2", tol.rel_l2).field("tolerance_max_rel", tol.max_rel).end_object();
    }
    j.end_array();

    j.key("layouts").begin_array(true);
    for (Layout l : {Layout::BSHD, Layout::BHSD}) j.value(layout_name(l));
    j.end_array();

    // The defaults of the problem and measurement flags, from Options itself (one value each).
    const Options o;
    j.key("defaults").begin_object(true);
    j.field("dtype", dtype_name(o.dtypes.front())).field("batch_size", o.batch_size.front());
    j.field("seqlen_q", o.seqlen_q.front()).field("seqlen_k", o.seqlen_k.front());
    j.field("num_head", o.num_head.front()).field("head_dim", o.head_dim.front());
    j.field("is_causal", o.causal.front()).field("layout", layout_name(o.layout));
    j.field("warmup_iterations", o.warmup_iterations).field("iterations", o.iterations.value_or(0));
    j.field("warmup_time", o.warmup_time).field("gpu_warmup_time", o.gpu_warmup_time);
    j.field("min_samples", o.min_samples).field("min_time", o.min_time);
    j.field("max_noise", o.max_noise).field("max_time", o.max_time);
    j.field("seed", static_cast<long long>(o.seed));
    j.end_object();
    j.key("example_tile").begin_object(true);
    j.field("m_block_size", kExampleTile.m_block_size).field("n_block_size", kExampleTile.n_block_size);
    j.field("num_threads", kExampleTile.num_threads).end_object();

    j.key("nvtx").begin_object();
    j.field("domain", kNvtxDomain).field("problem", kNvtxProblemTag);
    j.key("ranges").begin_object();
    const std::string run = "{kernel} {problem}";
    j.field("profile", run).field("check", run + kNvtxCheckSuffix);
    j.field("warmup", run + kNvtxWarmupSuffix).field("timed", run + kNvtxTimedSuffix);
    j.field("reference", std::string(kNvtxReferencePrefix) + "{problem}");
    j.end_object();
    j.end_object();

    j.key("notes").begin_object();
    j.field("kernels", "in rung order; for a (dtype, head_dim) the first instance the device can run is the kernel's "
                       "default; head_dim 0 = any, m_block_size 0 = untiled, only_sm 0 = any SM from min_sm");
    j.field("dtypes", "a check passes when rel_l2_err <= tolerance_rel_l2 and max_abs_err / max|ref| <= "
                      "tolerance_max_rel, with no NaN or infinity");
    j.field("nvtx", "fields in braces are CSV column names, {kernel} a slug, {problem} the problem format");
    j.field("defaults", "iterations 0: no fixed count, the stopping rule (min_samples, min_time in s, max_noise in "
                        "%, max_time in s) decides; warmup_time and gpu_warmup_time in s");
    j.end_object();

    j.end_object();
    return j.take();
}

}  // namespace fa
