#pragma once
// Reading the header of a safetensors file (Hugging Face's weight format): an
// unsigned 64-bit little-endian length N, then N bytes of JSON naming every
// tensor's dtype, shape and byte range. The sums give a checkpoint's exact
// parameter count and size; a sharded checkpoint lists its files in
// model.safetensors.index.json.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/file_formats.hpp"

namespace gpuadvise {

struct SafetensorsInfo {
    std::uint64_t params = 0;   // sum of tensor elements (MXFP4 "_blocks": 2 a byte, "_scales": 0)
    std::uint64_t bytes = 0;    // sum of tensor data bytes
    std::uint64_t tensors = 0;  // tensor count
    std::map<std::string, std::uint64_t> dtype_counts;  // dtype ("BF16") -> parameters
    std::vector<std::string> names;                     // tensor names, sorted
};

// `bytes` is a prefix of the file (or all of it) and `file_size` its total
// size. Throws NeedMoreBytes (with the exact size needed) when the header
// continues past `bytes`, and InputError "<source>: <problem>" for anything
// malformed, truncated or inconsistent.
SafetensorsInfo parse_safetensors_header(std::string_view bytes, std::uint64_t file_size,
                                         std::string_view source);

// The sums over the shards of one checkpoint; throws when two shards hold
// the same tensor (`source` names the checkpoint).
SafetensorsInfo merge_safetensors(const std::vector<SafetensorsInfo>& shards,
                                  std::string_view source = "safetensors");

// The shard file names of model.safetensors.index.json's "weight_map", unique
// and sorted. Names must be plain file names (no folders): they come from the
// internet and the caller opens them next to the index.
std::vector<std::string> parse_safetensors_index(std::string_view json_text,
                                                 std::string_view source);

}  // namespace gpuadvise
