// The --csv file: the header check before anything runs, rows under the file's own header, the
// repair of a missing final newline, and failed writes (a full device, an injected fault) that
// leave the rows before them intact.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "csv_writer.h"

namespace fs = std::filesystem;

namespace {

// A folder of its own per test case, removed at the end.
struct TempDir {
    fs::path path;
    TempDir() {
        static int n = 0;
        const std::string name = "fa_bench_csv_test_" + std::to_string(::getpid()) + "_" + std::to_string(++n);
        path = fs::temp_directory_path() / name;
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    std::string file(const char* name) const { return (path / name).string(); }
};

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream s(text);
    for (std::string line; std::getline(s, line);) out.push_back(line);
    return out;
}

std::string our_header() {
    std::string h;
    for (const std::string& c : fa::csv_columns()) h += (h.empty() ? "" : ",") + c;
    return h;
}

fa::ResultRow row(const char* kernel) {
    fa::ResultRow r;
    r.kernel = kernel;
    r.dtype = "BFloat16";
    r.check = "PASS";
    r.note = "a, note";
    return r;
}

// Writes through ::write until call number fail_at; that call writes at most `partial` bytes
// (0: none) and every later call fails with ENOSPC, as a filling disk does.
struct Fault {
    int calls = 0;
    int fail_at = 1;
    std::size_t partial = 0;
};
Fault g_fault;

ssize_t faulty_write(int fd, const void* data, std::size_t bytes) {
    ++g_fault.calls;
    if (g_fault.calls < g_fault.fail_at) return ::write(fd, data, bytes);
    if (g_fault.calls == g_fault.fail_at && g_fault.partial > 0)
        return ::write(fd, data, std::min(g_fault.partial, bytes));
    errno = ENOSPC;
    return -1;
}

}  // namespace

TEST_CASE("csv: a new file gets the header once, then one line per row", "[csv]") {
    TempDir tmp;
    const std::string path = tmp.file("runs.csv");
    CHECK(fa::check_csv_target(path).empty());
    CHECK_FALSE(fs::exists(path));  // the check creates nothing
    for (const char* kernel : {"naive", "mma"}) {
        fa::CsvWriter w;
        REQUIRE(w.open(path).empty());
        REQUIRE(w.append(row(kernel)).empty());
        REQUIRE(w.close().empty());
        CHECK(w.rows_written() == 1);
    }
    const std::vector<std::string> lines = lines_of(read_text(path));
    REQUIRE(lines.size() == 3);
    CHECK(lines[0] == our_header());
    CHECK(fa::csv_split(lines[1]).size() == fa::csv_columns().size());
    CHECK(fa::csv_split(lines[2])[7] == "mma");
}

TEST_CASE("csv: a header that lacks fa-bench columns is refused before anything is written", "[csv]") {
    TempDir tmp;
    const std::string path = tmp.file("old.csv");
    std::vector<std::string> older;
    for (const std::string& c : fa::csv_columns())
        if (c != "model_bytes" && c != "waves") older.push_back(c);
    std::string header;
    for (const std::string& c : older) header += (header.empty() ? "" : ",") + c;
    write_text(path, header + "\nx\n");
    const std::string why = fa::check_csv_target(path);
    CHECK(why.find(fmt::format("its header ({} columns) lacks 2 of fa-bench's {} columns (model_bytes, waves)",
                               older.size(), fa::csv_columns().size())) == 0);
    fa::CsvWriter w;
    CHECK(w.open(path) == "--csv " + path + ": " + why);
    CHECK(read_text(path) == header + "\nx\n");
}

TEST_CASE("csv: a header with every column, in another order and with extras, takes rows by name", "[csv]") {
    TempDir tmp;
    const std::string path = tmp.file("superset.csv");
    std::vector<std::string> cols(fa::csv_columns().rbegin(), fa::csv_columns().rend());
    cols.insert(cols.begin() + 3, "comment");
    std::string header;
    for (const std::string& c : cols) header += (header.empty() ? "" : ",") + c;
    write_text(path, header + "\r\n");
    CHECK(fa::check_csv_target(path).empty());
    fa::CsvWriter w;
    REQUIRE(w.open(path).empty());
    REQUIRE(w.append(row("tiled")).empty());
    REQUIRE(w.close().empty());
    const std::vector<std::string> lines = lines_of(read_text(path));
    REQUIRE(lines.size() == 2);
    const std::vector<std::string> cells = fa::csv_split(lines[1]);
    REQUIRE(cells.size() == cols.size());
    for (std::size_t i = 0; i < cols.size(); ++i) {
        INFO(cols[i]);
        if (cols[i] == "kernel") CHECK(cells[i] == "tiled");
        if (cols[i] == "note") CHECK(cells[i] == "a, note");
        if (cols[i] == "comment") CHECK(cells[i].empty());
    }
}

