#pragma once
// Writes safetensors files and Hugging Face model folders for end-to-end
// tests: an 8-byte little-endian header length, the JSON header, the data.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace safetensors_test {

inline std::string safetensors(const nlohmann::json& header, std::uint64_t data_bytes) {
    const std::string text = header.dump();
    std::string out(8, '\0');
    const std::uint64_t n = text.size();
    for (int i = 0; i < 8; ++i)
        out[static_cast<std::size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xFF);
    return out + text + std::string(data_bytes, '\0');
}

// A one-layer Llama-shaped model folder (config.json + model.safetensors)
// at `folder`, which is created.
inline void write_tiny_folder(const std::filesystem::path& folder) {
    std::filesystem::create_directories(folder);
    nlohmann::json h;
    h["__metadata__"] = {{"format", "pt"}};
    h["a.weight"] = {{"dtype", "BF16"}, {"shape", {1000, 64}}, {"data_offsets", {0, 128000}}};
    h["b.weight"] = {{"dtype", "BF16"}, {"shape", {64}}, {"data_offsets", {128000, 128128}}};
    std::ofstream(folder / "model.safetensors", std::ios::binary) << safetensors(h, 128128);
    std::ofstream(folder / "config.json", std::ios::binary)
        << R"({"model_type":"llama","num_hidden_layers":1,"hidden_size":64,"num_attention_heads":4,
        "intermediate_size":128,"vocab_size":100})";
}

}  // namespace safetensors_test
