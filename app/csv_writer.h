// The --csv file. Checked before anything runs (check_csv_target), then written one row at a
// time, each row with one write call, every write checked; a failed write leaves the rows before
// it intact and is reported once.
//
// Rows go under the file's own header, by column name: a new or empty file gets fa-bench's
// header; an existing file is accepted when its header names every fa-bench column (in any
// order, with any extra columns, which stay empty on fa-bench's rows). A header that lacks a
// column is refused, so a file never mixes rows of two schemas.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <vector>

#include "report.h"

namespace fa {

// The fields of one CSV line (RFC 4180: quoted fields may hold commas, doubled quotes, newlines).
std::vector<std::string> csv_split(const std::string& line);

// Why rows cannot be appended to `path` (empty: they can). Reads at most the first line of an
// existing regular file; creates nothing.
std::string check_csv_target(const std::string& path);

// How bytes reach the file: ::write's signature, so that a test can make writes fail.
using WriteFn = ssize_t (*)(int fd, const void* data, std::size_t bytes);

class CsvWriter {
  public:
    explicit CsvWriter(WriteFn write = nullptr);  // null: ::write
    ~CsvWriter();                                  // closes an open file without a check; call close()
    CsvWriter(const CsvWriter&) = delete;
    CsvWriter& operator=(const CsvWriter&) = delete;

    // Opens `path` for appending (creating it), checks its header as check_csv_target does,
    // ends a last line that lacks its newline, and writes the header into a new or empty file.
    // Returns an error message ("--csv PATH: ..."), or an empty string.
    std::string open(const std::string& path);

    // Appends one row with one write call (continued after a short write). On a failure a regular
    // file is cut back to the end of the last whole row. Returns an error message, or empty.
    std::string append(const ResultRow& row);

    // Flushes a regular file to its device (fsync) and closes it, both checked.
    std::string close();

    int rows_written() const { return rows_; }
    bool is_open() const { return fd_ >= 0; }  // opened and not yet closed

  private:
    std::string write_all(const std::string& bytes, const char* what);

    WriteFn write_;
    std::string path_;
    int fd_ = -1;
    bool regular_ = false;
    off_t end_ = 0;  // size of a regular file after its last whole row
    int rows_ = 0;
    // For each column of the file, its index in csv_column_table(), or -1 (a column only the file has).
    std::vector<int> column_index_;
};

}  // namespace fa
