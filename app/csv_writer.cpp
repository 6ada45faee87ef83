#include "csv_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace fa {
namespace {

// A header line longer than this is not a CSV header (fa-bench's is ~700 bytes); the check stops
// reading there instead of reading a device such as /dev/zero forever.
constexpr std::size_t kMaxHeaderBytes = 1 << 20;

std::string errno_text(int e) { return std::strerror(e); }

// The first line of a regular file, without its line end ("\n" or "\r\n") and a UTF-8 byte-order
// mark; false when it could not be read or is longer than kMaxHeaderBytes.
bool read_first_line(const std::string& path, std::string* line, std::string* error) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        *error = fmt::format("cannot be read: {}", errno_text(errno));
        return false;
    }
    line->clear();
    char buf[4096];
    bool done = false;
    while (!done && line->size() <= kMaxHeaderBytes) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            *error = fmt::format("cannot be read: {}", errno_text(errno));
            ::close(fd);
            return false;
        }
        if (n == 0) break;
        const char* nl = static_cast<const char*>(std::memchr(buf, '\n', static_cast<std::size_t>(n)));
        line->append(buf, nl ? static_cast<std::size_t>(nl - buf) : static_cast<std::size_t>(n));
        done = nl != nullptr;
    }
    ::close(fd);
    if (line->size() > kMaxHeaderBytes) {
        *error = fmt::format("its first line is over {} bytes: not a CSV header", kMaxHeaderBytes);
        return false;
    }
    if (!line->empty() && line->back() == '\r') line->pop_back();
    if (line->rfind("\xEF\xBB\xBF", 0) == 0) line->erase(0, 3);
    return true;
}

std::string name_list(const std::vector<std::string>& names) {
    constexpr std::size_t kShown = 6;
    std::string out;
    for (std::size_t i = 0; i < names.size() && i < kShown; ++i) out += (i ? ", " : "") + names[i];
    if (names.size() > kShown) out += fmt::format(", +{} more", names.size() - kShown);
    return out;
}

// Maps the file's header onto fa-bench's columns: for each file column its csv_column_table()
// index or -1. Returns why the header cannot take fa-bench's rows, or empty.
std::string map_header(const std::string& header_line, std::vector<int>* index) {
    const std::vector<std::string> file = csv_split(header_line);
    const std::vector<std::string>& ours = csv_columns();
    for (auto it = file.begin(); it != file.end(); ++it)
        if (std::find(file.begin(), it, *it) != it)
            return fmt::format("its header names {} twice: not a header fa-bench can write under",
                               it->empty() ? "''" : *it);
    std::vector<std::string> lacking;
    for (const std::string& c : ours)
        if (std::find(file.begin(), file.end(), c) == file.end()) lacking.push_back(c);
    if (!lacking.empty())
        return fmt::format("its header ({} columns) lacks {} of fa-bench's {} columns ({}): fa-bench writes rows only "
                           "under a header that has all of its columns; use a new file, or add the columns "
                           "(README: CSV files)",
                           file.size(), lacking.size(), ours.size(), name_list(lacking));
    index->clear();
    for (const std::string& c : file) {
        const auto it = std::find(ours.begin(), ours.end(), c);
        index->push_back(it == ours.end() ? -1 : static_cast<int>(it - ours.begin()));
    }
    return {};
}

std::string header_text() {
    std::string header;
    for (const std::string& c : csv_columns()) header += (header.empty() ? "" : ",") + c;
    return header + "\n";
}

}  // namespace

std::vector<std::string> csv_split(const std::string& line) {
    std::vector<std::string> out(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') out.back() += '"', ++i;
            else if (c == '"') quoted = false;
            else out.back() += c;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            out.emplace_back();
        } else {
            out.back() += c;
        }
    }
    return out;
}

