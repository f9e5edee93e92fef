// Which layers of a config.json's model do what: layer kinds from
// `layer_types`, Llama 4's chunked-attention layers, Qwen3-Next's Gated
// DeltaNet layers and the state each keeps, and the layers that hold a routed
// MoE block by every family's rule. architecture_from_json calls them.
#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "gpuadvise/error.hpp"
#include "gpuadvise/json.hpp"
#include "gpuadvise/model.hpp"
#include "model_common.hpp"

namespace gpuadvise::model_detail {

// Layer kinds from a `layer_types` list (transformers >= 4.53 writes it for
// Gemma, gpt-oss, Qwen3-Next and others): "sliding_attention" layers keep a
// window of KV, "full_attention"/"attention" layers the whole context, and
// linear-attention or state-space layers no KV at all.
void read_layer_types(const json::Value& j, Architecture& a, std::string_view source) {
    const auto types = j.find("layer_types");
    if (!types || types->is_null()) return;
    if (!types->is_array())
        throw InputError(fmt::format("{}: 'layer_types' must be a list of strings", source));
    std::int64_t sliding = 0, free = 0, count = 0;
    for (const json::Value t : types->items()) {
        if (!t.is_string())
            throw InputError(fmt::format("{}: 'layer_types' must be a list of strings", source));
        const std::string_view k = t.text();
        if (k == "sliding_attention" || k == "local_attention" || k == "chunked_attention")
            ++sliding;
        else if (k == "linear_attention" || k == "mamba" || k == "mamba2" || k == "ssm" ||
                 k == "recurrent")
            ++free;
        ++count;
    }
    if (count > 0 && a.layers > 0 && count != a.layers)
        throw InputError(
            fmt::format("{}: 'layer_types' lists {} layers but num_hidden_layers is {}", source,
                        count, a.layers));
    a.sliding_layers = sliding;
    a.kv_free_layers = free;
}

// Layers with a routed MoE block, by every family's rule: an explicit list
// (Llama 4's moe_layers); else layer i is MoE when i >= first_k_dense_replace
// and i % moe_layer_freq == 0 (DeepSeek), (i + 1) % decoder_sparse_step == 0
// (Qwen MoE), (i + 1) % interleave_moe_layer_step == 0 (Llama 4) and i is not
// in mlp_only_layers. Absent keys leave every layer MoE.
std::int64_t moe_layer_count(const json::Value& j, std::int64_t layers, std::string_view source) {
    if (layers <= 0 || layers > 100'000) return layers;  // validate_architecture rejects it
    if (j.find("moe_layers")) {
        std::vector<std::int64_t> list = index_list(j, "moe_layers", source);
        std::sort(list.begin(), list.end());
        list.erase(std::unique(list.begin(), list.end()), list.end());
        return static_cast<std::int64_t>(
            std::count_if(list.begin(), list.end(), [&](std::int64_t i) { return i < layers; }));
    }
    const std::int64_t first_dense = int_field(j, {"first_k_dense_replace"}, source);
    const std::int64_t freq = std::max<std::int64_t>(1, int_field(j, {"moe_layer_freq"}, source));
    const std::int64_t sparse =
        std::max<std::int64_t>(1, int_field(j, {"decoder_sparse_step"}, source));
    const std::int64_t interleave =
        std::max<std::int64_t>(1, int_field(j, {"interleave_moe_layer_step"}, source));
    const std::vector<std::int64_t> dense = index_list(j, "mlp_only_layers", source);
    std::int64_t count = 0;
    for (std::int64_t i = 0; i < layers; ++i) {
        const bool moe = i >= first_dense && i % freq == 0 && (i + 1) % sparse == 0 &&
                         (i + 1) % interleave == 0 &&
                         std::find(dense.begin(), dense.end(), i) == dense.end();
        if (moe) ++count;
    }
    return count;
}

// Llama 4's chunked attention: layers that use RoPE attend within fixed
// chunks of attention_chunk_size tokens, so their KV cache holds at most a
// chunk; the NoPE layers (every no_rope_layer_interval-th, default 4 in
// Llama4TextConfig, or the zeros of no_rope_layers) attend to the whole context.
void read_local_attention(const json::Value& j, Architecture& a, std::string_view source) {
    const std::int64_t chunk = int_field(j, {"attention_chunk_size"}, source);
    if (chunk <= 0 || j.find("layer_types") || a.sliding_layers > 0) return;
    std::int64_t chunked = 0;
    const std::vector<std::int64_t> rope = index_list(j, "no_rope_layers", source);
    if (!rope.empty()) {
        if (static_cast<std::int64_t>(rope.size()) != a.layers)
            throw InputError(
                fmt::format("{}: 'no_rope_layers' lists {} layers but num_hidden_layers is {}",
                            source, rope.size(), a.layers));
        chunked = static_cast<std::int64_t>(std::count(rope.begin(), rope.end(), 1));
    } else {
        const std::int64_t interval =
            std::max<std::int64_t>(1, int_or(j, "no_rope_layer_interval", 4, source));
        chunked = a.layers - a.layers / interval;
    }
    a.sliding_window = chunk;
    a.sliding_layers = chunked;
}

// Gated DeltaNet linear attention (Qwen3-Next: linear_num_key_heads, ...).
// Without layer_types every full_attention_interval-th layer is full
// attention and the rest linear (Qwen3NextConfig, default interval 4). Each
// linear layer keeps a fixed state per sequence: the recurrent state (value
// heads x key dim x value dim) and the convolution's last kernel - 1 inputs,
// in the 16-bit compute dtype.
void read_linear_attention(const json::Value& j, Architecture& a, std::string_view source) {
    a.linear_k_heads = int_field(j, {"linear_num_key_heads"}, source);
    a.linear_v_heads = int_field(j, {"linear_num_value_heads"}, source);
    if (!a.linear_attention()) return;
    a.linear_k_dim = int_or(j, "linear_key_head_dim", a.head_dim, source);
    a.linear_v_dim = int_or(j, "linear_value_head_dim", a.head_dim, source);
    a.linear_conv_kernel = int_or(j, "linear_conv_kernel_dim", 4, source);
    if (!j.find("layer_types")) {
        const std::int64_t interval =
            std::max<std::int64_t>(1, int_or(j, "full_attention_interval", 4, source));
        a.kv_free_layers = a.layers - a.layers / interval;
    }
    for (const auto& [field, value] : {std::pair{"linear_key_head_dim", a.linear_k_dim},
                                       {"linear_value_head_dim", a.linear_v_dim},
                                       {"linear_num_key_heads", a.linear_k_heads},
                                       {"linear_num_value_heads", a.linear_v_heads},
                                       {"linear_conv_kernel_dim", a.linear_conv_kernel}})
        if (value <= 0 || value > 100'000)
            throw InputError(
                fmt::format("{}: '{}' = {} is out of range [1, 100000]", source, field, value));
    const std::int64_t conv =
        2 * a.linear_k_heads * a.linear_k_dim + a.linear_v_heads * a.linear_v_dim;
    a.state_bytes_per_layer = 2 * (a.linear_v_heads * a.linear_k_dim * a.linear_v_dim +
                                   conv * (a.linear_conv_kernel - 1));
}

}  // namespace gpuadvise::model_detail
