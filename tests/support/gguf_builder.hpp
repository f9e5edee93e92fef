#pragma once
// Writes GGUF headers for tests (unit tests of the reader, end-to-end tests of
// --gguf): a builder for key/value pairs and tensor infos, and a tiny
// two-layer Llama-style model quantised like Q4_K_M.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/gguf.hpp"

namespace gguf_test {

using gpuadvise::ggml_type;
using gpuadvise::GgmlType;

using u64 = std::uint64_t;
using u32 = std::uint32_t;

// ggml type ids used below (ggml.h).
constexpr u32 kF32 = 0, kF16 = 1, kQ4_0 = 2, kQ5_0 = 6, kQ8_0 = 8, kQ4_K = 12, kQ6_K = 14,
              kIQ2_XXS = 16, kIQ4_NL = 20, kBF16 = 30, kTQ1_0 = 34, kMXFP4 = 39;

inline void put32(std::string& out, u32 v) {
    for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}
inline void put64(std::string& out, u64 v) {
    for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}
inline void put_string(std::string& out, std::string_view s) {
    put64(out, s.size());
    out += s;
}

inline u64 tensor_bytes(u64 elements, u32 type) {
    const GgmlType* t = ggml_type(type);
    REQUIRE(t != nullptr);
    return elements / t->block_size * t->type_size;
}

// Writes GGUF files the way llama.cpp lays them out: header, metadata, tensor
// infos, padding to the alignment, then tensor data at aligned offsets. Only
// the header is materialised; the data exists only as the file size.
class GgufBuilder {
  public:
    u32 version = 3;
    u64 alignment = 32;
    std::string magic = "GGUF";
    std::optional<u64> tensor_count_override;
    std::optional<u64> kv_count_override;

    GgufBuilder& kv_u32(std::string_view key, u32 v) {
        return kv(key, 4, [&](std::string& o) { put32(o, v); });
    }
    GgufBuilder& kv_u64(std::string_view key, u64 v) {
        return kv(key, 10, [&](std::string& o) { put64(o, v); });
    }
    GgufBuilder& kv_f32(std::string_view key) {
        return kv(key, 6, [&](std::string& o) { put32(o, 0x3f800000); });
    }
    GgufBuilder& kv_bool(std::string_view key) {
        return kv(key, 7, [&](std::string& o) { o += '\1'; });
    }
    GgufBuilder& kv_str(std::string_view key, std::string_view v) {
        return kv(key, 8, [&](std::string& o) { put_string(o, v); });
    }
    GgufBuilder& kv_tokens(std::string_view key, u64 n) {
        return kv(key, 9, [&](std::string& o) {
            put32(o, 8);
            put64(o, n);
            for (u64 i = 0; i < n; ++i) put_string(o, "t" + std::to_string(i));
        });
    }
    GgufBuilder& kv_i32_array(std::string_view key, const std::vector<std::int32_t>& values) {
        return kv(key, 9, [&](std::string& o) {
            put32(o, 5);
            put64(o, values.size());
            for (const std::int32_t v : values) put32(o, static_cast<u32>(v));
        });
    }
    // Raw bytes of one metadata entry (key, type and value), for corrupt files.
    GgufBuilder& kv_raw(std::string_view bytes) {
        kvs_ += bytes;
        ++kv_count_;
        return *this;
    }
    GgufBuilder& tensor(std::string name, std::vector<u64> dims, u32 type, u64 offset_shift = 0) {
        tensors_.push_back({std::move(name), std::move(dims), type, offset_shift, std::nullopt});
        return *this;
    }
    // A tensor at a fixed data offset, taking no room in the layout.
    GgufBuilder& tensor_at(std::string name, std::vector<u64> dims, u32 type, u64 offset) {
        tensors_.push_back({std::move(name), std::move(dims), type, 0, offset});
        return *this;
    }

    // Everything parse_gguf reads: header, metadata, tensor infos, padding.
    std::string header() const { return build().first; }
    // The header without its final padding.
    u64 header_end() const {
        build();
        return build_unpadded_size_;
    }
    u64 file_size() const { return build().second; }

