#pragma once
// What model.cpp (shapes, presets), model_params.cpp (parameter counts),
// model_config.cpp (config.json) and model_vision.cpp (vision towers) share:
// config.json's field readers (model_fields.cpp), bounded before any
// arithmetic uses them, and the per-layer readers (model_layers.cpp).
// Private to the model module.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/json.hpp"
#include "gpuadvise/model.hpp"

namespace gpuadvise::model_detail {

// Reads the first of several spellings of an integer field; 0 when absent.
// Values from a file are bounded here, before any arithmetic uses them, so a
// hostile config.json cannot overflow the shape's products.
constexpr std::int64_t kMaxField = 1'000'000'000;

std::int64_t int_field(const json::Value& j, std::initializer_list<std::string_view> keys,
                       std::string_view source);

bool bool_field(const json::Value& j, std::string_view key, bool fallback, std::string_view source);

std::string string_field(const json::Value& j, std::string_view key, std::string_view source);

// A key's integer, or `fallback` when the key is absent (the configuration
// class's default).
std::int64_t int_or(const json::Value& j, std::string_view key, std::int64_t fallback,
                    std::string_view source);

// Layer indices in a list ("mlp_only_layers", "moe_layers"), each checked.
std::vector<std::int64_t> index_list(const json::Value& j, std::string_view key,
                                     std::string_view source);

// A vision_config dimension as a double (the counts below are computed in
// doubles, exact below 2^53, and bounded before they become integers).
double dim(const json::Value& v, std::string_view key, std::int64_t fallback,
           std::string_view source);

// A count computed in doubles, as an integer; a hostile config.json cannot
// make it overflow.
std::int64_t bounded_count(double value, std::string_view what, std::string_view source);

// Layer kinds from a `layer_types` list: sliding-window layers and layers that
// keep no KV cache (linear attention, state-space).
void read_layer_types(const json::Value& j, Architecture& a, std::string_view source);
// Layers with a routed MoE block, of `layers`.
std::int64_t moe_layer_count(const json::Value& j, std::int64_t layers, std::string_view source);
// Llama 4's chunked attention: the window and the layers that keep only it.
void read_local_attention(const json::Value& j, Architecture& a, std::string_view source);
// Gated DeltaNet linear attention (Qwen3-Next): its layers and their state.
void read_linear_attention(const json::Value& j, Architecture& a, std::string_view source);

// Llama 3.2 Vision's cross-attention layers and every vision tower a
// config.json's vision_config describes (model_vision.cpp).
void read_cross_attention(const json::Value& root, const json::Value& j, Architecture& a,
                          std::string_view source);
void read_vision(const json::Value& root, Architecture& a, std::string_view source);

}  // namespace gpuadvise::model_detail
