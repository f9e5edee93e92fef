#pragma once
// Reading the metadata of a GGUF file (llama.cpp's model format, versions 2
// and 3, little-endian): the model's shape from its key/value pairs, and the
// exact parameter count and weight bytes from its tensor table. Tensor data is
// never read, so the caller passes only the first bytes of the file.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "gpuadvise/file_formats.hpp"
#include "gpuadvise/model.hpp"

namespace gpuadvise {

// One ggml tensor type: `block_size` elements are stored in `type_size` bytes.
struct GgmlType {
    std::string_view name;  // upper case, as quantisations are usually written: "Q4_K"
    std::uint32_t block_size = 0;
    std::uint32_t type_size = 0;
};

// Ids 0 .. kGgmlTypeCount - 1 are in the table (src/ggml_types.cpp).
inline constexpr std::size_t kGgmlTypeCount = 42;

// The type with ggml id `id`; nullptr for ids ggml never used or has removed
// from GGUF files (4, 5, 31-33, 36-38) and for ids newer than this table.
const GgmlType* ggml_type(std::uint32_t id);

struct GgufInfo {
    std::uint32_t version = 0;
    std::string architecture;               // general.architecture ("llama", "qwen3moe", ...)
    std::string name;                       // general.name, empty when absent
    std::optional<std::int64_t> file_type;  // general.file_type (llama_ftype)
    Architecture arch;                      // validated; model_type = architecture
    std::uint64_t tensor_count = 0;
    std::uint64_t params = 0;        // sum of tensor elements
    std::uint64_t weight_bytes = 0;  // sum of exact tensor bytes
    // The ggml type holding the most bytes of weight matrices (tensors of two
    // or more dimensions, so stacked MoE experts count): "Q4_K", "F16", ...
    std::string quantization;
    double bits_per_weight = 0.0;                     // 8 * weight_bytes / params, over all tensors
    std::map<std::string, std::uint64_t> type_bytes;  // ggml type name -> bytes
};

// The name the brief for the CLI uses; both readers share one retry type.
using GgufNeedMoreBytes = NeedMoreBytes;

// `bytes` is a prefix of the file (or all of it) and `file_size` its total
// size. Throws NeedMoreBytes when the metadata continues past `bytes`, and
// InputError "<source>: <problem>" for anything malformed, truncated or
// implausible. Never allocates more than the bytes given justify.
GgufInfo parse_gguf(std::string_view bytes, std::uint64_t file_size, std::string_view source);

}  // namespace gpuadvise
