#include "cli/io.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <istream>

#include "gpuadvise/error.hpp"
#include "gpuadvise/text.hpp"

namespace gpuadvise::cli {
namespace {

std::string mib(std::uint64_t bytes) {
    return fmt::format("{:.0f} MiB", static_cast<double>(bytes) / 1048576.0);
}

// What kind of thing a non-regular file is, for the message.
std::string_view kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

// Opens `path` for reading without blocking (opening a FIFO would otherwise
// wait for a writer) and checks it is a regular file.
int open_regular(const std::string& path, std::string_view what, struct stat* st) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        const int e = errno;
        if (e == ENOENT)
            throw InputError(fmt::format("{} {}: no such file; check the path", what, quote(path)));
        if (e == EACCES)
            throw InputError(fmt::format("{} {}: permission denied", what, quote(path)));
        if (e == EISDIR)
            throw InputError(fmt::format("{} {} is a folder; give a file", what, quote(path)));
        throw InputError(
            fmt::format("{} {} cannot be opened: {}", what, quote(path), std::strerror(e)));
    }
    if (::fstat(fd, st) != 0) {
        const int e = errno;
        ::close(fd);
        throw InputError(
            fmt::format("{} {} cannot be read: {}", what, quote(path), std::strerror(e)));
    }
    if (!S_ISREG(st->st_mode)) {
        ::close(fd);
        throw InputError(fmt::format("{} {} is {}; give a regular file (or '-' for standard input)",
                                     what, quote(path), kind_of(st->st_mode)));
    }
    // Regular files never block; reads should wait for the disk as usual.
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return fd;
}

// One read(2) into [buffer, buffer + size), retried on EINTR; 0 at the end.
std::size_t read_some(int fd, char* buffer, std::size_t size, const std::string& path,
                      std::string_view what) {
    while (true) {
        const ssize_t n = ::read(fd, buffer, size);
        if (n >= 0) return static_cast<std::size_t>(n);
        if (errno != EINTR)
            throw InputError(
                fmt::format("{} {} cannot be read: {}", what, quote(path), std::strerror(errno)));
    }
}

// Reads at most `max` bytes; throws when there is more.
std::string read_fd(int fd, const std::string& path, std::string_view what, std::uint64_t max,
                    std::uint64_t hint) {
    std::string out;
    out.resize(static_cast<std::size_t>(std::min<std::uint64_t>(hint, max) + 1));
    std::size_t used = 0;
    while (true) {
        if (used == out.size()) {
            if (used > max) break;
            out.resize(std::min<std::size_t>(out.size() * 2, static_cast<std::size_t>(max) + 1));
        }
        const std::size_t n = read_some(fd, out.data() + used, out.size() - used, path, what);
        if (n == 0) break;
        used += n;
        if (used > max) break;
    }
    if (used > max)
        throw InputError(
            fmt::format("{} {} is larger than the {} gpuadvise reads for it; is it the right file?",
                        what, quote(path), mib(max)));
    out.resize(used);
    return out;
}

struct Fd {
    int fd;
    explicit Fd(int f) : fd(f) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    Fd(Fd&& o) noexcept : fd(o.fd) { o.fd = -1; }
    Fd& operator=(Fd&&) = delete;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

// A regular file no larger than `max_bytes`, open: the refusal names the
// file and its size, so a wrong path is not read whole.
Fd open_within(const std::string& path, std::string_view what, std::uint64_t max_bytes,
               struct stat* st) {
    Fd fd{open_regular(path, what, st)};
    if (static_cast<std::uint64_t>(st->st_size) > max_bytes)
        throw InputError(fmt::format(
            "{} {} is {}, larger than the {} gpuadvise reads for it; is it the right file?", what,
            quote(path), mib(static_cast<std::uint64_t>(st->st_size)), mib(max_bytes)));
    return fd;
}

}  // namespace

