#pragma once
// What gguf.cpp (the file's header, metadata and tensor table) and
// gguf_model.cpp (what they say about the model) share: GGUF's value types,
// the metadata's entries with typed getters, and the hints in tensor names.
// Private to the gguf module.
#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <string_view>

#include "gpuadvise/gguf.hpp"

namespace gpuadvise::gguf_detail {

using u64 = std::uint64_t;
using u32 = std::uint32_t;

inline constexpr u64 kMaxI64 = static_cast<u64>(std::numeric_limits<std::int64_t>::max());

// GGUF metadata value types (gguf.h, enum gguf_type).
enum : u32 {
    kU8 = 0,
    kI8 = 1,
    kU16 = 2,
    kI16 = 3,
    kU32 = 4,
    kI32 = 5,
    kF32 = 6,
    kBool = 7,
    kString = 8,
    kArray = 9,
    kU64 = 10,
    kI64 = 11,
    kF64 = 12,
};

inline bool is_integer_type(u32 t) {
    return t <= kI32 || t == kU64 || t == kI64;
}

// A metadata value, reduced to what sizing a model needs: integers, strings,
// and for arrays their length and largest integer (per-layer arrays such as
// OpenELM's head counts). Strings view the caller's bytes.
struct Value {
    u32 type = 0;
    bool integer_ok = false;  // an integer that fits in int64
    std::int64_t integer = 0;
    std::string_view text;
    u32 elem_type = 0;
    u64 count = 0;
    bool max_ok = false;  // count > 0 and every element an int64-sized integer
    std::int64_t max = 0;
};

// The metadata's entries by key (views into the caller's bytes), with getters
// whose errors name the key: "<source>: '<key>' must be an integer (got a string)".
class Metadata {
  public:
    explicit Metadata(std::string_view source) : source_(source) {}

    // False when the key is already there (a corrupt file).
    bool add(std::string_view key, const Value& value) { return kv_.emplace(key, value).second; }
    const Value* find(std::string_view key) const;
    // 0 when absent; for an integer array, its largest element.
    std::int64_t get_int(std::string_view key) const;
    // Empty when absent.
    std::string_view get_string(std::string_view key) const;
    [[noreturn]] void fail(std::string_view problem) const;
    std::string_view source() const { return source_; }

  private:
    std::map<std::string_view, Value> kv_;
    std::string_view source_;
};

// What the tensor names say about the block structure (llama.cpp's names:
// blk.N.attn_q.weight, blk.N.ffn_gate.weight, ...), so that count_params on
// the returned shape matches the file for the common families.
struct TensorHints {
    bool has_output = false;
    bool gated = false;
    bool up = false;
    bool norm_bias = false;
    bool qkv_bias = false;
    bool out_bias = false;
    bool mlp_bias = false;
    bool qk_norm = false;
    std::int64_t layer0_norms = 0;
    std::int64_t position_rows = 0;
    std::int64_t embedding_rows = 0;
    std::int64_t up_rows = 0;  // of the first dense ffn_up

    void add(std::string_view name, const std::array<u64, 4>& dims, u32 n_dims);
};

// The model the metadata and tensor names describe: info.architecture, name,
// file_type and the validated info.arch, from the keys llama.cpp writes.
void read_model(const Metadata& meta, const TensorHints& hints, GgufInfo& info);

}  // namespace gpuadvise::gguf_detail
