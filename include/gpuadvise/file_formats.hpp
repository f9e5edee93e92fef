#pragma once
// What the model-file readers (gguf, safetensors) share. The core does no I/O,
// so a reader gets the first bytes of a file plus its total size; the metadata
// of a model file is a small prefix of it, and only that prefix is ever needed.
// When the metadata runs past the bytes given, the reader throws NeedMoreBytes
// and the caller reads more from the start of the file and calls again.
#include <cstdint>
#include <string>
#include <string_view>

#include "gpuadvise/error.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise {

// An InputError, so that a caller that does not retry still reports a
// sensible one-line message.
class NeedMoreBytes : public InputError {
  public:
    NeedMoreBytes(const std::string& message, std::uint64_t needed_bytes)
        : InputError(message), needed(needed_bytes) {}
    // Read at least this many bytes from the start of the file and call again.
    // It is never above the file size nor the reader's limit below; it may be
    // a lower bound (the reader cannot know how long the rest of the metadata
    // is), and grows at least twofold per round so a retry loop ends quickly.
    std::uint64_t needed = 0;
};

// The most metadata a reader accepts before calling a file implausible. GGUF
// headers hold the whole tokenizer (a few MiB for 256k-token vocabularies);
// 100 MiB is the safetensors library's own header limit.
inline constexpr std::uint64_t kGgufMetadataLimit = 256 * kMiB;
inline constexpr std::uint64_t kSafetensorsHeaderLimit = 100 * kMiB;

// A name taken from a file, made safe for a one-line message: bytes outside
// printable ASCII become '?' and long names are shortened.
inline std::string printable_name(std::string_view text) {
    constexpr std::size_t kMax = 80;
    std::string out;
    for (const char c : text.substr(0, kMax)) out += (c >= ' ' && c <= '~') ? c : '?';
    if (text.size() > kMax) out += "...";
    return out;
}

}  // namespace gpuadvise