std::string read_text_file(const std::string& path, std::string_view what, std::uint64_t max_bytes,
                           Stdin& in) {
    if (path == "-") {
        if (!in.used_by.empty())
            throw InputError(fmt::format(
                "{} '-' reads standard input, but {} already read it; give a file instead", what,
                in.used_by));
        in.used_by = std::string(what);
        std::string out;
        char buffer[65536];
        while (in.in) {
            in.in.read(buffer, sizeof buffer);
            out.append(buffer, static_cast<std::size_t>(in.in.gcount()));
            if (out.size() > max_bytes)
                throw InputError(fmt::format(
                    "{} '-': standard input holds more than the {} gpuadvise reads for it", what,
                    mib(max_bytes)));
        }
        if (in.in.bad())
            throw InputError(fmt::format("{} '-': standard input cannot be read", what));
        return out;
    }
    struct stat st {};
    const Fd fd = open_within(path, what, max_bytes, &st);
    return read_fd(fd.fd, path, what, max_bytes, static_cast<std::uint64_t>(st.st_size));
}

OwnedText map_text_file(const std::string& path, std::string_view what, std::uint64_t max_bytes,
                        Stdin& in) {
    const auto read = [&] {
        auto text = std::make_shared<const std::string>(read_text_file(path, what, max_bytes, in));
        return OwnedText{text, *text};
    };
    if (path == "-") return read();
    struct stat st {};
    const Fd fd = open_within(path, what, max_bytes, &st);
    // An empty size may still have content (procfs): those are read.
    const auto size = static_cast<std::size_t>(st.st_size);
    void* map = size == 0 ? MAP_FAILED
                          : ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd.fd, 0);
    if (map == MAP_FAILED) return read();
    std::shared_ptr<const void> owner(
        map, [size](const void* p) { ::munmap(const_cast<void*>(p), size); });
    return OwnedText{owner, std::string_view(static_cast<const char*>(map), size)};
}

std::string read_file_prefix(const std::string& path, std::string_view what, std::uint64_t limit,
                             std::uint64_t* file_size) {
    struct stat st {};
    const Fd fd{open_regular(path, what, &st)};
    *file_size = static_cast<std::uint64_t>(st.st_size);
    std::string bytes(static_cast<std::size_t>(std::min<std::uint64_t>(limit, *file_size)), '\0');
    std::size_t used = 0;
    while (used < bytes.size()) {
        const std::size_t n =
            read_some(fd.fd, bytes.data() + used, bytes.size() - used, path, what);
        if (n == 0) break;
        used += n;
    }
    bytes.resize(used);
    return bytes;
}

void check_inside(const std::string& folder, const std::string& file, std::string_view what) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path root = fs::weakly_canonical(fs::path(folder), ec);
    const fs::path target = fs::weakly_canonical(fs::path(file), ec);
    if (ec) return;  // the open that follows reports the problem
    const auto [r, t] = std::mismatch(root.begin(), root.end(), target.begin(), target.end());
    if (r != root.end())
        throw InputError(fmt::format(
            "{} {} is a link to a file outside the model folder {}; gpuadvise reads only files "
            "inside it (copy the file in, or name it directly)",
            what, quote(file), quote(folder)));
}

LineReader::LineReader(const std::string& path, std::string_view what, Stdin& in) : what_(what) {
    if (path == "-") {
        if (!in.used_by.empty())
            throw InputError(fmt::format("{} '-' reads standard input, but {} already read it",
                                         what, in.used_by));
        in.used_by = std::string(what);
        stream_ = &in.in;
        return;
    }
    struct stat st {};
    fd_ = open_regular(path, what, &st);
    own_ = true;
}

LineReader::~LineReader() {
    if (own_ && fd_ >= 0) ::close(fd_);
}

bool LineReader::fill() {
    if (eof_) return false;
    if (pos_ > 0) {
        buffer_.erase(0, pos_);
        pos_ = 0;
    }
    char chunk[65536];
    std::size_t got = 0;
    if (stream_) {
        stream_->read(chunk, sizeof chunk);
        got = static_cast<std::size_t>(stream_->gcount());
        if (got == 0) {
            if (stream_->bad())
                throw InputError(fmt::format("{}: standard input cannot be read", what_));
            eof_ = true;
            return false;
        }
    } else {
        while (true) {
            const ssize_t n = ::read(fd_, chunk, sizeof chunk);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0)
                throw InputError(
                    fmt::format("{}: the input cannot be read: {}", what_, std::strerror(errno)));
            got = static_cast<std::size_t>(n);
            break;
        }
        if (got == 0) {
            eof_ = true;
            return false;
        }
    }
    buffer_.append(chunk, got);
    return true;
}