std::string check_csv_target(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (fs::exists(st)) {
        if (fs::is_directory(st)) return "is a directory, not a file";
        if (::access(path.c_str(), W_OK) != 0) return fmt::format("cannot be written: {}", errno_text(errno));
        if (!fs::is_regular_file(st)) return {};  // a device or a pipe: written as it comes, nothing to read
        if (fs::file_size(path, ec) == 0) return {};
        std::string line, error;
        if (!read_first_line(path, &line, &error)) return error;
        std::vector<int> index;
        return map_header(line, &index);
    }
    const fs::path parent = fs::path(path).parent_path();
    if (!parent.empty() && !fs::is_directory(parent, ec))
        return fmt::format("its directory {} does not exist", parent.string());
    // Create and remove: proves the directory takes a new file, and leaves no empty CSV behind
    // for modes that end before writing a row.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return fmt::format("cannot be created: {}", errno_text(errno));
    ::close(fd);
    ::unlink(path.c_str());
    return {};
}

CsvWriter::CsvWriter(WriteFn write) : write_(write ? write : &::write) {}

CsvWriter::~CsvWriter() {
    if (fd_ >= 0) ::close(fd_);
}

std::string CsvWriter::write_all(const std::string& bytes, const char* what) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = write_(fd_, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            const int e = n < 0 ? errno : EIO;
            // Cut a partial row off, so that the file ends with the last whole row.
            if (regular_ && done > 0 && ::ftruncate(fd_, end_) != 0)
                return fmt::format("--csv {}: {} failed after {} row(s) ({}), and the partial row could not be "
                                   "cut off ({})",
                                   path_, what, rows_, errno_text(e), errno_text(errno));
            return fmt::format("--csv {}: {} failed after {} row(s): {}", path_, what, rows_, errno_text(e));
        }
        done += static_cast<std::size_t>(n);
    }
    end_ += static_cast<off_t>(bytes.size());
    return {};
}

std::string CsvWriter::open(const std::string& path) {
    path_ = path;
    if (std::string e = check_csv_target(path); !e.empty()) return fmt::format("--csv {}: {}", path, e);
    fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) return fmt::format("--csv {}: cannot be opened for appending: {}", path, errno_text(errno));
    struct stat st{};
    if (::fstat(fd_, &st) != 0) return fmt::format("--csv {}: {}", path, errno_text(errno));
    regular_ = S_ISREG(st.st_mode);
    end_ = regular_ ? st.st_size : 0;
    if (regular_ && st.st_size > 0) {
        std::string line, error;
        if (!read_first_line(path, &line, &error)) return fmt::format("--csv {}: {}", path, error);
        if (std::string e = map_header(line, &column_index_); !e.empty()) return fmt::format("--csv {}: {}", path, e);
        char last = '\n';
        const int in = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        const bool read_ok = in >= 0 && ::pread(in, &last, 1, st.st_size - 1) == 1;
        const int read_errno = errno;
        if (in >= 0) ::close(in);
        if (!read_ok) return fmt::format("--csv {}: cannot be read: {}", path, errno_text(read_errno));
        if (last != '\n') return write_all("\n", "ending the last line");
        return {};
    }
    column_index_.clear();
    for (std::size_t i = 0; i < csv_columns().size(); ++i) column_index_.push_back(static_cast<int>(i));
    return write_all(header_text(), "writing the header");
}

std::string CsvWriter::append(const ResultRow& row) {
    const std::vector<std::string> cells = csv_cells(row);
    std::string line;
    for (std::size_t i = 0; i < column_index_.size(); ++i) {
        if (i) line += ',';
        if (column_index_[i] >= 0) line += csv_quote(cells[static_cast<std::size_t>(column_index_[i])]);
    }
    line += '\n';
    if (std::string e = write_all(line, "writing a row"); !e.empty()) return e;
    ++rows_;
    return {};
}

std::string CsvWriter::close() {
    if (fd_ < 0) return {};
    const int fd = fd_;
    fd_ = -1;
    if (regular_ && ::fsync(fd) != 0) {
        const int e = errno;
        ::close(fd);
        return fmt::format("--csv {}: flushing {} row(s) to the device failed: {}", path_, rows_, errno_text(e));
    }
    if (::close(fd) != 0)
        return fmt::format("--csv {}: closing after {} row(s) failed: {}", path_, rows_, errno_text(errno));
    return {};
}

}  // namespace fa
