#pragma once
// Reading the files a user names, safely: only regular files (or '-' for
// stdin, once), opened without blocking (a FIFO is refused, not waited on),
// each kind with a documented size cap checked before and while reading, and
// every error one line that names the value, where it came from and the fix.
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>

namespace gpuadvise::cli {

// Caps, documented in README.md (Input limits).
inline constexpr std::uint64_t kMaxConfigJsonBytes = 16ULL << 20U;  // a model's config.json
inline constexpr std::uint64_t kMaxSettingsBytes = 1ULL << 20U;     // gpuadvise's own config file
inline constexpr std::uint64_t kMaxCatalogBytes = 1ULL
                                                  << 30U;  // a --catalog (100,000 cards are 180 MB)
inline constexpr std::uint64_t kMaxIndexBytes = 64ULL << 20U;     // model.safetensors.index.json
inline constexpr std::uint64_t kMaxBatchLineBytes = 1ULL << 20U;  // one batch line

// Output that could not be written (exit 3): stdout closed or full, or a
// file gpuadvise writes (the calibration file) that is not a regular file,
// cannot be opened, or did not take the whole line.
struct OutputError {
    std::string message;
};

// Who has read standard input: it can be read once.
struct Stdin {
    std::istream& in;
    std::string used_by;
};

// The whole content of a regular file, or of stdin for "-". `what` names the
// origin in messages ("--hf-config", "GPUADVISE_CATALOG", "config file x: catalog").
std::string read_text_file(const std::string& path, std::string_view what, std::uint64_t max_bytes,
                           Stdin& in);

// The same text, with what owns it: a regular file is mapped, not copied
// (reading a 250 MB catalog into a string cost 0.25 s of page faults and
// copying; the mapping 0.01 s), and stdin or a file that cannot be mapped
// is read as read_text_file reads it. Messages are read_text_file's.
struct OwnedText {
    std::shared_ptr<const void> owner;
    std::string_view text;
};
OwnedText map_text_file(const std::string& path, std::string_view what, std::uint64_t max_bytes,
                        Stdin& in);

// Up to `limit` bytes from the start of a regular file, and its size (model
// files are read only as far as their headers go).
std::string read_file_prefix(const std::string& path, std::string_view what, std::uint64_t limit,
                             std::uint64_t* file_size);

// The file is a regular file (after symlinks) inside `folder` (after
// symlinks); throws when it is a link that leaves the folder, so a model
// folder cannot make gpuadvise read (and report on) files elsewhere.
void check_inside(const std::string& folder, const std::string& file, std::string_view what);

// Appends `line` (a whole record ending in '\n') to the file at `path`: as
// one write under an exclusive lock (flock), so concurrent appenders never
// interleave, then flushed to disk (fsync). `check` sees the file's current
// text first (under the lock) and may throw to refuse the append; nothing is
// written then. Only a regular file (or a symbolic link to one) is written; a
// missing file is created, never through a dangling link. When the write or
// the flush fails (a full disk), the file is cut back to its old length and
// OutputError says so: nothing is half written.
void append_line(const std::string& path, std::string_view what, std::string_view line,
                 const std::function<void(std::string_view existing)>& check);

// Opens a regular file or stdin for reading line by line.
class LineReader {
  public:
    LineReader(const std::string& path, std::string_view what, Stdin& in);
    ~LineReader();
    LineReader(const LineReader&) = delete;
    LineReader& operator=(const LineReader&) = delete;
    // Reads the next line (without '\n'); false at the end. Throws when a line
    // is longer than kMaxBatchLineBytes or the read fails.
    bool next(std::string& line);

  private:
    bool fill();
    int fd_ = -1;
    bool own_ = false;
    std::istream* stream_ = nullptr;
    std::string what_;
    std::string buffer_;
    std::size_t pos_ = 0;
    bool eof_ = false;
    std::size_t line_number_ = 0;
};

}  // namespace gpuadvise::cli