TEST_CASE("csv: a header naming a column twice is refused", "[csv]") {
    TempDir tmp;
    const std::string path = tmp.file("twice.csv");
    write_text(path, our_header() + ",kernel\n");
    CHECK(fa::check_csv_target(path).find("its header names kernel twice") == 0);
}

TEST_CASE("csv: a last line without its newline is ended before the first new row", "[csv]") {
    TempDir tmp;
    const std::string path = tmp.file("cut.csv");
    fa::CsvWriter first;
    REQUIRE(first.open(path).empty());
    REQUIRE(first.append(row("naive")).empty());
    REQUIRE(first.close().empty());
    std::string text = read_text(path);
    text.pop_back();  // a file cut without its final newline
    write_text(path, text);

    fa::CsvWriter w;
    REQUIRE(w.open(path).empty());
    REQUIRE(w.append(row("mma")).empty());
    REQUIRE(w.close().empty());
    const std::vector<std::string> lines = lines_of(read_text(path));
    REQUIRE(lines.size() == 3);
    CHECK(fa::csv_split(lines[1])[7] == "naive");
    CHECK(fa::csv_split(lines[2])[7] == "mma");
    CHECK(fa::csv_split(lines[1]).size() == fa::csv_columns().size());
}

TEST_CASE("csv: a directory, a missing directory and an empty name are refused", "[csv]") {
    TempDir tmp;
    CHECK(fa::check_csv_target(tmp.path.string()) == "is a directory, not a file");
    const std::string missing = tmp.file("no-such-dir/x.csv");
    CHECK(fa::check_csv_target(missing) == "its directory " + tmp.file("no-such-dir") + " does not exist");
    CHECK_FALSE(fs::exists(tmp.file("no-such-dir")));
}

TEST_CASE("csv: a full device fails the first write, one message, nothing claimed written", "[csv]") {
    if (!fs::exists("/dev/full")) {
        WARN("no /dev/full on this system: not tested");
        return;
    }
    CHECK(fa::check_csv_target("/dev/full").empty());  // a device: written as it comes
    fa::CsvWriter w;
    const std::string e = w.open("/dev/full");
    CHECK(e == "--csv /dev/full: writing the header failed after 0 row(s): No space left on device");
    CHECK(w.rows_written() == 0);
}

TEST_CASE("csv: a failed write leaves the rows before it intact and is reported once", "[csv]") {
    TempDir tmp;
    const std::string path = tmp.file("faults.csv");
    SECTION("the third write fails outright") {
        g_fault = Fault{0, 3, 0};  // header, row 1, then row 2 fails
    }
    SECTION("the third write stops half-way through the row, then the disk is full") {
        g_fault = Fault{0, 3, 40};
    }
    fa::CsvWriter w(&faulty_write);
    REQUIRE(w.open(path).empty());
    REQUIRE(w.append(row("naive")).empty());
    const std::string e = w.append(row("tiled"));
    CHECK(e == "--csv " + path + ": writing a row failed after 1 row(s): No space left on device");
    CHECK(w.rows_written() == 1);
    CHECK(w.close().empty());
    const std::vector<std::string> lines = lines_of(read_text(path));
    REQUIRE(lines.size() == 2);  // the header and the one whole row; no part of the failed one
    CHECK(lines[0] == our_header());
    CHECK(fa::csv_split(lines[1])[7] == "naive");
    const std::string text = read_text(path);
    CHECK(text.back() == '\n');
}

TEST_CASE("csv: csv_split reads what csv_line writes", "[csv]") {
    fa::ResultRow r = row("mma");
    r.note = "quotes \"inside\", a comma\nand a newline";
    const std::vector<std::string> cells = fa::csv_split(fa::csv_line(r));
    REQUIRE(cells.size() == fa::csv_columns().size());
    CHECK(cells.back() == r.note);
    CHECK(fa::csv_split("a,,\"b,c\"") == std::vector<std::string>{"a", "", "b,c"});
}
