#pragma once
// Weight formats as data (data/quants.json): one row per format people
// download or produce, with the arithmetic of its storage (bits per value plus
// the scales and zeros of each group) and what can run or train on it. Adding
// a format is adding a row; `--quant`, its help, completions, the JSON Schema
// and the memory model all read the table.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/enum_table.hpp"
#include "gpuadvise/json.hpp"

namespace gpuadvise {

// How a family's weights are produced and run; code asks about traits, never
// about a format's name.
enum class QuantFamily : std::uint8_t {
    None,   // 16/32-bit weights in the compute dtype
    Bnb4,   // bitsandbytes NF4/FP4 (QLoRA bases)
    Bnb8,   // bitsandbytes LLM.int8
    Gptq,   // GPTQ (AutoGPTQ, GPTQModel, Marlin kernels)
    Awq,    // AWQ
    Fp8,    // FP8 checkpoints (per-tensor, per-channel or block scales)
    Gguf,   // llama.cpp's ggml block formats and their file-type mixes
    Exl,    // ExLlamaV2/V3 (any bits per weight)
    Mlx,    // MLX affine quantisation (Apple)
    Fp4,    // NVFP4 / MXFP4 micro-scaled 4-bit
    Other,  // HQQ, torchao weight-only and similar
};

inline constexpr auto kQuantFamilies =
    make_enum_table<QuantFamily>({{QuantFamily::None, "none"},
                                  {QuantFamily::Bnb4, "bnb4"},
                                  {QuantFamily::Bnb8, "bnb8"},
                                  {QuantFamily::Gptq, "gptq"},
                                  {QuantFamily::Awq, "awq"},
                                  {QuantFamily::Fp8, "fp8"},
                                  {QuantFamily::Gguf, "gguf"},
                                  {QuantFamily::Exl, "exl"},
                                  {QuantFamily::Mlx, "mlx"},
                                  {QuantFamily::Fp4, "fp4"},
                                  {QuantFamily::Other, "other"}});

// What a parametric format's number after ':' sets: `--quant exl2:4.65`
// (bits per weight), `--quant gptq-int4:32` (weights per group).
enum class QuantParameter : std::uint8_t { None, Bits, Group };
inline constexpr auto kQuantParameters =
    make_enum_table<QuantParameter>({{QuantParameter::None, "none"},
                                     {QuantParameter::Bits, "bits"},
                                     {QuantParameter::Group, "group"}});

struct QuantFormat {
    std::string_view id;    // "nf4", "q4_k_m", "exl2"
    std::string_view name;  // "bitsandbytes NF4"
    std::span<const std::string_view> aliases;
    QuantFamily family = QuantFamily::None;
    // Storage of one linear weight: `value_bits` per weight plus
    // `group_overhead_bits` (scale, zero point) per `group` weights; mixes
    // such as GGUF Q4_K_M give their file-level average in value_bits.
    double value_bits = 16;
    double group = 0;
    double group_overhead_bits = 0;
    // bitsandbytes double quantisation: the per-group overhead instead.
    std::optional<double> double_quant_overhead_bits;
    // GGUF quantises every tensor, embeddings and output head included;
    // other formats keep them in 16-bit.
    bool quantizes_embeddings = false;
    bool trainable_base = false;  // can be the frozen base of QLoRA
    QuantParameter parameter = QuantParameter::None;
    double parameter_min = 0, parameter_max = 0;
    // A hardware path the format computes in when the card has it ("fp8",
    // "fp4"); formats without one dequantise to the compute dtype.
    std::string_view tensor_path;
    double dequant_time_factor = 1.0;  // training and prefill time relative to 16-bit
    std::string_view source;
};

// A format plus its parameter (bits or group size) as chosen.
struct Quant {
    const QuantFormat* format = nullptr;
    double parameter = 0;  // 0 = the row's default

    bool none() const { return format == nullptr || format->family == QuantFamily::None; }
    QuantFamily family() const { return format ? format->family : QuantFamily::None; }
    bool is_gguf() const { return family() == QuantFamily::Gguf; }
    // Bits per linear weight, scales included.
    double bits_per_weight(bool double_quant) const;
    // "nf4", "exl2:4.65"
    std::string text() const;
};

std::span<const QuantFormat> quant_formats();
const QuantFormat& quant_none();
// Parses "nf4", "Q4_K_M", "exl2:4.65", "gptq-int4:32"; throws InputError naming
// `what` with a did-you-mean, or the parameter's range.
Quant parse_quant(std::string_view text, std::string_view what);
// A format by exact id; nullptr when there is none.
const QuantFormat* find_quant(std::string_view id);
std::vector<std::string> quant_choices();

// Parses data/quants.json (at build time, and by the tests that check the
// generated table against it).
Parsed<QuantFormat> parse_quant_formats(std::string_view text, std::string_view source);

}  // namespace gpuadvise
