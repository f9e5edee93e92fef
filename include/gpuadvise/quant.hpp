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

// The linear weights a format covers. A checkpoint's quantization_config can
// leave modules in its 16-bit dtype (`modules_to_not_convert`, `ignore`):
// gpt-oss stores only its routed experts in MXFP4. Embeddings, the output head,
// norms, biases and routers are 16-bit in every non-GGUF format anyway.
struct QuantScope {
    bool attention = true;       // attention and linear-attention projections
    bool dense_mlp = true;       // the MLP of dense layers
    bool shared_experts = true;  // always-on shared experts of MoE layers
    bool routed_experts = true;  // the routed experts
    bool vision = true;          // a vision encoder's linear weights and projector
    bool operator==(const QuantScope&) const = default;
    bool all() const {
        return attention && dense_mlp && shared_experts && routed_experts && vision;
    }
    // "attention, shared experts": the parts left in 16-bit, "" when none.
    std::string kept_text() const;
};

// A format plus its parameter (bits or group size) as chosen.
struct Quant {
    Quant() = default;
    Quant(const QuantFormat* f, double p, QuantScope s = {}) : format(f), parameter(p), scope(s) {}
    const QuantFormat* format = nullptr;
    double parameter = 0;  // 0 = the row's default
    QuantScope scope;      // what it covers; the rest stays 16-bit

    bool none() const { return format == nullptr || format->family == QuantFamily::None; }
    QuantFamily family() const { return format ? format->family : QuantFamily::None; }
    bool is_gguf() const { return family() == QuantFamily::Gguf; }
    // Bits per linear weight, scales included.
    double bits_per_weight(bool double_quant) const;
    // "nf4", "exl2:4.65"
    std::string text() const;
};

// A checkpoint's own weight format, read from the `quantization_config` of
// its config.json (transformers' quantizers: mxfp4, awq, gptq, fp8,
// fbgemm_fp8, bitsandbytes, compressed-tensors, modelopt). Parsing needs no
// format table: `format` names a row of data/quants.json, resolved where the
// workload takes it.
struct CheckpointQuant {
    std::string method;         // quant_method as written ("mxfp4", "compressed-tensors")
    std::string format;         // a data/quants.json id ("mxfp4", "gptq-int4"); "" = not modelled
    double parameter = 0;       // the row's parameter (group size), 0 = the row's default
    bool double_quant = false;  // bitsandbytes bnb_4bit_use_double_quant
    QuantScope scope;
    std::string detail;             // "bits 4, group 128", "block 128 x 128"
    std::vector<std::string> kept;  // module patterns left unconverted, as written
    std::string problem;            // why the format is not modelled (format is then "")
    bool modelled() const { return !format.empty(); }
    // "mxfp4 (quant_method mxfp4; attention in 16-bit)"
    std::string text() const;
};

// Reads `quantization_config` of a config.json object; nullopt when there is
// none. Unknown methods and bit widths are not errors: `problem` says why they
// are sized as 16-bit weights. Malformed fields (a string for bits) throw
// InputError naming `source` and the field.
std::optional<CheckpointQuant> parse_quantization_config(const json::Value& config,
                                                         std::string_view source);
// The scope left by module names a checkpoint keeps in 16-bit
// ("model.layers.*.self_attn", "re:.*mlp.gate$", "lm_head", "visual").
QuantScope scope_without(const std::vector<std::string>& modules);

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

// The compiled-in weight formats (data/quants.json, generated at build time).
namespace embedded {
std::string_view quants_json();
std::span<const QuantFormat> quant_formats();
}  // namespace embedded

}  // namespace gpuadvise
