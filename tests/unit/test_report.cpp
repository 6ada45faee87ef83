#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "csv_writer.h"
#include "report.h"

namespace {

// The cell of column `col` in the CSV line of `r`.
std::string cell(const fa::ResultRow& r, const std::string& col) {
    const std::vector<std::string> fields = fa::csv_split(fa::csv_line(r));
    for (std::size_t i = 0; i < fields.size(); ++i)
        if (fa::csv_columns()[i] == col) return fields[i];
    FAIL("no column " << col);
    return {};
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
    const std::vector<std::string> fields = fa::csv_split(fa::csv_line(sample_row()));
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
    const std::vector<std::string> fields = fa::csv_split(fa::csv_line(r));
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const std::string& col = fa::csv_columns()[i];
        if (col == "time_ms_median" || col == "tflops" || col == "bandwidth_gbs" || col == "m_block_size") {
            INFO(col);
            CHECK(fields[i].empty());
        }
    }
}

TEST_CASE("a row without NVML leaves the clock columns empty and says nothing made up", "[report]") {
    fa::ResultRow r = sample_row();
    r.iterations = 61;
    r.warmup_iterations = 63;
    r.warmup_ms = 201.5;
    r.median_noise_pct = 0.04;
    r.rule_applied = true;
    r.max_noise_pct = 0.5;
    r.noise_target_met = true;
    auto field = [&](const std::string& col) { return cell(r, col); };
    CHECK(field("iterations") == "61");
    CHECK(field("warmup_iterations") == "63");
    CHECK(field("warmup_ms") == "201.5");
    CHECK(field("median_noise_pct") == "0.04");
    CHECK(field("max_noise_pct") == "0.5");
    CHECK(field("noise_target_met") == "1");
    for (const char* col : {"sm_clock_mean_mhz", "sm_clock_min_mhz", "sm_clock_max_mhz", "power_w_mean",
                            "power_limit_w", "energy_mj", "gflop_per_j", "temperature_c", "throttle_reasons",
                            "capped_pct", "clock_samples", "flags"}) {
        INFO(col);
        CHECK(field(col).empty());
    }
    // --iterations fixed the count: there was no noise target to meet.
    r.rule_applied = false;
    CHECK(cell(r, "noise_target_met").empty());
    CHECK(cell(r, "max_noise_pct").empty());
}

TEST_CASE("a sampled row carries its clocks, power, reasons and flags; unread values stay empty", "[report]") {
    fa::ResultRow r = sample_row();
    r.clocks_sampled = true;
    r.clock_samples = 23;
    r.sm_clock_mean_mhz = 1702.4;
    r.sm_clock_min_mhz = 1650;
    r.sm_clock_max_mhz = 1980;
    r.power_w_mean = 698.25;
    r.power_limit_w = 700;
    r.temperature_c = std::nan("");  // an NVML without the temperature query
    r.throttle_reasons = "sw_power_cap";
    r.capped_pct = 100;
    r.energy_mj = 104.6;
    r.gflop_per_j = 657.2;
    r.flags = "!clk,!pwr";
    auto field = [&](const std::string& col) { return cell(r, col); };
    CHECK(field("sm_clock_mean_mhz") == "1702.4");
    CHECK(field("sm_clock_min_mhz") == "1650");
    CHECK(field("sm_clock_max_mhz") == "1980");
    CHECK(field("power_w_mean") == "698.25");
    CHECK(field("power_limit_w") == "700");
    CHECK(field("energy_mj") == "104.6");
    CHECK(field("gflop_per_j") == "657.2");
    r.energy_mj = r.gflop_per_j = std::nan("");  // no energy counter, or under 50 ms of it
    CHECK(field("energy_mj").empty());
    CHECK(field("gflop_per_j").empty());
    CHECK(field("temperature_c").empty());
    CHECK(field("throttle_reasons") == "sw_power_cap");
    CHECK(field("capped_pct") == "100");
    CHECK(field("clock_samples") == "23");
    CHECK(field("flags") == "!clk,!pwr");
    CHECK(fa::csv_line(r).find(",\"!clk,!pwr\",") != std::string::npos);  // quoted: it holds a comma
}


TEST_CASE("split count and packing: empty when not planned, the split count alone may be unknown", "[report]") {
    fa::ResultRow r = sample_row();
    r.num_splits = 0;
    r.pack_gqa = -1;  // UNSUPPORTED: no launch plan
    CHECK(cell(r, "num_splits").empty());
    CHECK(cell(r, "pack_gqa").empty());
    r.pack_gqa = 1;  // planned without a device: packing known, the heuristic's split count not
    CHECK(cell(r, "num_splits").empty());
    CHECK(cell(r, "pack_gqa") == "1");
    r.num_splits = 4;
    CHECK(cell(r, "num_splits") == "4");
}