  private:
    struct Tensor {
        std::string name;
        std::vector<u64> dims;
        u32 type;
        u64 offset_shift;
        std::optional<u64> fixed_offset;
    };

    template <typename F>
    GgufBuilder& kv(std::string_view key, u32 type, F value) {
        put_string(kvs_, key);
        put32(kvs_, type);
        value(kvs_);
        ++kv_count_;
        return *this;
    }

    std::pair<std::string, u64> build() const {
        std::string out = magic;
        put32(out, version);
        put64(out, tensor_count_override.value_or(tensors_.size()));
        put64(out, kv_count_override.value_or(kv_count_));
        out += kvs_;
        u64 offset = 0;
        for (const Tensor& t : tensors_) {
            put_string(out, t.name);
            put32(out, static_cast<u32>(t.dims.size()));
            u64 elements = 1;
            for (const u64 d : t.dims) {
                put64(out, d);
                elements *= d;
            }
            put32(out, t.type);
            if (t.fixed_offset) {
                put64(out, *t.fixed_offset);
                continue;
            }
            put64(out, offset + t.offset_shift);
            const GgmlType* type = ggml_type(t.type);
            offset += type != nullptr ? elements / type->block_size * type->type_size : 0;
            offset = (offset + alignment - 1) / alignment * alignment;
        }
        build_unpadded_size_ = out.size();
        while (out.size() % alignment != 0) out += '\0';
        return {out, out.size() + offset};
    }

    std::string kvs_;
    u64 kv_count_ = 0;
    std::vector<Tensor> tensors_;
    mutable u64 build_unpadded_size_ = 0;
};

// A two-layer Llama-style model: hidden 256, FFN 512, 4 heads of 64, 2 KV
// heads, 1000 tokens, Q4_K matrices with Q6_K for V and down (like Q4_K_M).
inline GgufBuilder tiny_llama(bool tied, u32 version = 3, u64 vocab = 1000) {
    GgufBuilder b;
    b.version = version;
    b.kv_str("general.architecture", "llama")
        .kv_str("general.name", "Tiny Llama")
        .kv_u32("general.file_type", 15)
        .kv_u32("llama.block_count", 2)
        .kv_u64("llama.context_length", 4096)
        .kv_u32("llama.embedding_length", 256)
        .kv_u32("llama.feed_forward_length", 512)
        .kv_u32("llama.attention.head_count", 4)
        .kv_u32("llama.attention.head_count_kv", 2)
        .kv_f32("llama.attention.layer_norm_rms_epsilon")
        .kv_bool("tokenizer.ggml.add_bos_token")
        .kv_str("tokenizer.ggml.model", "gpt2")
        .kv_tokens("tokenizer.ggml.tokens", vocab)
        .kv_i32_array("tokenizer.ggml.token_type", std::vector<std::int32_t>(vocab, 1));
    b.tensor("token_embd.weight", {256, vocab}, kQ4_K).tensor("output_norm.weight", {256}, kF32);
    if (!tied) b.tensor("output.weight", {256, vocab}, kQ6_K);
    for (int l = 0; l < 2; ++l) {
        const std::string p = "blk." + std::to_string(l) + ".";
        b.tensor(p + "attn_norm.weight", {256}, kF32)
            .tensor(p + "attn_q.weight", {256, 256}, kQ4_K)
            .tensor(p + "attn_k.weight", {256, 128}, kQ4_K)
            .tensor(p + "attn_v.weight", {256, 128}, kQ6_K)
            .tensor(p + "attn_output.weight", {256, 256}, kQ4_K)
            .tensor(p + "ffn_norm.weight", {256}, kF32)
            .tensor(p + "ffn_gate.weight", {256, 512}, kQ4_K)
            .tensor(p + "ffn_up.weight", {256, 512}, kQ4_K)
            .tensor(p + "ffn_down.weight", {512, 256}, kQ6_K);
    }
    return b;
}

}  // namespace gguf_test
