#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <set>
#include <string>

#include "fa/registry.h"
#include "report.h"
#include "schema.h"

TEST_CASE("the NVTX problem tag is the format filled with the problem", "[schema]") {
    fa::ProblemShape p;
    p.dtype = fa::DType::Float16;
    p.batch = 2;
    p.heads = 8;
    p.seqlen_q = 300;
    p.seqlen_k = 777;
    p.head_dim = 64;
    p.causal = true;
    CHECK(fa::nvtx_problem_tag(p) == "Float16 b2 h8 hkv8 sq300 sk777 d64 c1");
    p.heads_kv = 2;  // grouped K/V heads are part of the problem's name
    CHECK(fa::nvtx_problem_tag(p) == "Float16 b2 h8 hkv2 sq300 sk777 d64 c1");
}

TEST_CASE("every CSV column has a unique name and a one-line meaning", "[schema]") {
    std::set<std::string> names;
    for (const fa::CsvColumn& c : fa::csv_column_table()) {
        INFO(c.name);
        CHECK(names.insert(c.name).second);
        const std::string meaning = c.meaning;
        CHECK_FALSE(meaning.empty());
        CHECK(meaning.find('\n') == std::string::npos);
    }
    CHECK(fa::csv_columns().size() == fa::csv_column_table().size());
}

// The scripts parse the document with a JSON parser (scripts/tests); here: it names every
// column and every kernel, in the order the CSV and the ladder use.
TEST_CASE("the schema lists the CSV columns in order and the kernels in rung order", "[schema]") {
    const std::string json = fa::schema_json();
    std::size_t at = 0;
    for (const fa::CsvColumn& c : fa::csv_column_table()) {
        INFO(c.name);
        const std::size_t found = json.find(fmt::format("{{\"name\": \"{}\", \"meaning\": ", c.name), at);
        REQUIRE(found != std::string::npos);
        at = found;
    }
    at = 0;
    int last_rung = -1;
    for (const fa::KernelInfo& k : fa::kernel_registry()) {
        INFO(k.slug);
        CHECK(k.rung > last_rung);  // the registry is in rung order, so the schema's order is the same
        last_rung = k.rung;
        const std::size_t found = json.find(fmt::format("\"slug\": \"{}\"", k.slug), at);
        REQUIRE(found != std::string::npos);
        at = found;
    }
    CHECK(json.find(fmt::format("\"domain\": \"{}\"", fa::kNvtxDomain)) != std::string::npos);
    CHECK(json.back() == '\n');
}