bool LineReader::next(std::string& line) {
    while (true) {
        const std::size_t nl = buffer_.find('\n', pos_);
        if (nl != std::string::npos) {
            line.assign(buffer_, pos_, nl - pos_);
            pos_ = nl + 1;
            ++line_number_;
            if (line.size() > kMaxBatchLineBytes)
                throw InputError(
                    fmt::format("{}: line {} is longer than {} bytes; one workload per line", what_,
                                line_number_, kMaxBatchLineBytes));
            return true;
        }
        if (buffer_.size() - pos_ > kMaxBatchLineBytes)
            throw InputError(fmt::format(
                "{}: line {} is longer than {} bytes; one workload per line (is it a JSON "
                "Lines file?)",
                what_, line_number_ + 1, kMaxBatchLineBytes));
        if (!fill()) {
            if (pos_ >= buffer_.size()) return false;
            line.assign(buffer_, pos_, std::string::npos);
            pos_ = buffer_.size();
            ++line_number_;
            return true;
        }
    }
}

void append_line(const std::string& path, std::string_view what, std::string_view line,
                 const std::function<void(std::string_view existing)>& check) {
    const std::string shown = quote(path);
    const auto fail = [&](std::string_view why) {
        throw OutputError{fmt::format("cannot write the {} {}: {}", what, shown, why)};
    };
    struct stat st {};
    bool exists = false;
    int fd = -1;
    // Two writers may both find no file: the one whose O_EXCL create loses
    // finds the winner's file on the next round and appends to it.
    for (int round = 0; round < 3 && fd < 0; ++round) {
        exists = ::lstat(path.c_str(), &st) == 0;
        if (!exists && errno != ENOENT) fail(std::strerror(errno));
        if (exists && S_ISLNK(st.st_mode)) {
            // A link to a regular file is followed; a link to nothing is not
            // created through (the file it names could be anywhere).
            if (::stat(path.c_str(), &st) != 0)
                fail("it is a symbolic link to nothing; give a regular file with --calibration");
        }
        if (exists && !S_ISREG(st.st_mode))
            fail(fmt::format("it is {}, not a regular file; give a regular file with --calibration",
                             kind_of(st.st_mode)));
        // O_NONBLOCK: a FIFO swapped in after the check fails the open instead
        // of waiting; O_EXCL: a new file is never created through a link.
        int flags = O_RDWR | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
        if (!exists) flags |= O_CREAT | O_EXCL;
        fd = ::open(path.c_str(), flags, 0644);
        if (fd < 0 && !(errno == EEXIST && !exists)) fail(std::strerror(errno));
    }
    if (fd < 0) fail("another process kept replacing it");
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) fail("it is not a regular file");
    if (::flock(fd, LOCK_EX) != 0) fail(std::strerror(errno));
    if (::fstat(fd, &st) != 0) fail(std::strerror(errno));
    // Read what is there (under the lock) and let the caller validate it.
    const auto size = static_cast<std::size_t>(st.st_size);
    std::string existing(size, '\0');
    for (std::size_t got = 0; got < size;) {
        const ssize_t n = ::pread(fd, existing.data() + got, size - got, static_cast<off_t>(got));
        if (n <= 0) fail(n < 0 ? std::strerror(errno) : "the file shrank while it was read");
        got += static_cast<std::size_t>(n);
    }
    check(existing);
    // A file size limit (RLIMIT_FSIZE) must give an error here, not kill the
    // process half-way through the write.
    ::signal(SIGXFSZ, SIG_IGN);
    const ssize_t n = ::write(fd, line.data(), line.size());
    const int write_error = errno;
    const bool whole = n == static_cast<ssize_t>(line.size());
    const bool flushed = whole && ::fsync(fd) == 0;
    if (!whole || !flushed) {
        const int e = whole ? errno : write_error;
        const bool restored = ::ftruncate(fd, st.st_size) == 0;
        if (!exists && st.st_size == 0) ::unlink(path.c_str());
        fail(fmt::format("{}; {}",
                         n >= 0 && !whole ? std::string("the disk took only part of the line")
                                          : std::string(std::strerror(e)),
                         restored ? "nothing was written" : "the file may hold a partial line"));
    }
}

}  // namespace gpuadvise::cli
