#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "report.h"

namespace {

// Splits one RFC 4180 line into fields (quoted fields may hold commas and doubled quotes).
std::vector<std::string> split_csv(const std::string& line) {
    std::vector<std::string> out(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') out.back() += '"', ++i;
            else if (c == '"') quoted = false;
            else out.back() += c;
        } else if (c == '"') quoted = true;
        else if (c == ',') out.emplace_back();
        else out.back() += c;
    }
    return out;
}

fa::ResultRow sample_row() {
    fa::ResultRow r;
    r.prov.gpu = "NVIDIA H100 80GB HBM3";
    r.kernel = "mma";
    r.dtype = "BFloat16";
    r.layout = "bshd";
    r.batch_size = 4;
    r.seqlen_q = r.seqlen_k = 8192;
    r.num_head = 16;
    r.head_dim = 128;
    r.m_block_size = 128;
    r.n_block_size = 64;
    r.num_threads = 128;
    r.flops = 2199023255552.0;
    r.timed = true;
    r.time_ms_median = 6.25;
    r.tflops = 351.8;
    r.check = "PASS";
    r.note = "has, a comma and \"quotes\"";
    return r;
}

}  // namespace

TEST_CASE("CSV quoting follows RFC 4180", "[report]") {
    CHECK(fa::csv_quote("plain") == "plain");
    CHECK(fa::csv_quote("a,b") == "\"a,b\"");
    CHECK(fa::csv_quote("say \"hi\"") == "\"say \"\"hi\"\"\"");
    CHECK(fa::csv_quote("two\nlines") == "\"two\nlines\"");
}

TEST_CASE("a CSV line has one field per header column, in order", "[report]") {
    const std::vector<std::string> fields = split_csv(fa::csv_line(sample_row()));
    REQUIRE(fields.size() == fa::csv_columns().size());
    auto field = [&](const std::string& col) {
        for (std::size_t i = 0; i < fields.size(); ++i)
            if (fa::csv_columns()[i] == col) return fields[i];
        FAIL("no column " << col);
        return std::string();
    };
    CHECK(field("kernel") == "mma");
    CHECK(field("gpu") == "NVIDIA H100 80GB HBM3");
    CHECK(field("m_block_size") == "128");
    CHECK(field("time_ms_median") == "6.25");
    CHECK(field("tflops") == "351.8");
    CHECK(field("flops") == "2199023255552");
    CHECK(field("check") == "PASS");
    CHECK(field("max_abs_err").empty());  // not checked: empty, never a made-up zero
    CHECK(field("note") == "has, a comma and \"quotes\"");
}

TEST_CASE("untimed rows leave the time columns empty", "[report]") {
    fa::ResultRow r = sample_row();
    r.timed = false;
    r.m_block_size = r.n_block_size = r.num_threads = 0;
    const std::vector<std::string> fields = split_csv(fa::csv_line(r));
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const std::string& col = fa::csv_columns()[i];
        if (col == "time_ms_median" || col == "tflops" || col == "bandwidth_gbs" || col == "m_block_size") {
            INFO(col);
            CHECK(fields[i].empty());
        }
    }
}
