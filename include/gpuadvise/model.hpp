#pragma once
// What a model is, as far as memory and speed care: its shape, and the
// parameter count that shape implies. A shape comes from a Hugging Face
// config.json (or a preset, which stores the same keys), or is inferred from
// a bare parameter count by a rule fitted to Llama-style families.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/enum_table.hpp"
#include "gpuadvise/image.hpp"
#include "gpuadvise/quant.hpp"

namespace gpuadvise {

enum class MlpKind { Gated, Plain };  // SwiGLU/GeGLU (3 matrices) vs GELU/ReLU (2)
enum class NormKind { RmsNorm, LayerNorm };

// What a model's forward is for (docs/models.md, "Embedding and reranker
// models"): Generate decodes token by token from a KV cache; Embed runs one
// forward over each sequence and pools its hidden states into a vector (no
// KV cache, no language-model head: a checkpoint loaded as `*Model`);
// Rerank runs one forward over each query-document pair and scores it, with
// a sequence-classification head (`*ForSequenceClassification`) or, for a
// causal reranker (Qwen3-Reranker), the language-model head at the last
// position.
enum class ModelTask : std::uint8_t { Generate, Embed, Rerank };
inline constexpr auto kModelTasks = make_enum_table<ModelTask>({{ModelTask::Generate, "generate"},
                                                                {ModelTask::Embed, "embed"},
                                                                {ModelTask::Rerank, "rerank"}});
inline std::string_view to_string(ModelTask t) {
    return kModelTasks.name(t);
}

// How a vision-language model's preprocessing turns one image into tokens
// (model_image_tokens.cpp, docs/models.md "Images in a request"):
// DynamicResolution resizes to multiples of patch x merge pixels within a
// pixel budget (Qwen2.5-VL); Tiles splits it into up to max_tiles tiles of
// image_size whose patches the cross-attention layers attend to (Llama 3.2
// Vision); Pooled resizes to image_size and pools the patches to a fixed
// count (Gemma 3); PatchRows keeps the aspect ratio under a longest side and
// ends each row of merged patches with a break token (Pixtral in Mistral 3).
enum class ImageInput : std::uint8_t { None, DynamicResolution, Tiles, Pooled, PatchRows };

// A vision tower's shape as its vision_config gives it (absent keys: the
// configuration class's defaults), for what images cost: their tokens, the
// encoder's FLOPs and its activations. Filled by the families model_vision.cpp
// counts; `input` None for the rest.
struct VisionTower {
    ImageInput input = ImageInput::None;
    std::string family;  // the config's top-level model_type ("qwen2_5_vl"): its rule's key
    std::int64_t hidden = 0, intermediate = 0, layers = 0, heads = 0;
    bool gated_mlp = false;
    std::int64_t patch = 0;  // pixels per patch side
    std::int64_t merge = 1;  // patches merged into one token, per side (Qwen2.5-VL, Pixtral)
    // The native input side (SigLIP's 896, Mllama's tile of 560), Pixtral's
    // longest side (1540); 0 where the model has none (Qwen2.5-VL).
    std::int64_t image_size = 0;
    std::int64_t max_tiles = 0;  // Mllama: tiles per image at most
    std::int64_t pooled_tokens =
        0;  // Gemma 3: tokens per image after pooling (mm_tokens_per_image)
    // Qwen2.5-VL: layers attending over the whole image (fullatt_block_indexes);
    // the others attend within windows of `window` pixels a side.
    std::int64_t full_attention_layers = 0;
    std::int64_t window = 0;
    // Linear weights every patch passes (the encoder's blocks), and those
    // every output token passes (the merger or projector to the text width).
    std::int64_t patch_linear = 0;
    std::int64_t token_linear = 0;
    std::int64_t output_hidden = 0;  // the width of the tokens it hands the language model
    bool modelled() const { return input != ImageInput::None; }
};

struct Architecture {
    std::string model_type = "llama";
    std::int64_t layers = 0;  // decoder layers (per stack for encoder-decoder)
    std::int64_t hidden = 0;
    std::int64_t intermediate = 0;  // FFN inner size of one branch (dense layers)
    std::int64_t heads = 0;
    std::int64_t kv_heads = 0;
    std::int64_t head_dim = 0;
    std::int64_t vocab = 0;
    bool tied_embeddings = false;
    MlpKind mlp = MlpKind::Gated;
    NormKind norm = NormKind::RmsNorm;
    std::int64_t norms_per_layer = 2;  // Gemma 2/3 have 4, parallel-attention blocks 1
    bool qk_norm = false;              // per-head q/k norms (Qwen3, Gemma 3)
    bool qk_norm_per_head = false;     // ... with a weight per head (Cohere: heads x head_dim)
    bool attention_sinks = false;      // a learned sink logit per head and layer (gpt-oss)
    bool gated_attention = false;      // q_proj also yields a sigmoid output gate (Qwen3-Next)
    bool qkv_bias = false;
    bool out_bias = false;  // attention output projection bias
    bool mlp_bias = false;
    bool lm_head_bias = false;  // Phi-1/2 and GPT-J heads carry a bias per vocabulary entry
    std::int64_t learned_positions = 0;  // rows of a learned position table (GPT-2, BERT)
    std::int64_t max_position = 0;
    // Attention that keeps less than a full KV cache. `sliding_window` tokens
    // for `sliding_layers` of the layers (all of them when the config gives a
    // window but no layer pattern: Mistral 7B v0.1); `kv_free_layers` hold no
    // KV cache at all (linear attention, Mamba/SSM blocks of hybrid models)
    // but a fixed state of `state_bytes_per_layer` per sequence.
    std::int64_t sliding_window = 0;
    std::int64_t sliding_layers = 0;
    std::int64_t kv_free_layers = 0;
    std::int64_t state_bytes_per_layer = 0;
    // Gated DeltaNet linear attention (Qwen3-Next, from the linear_* keys): its
    // layers are `kv_free_layers`; q and k have `linear_k_heads` heads of
    // `linear_k_dim`, v `linear_v_heads` of `linear_v_dim`, through a causal
    // convolution of `linear_conv_kernel` taps. 0 heads: no such layers.
    std::int64_t linear_k_heads = 0;
    std::int64_t linear_v_heads = 0;
    std::int64_t linear_k_dim = 0;
    std::int64_t linear_v_dim = 0;
    std::int64_t linear_conv_kernel = 0;
    // Cross-attention layers (Llama 3.2 Vision's cross_attention_layers),
    // counted in `layers` and in `kv_free_layers`: they attend to an image's
    // tokens, whose keys and values are their fixed state.
    std::int64_t cross_attention_layers = 0;
    // Mixture of experts: `experts` routed experts of `moe_intermediate` each,
    // `experts_per_token` active per token, plus always-on shared experts of
    // `shared_intermediate` in total; the first `dense_layers` layers keep a dense MLP.
    std::int64_t experts = 0;
    std::int64_t experts_per_token = 0;
    std::int64_t moe_intermediate = 0;
    std::int64_t shared_intermediate = 0;
    std::int64_t dense_layers = 0;  // layers with a dense MLP (first_k_dense_replace, interleaving)
    bool router_bias = false;       // a bias (or score correction) per expert in the router
    bool expert_bias = false;       // the experts' projections carry biases (gpt-oss)
    bool shared_expert_gate = false;  // a sigmoid gate of width 1 on the shared expert (Qwen)
    // Multi-token-prediction layers the checkpoint stores (GLM-4.5's
    // num_nextn_predict_layers): each a decoder layer of the last layer's kind
    // plus its own copies of the embedding and head, the eh_proj that joins
    // them (2 x hidden to hidden) and three norms. Weights, never a token's
    // active path (engines run them only to draft tokens).
    std::int64_t mtp_layers = 0;
    // The multi-token-prediction layers config.json declares
    // (num_nextn_predict_layers), counted in `mtp_layers` or not (DeepSeek-V3's
    // published 671B leaves its MTP module out): what `--draft mtp` drafts with.
    std::int64_t nextn_predict_layers = 0;
    // Multi-head latent attention (DeepSeek V2/V3): the KV cache holds
    // kv_lora_rank + qk_rope_head_dim values per token and layer.
    std::int64_t q_lora_rank = 0;
    std::int64_t kv_lora_rank = 0;
    std::int64_t qk_rope_head_dim = 0;
    std::int64_t qk_nope_head_dim = 0;
    std::int64_t v_head_dim = 0;
    // Encoder-decoder (T5): `layers` encoder layers plus `decoder_layers`.
    bool encoder_decoder = false;
    std::int64_t decoder_layers = 0;
    // Encoder-only (BERT): no KV cache, no generation.
    bool encoder_only = false;
    // What the forward is for, and its head: a sequence-classification head
    // of `classifier_labels` outputs (0: none; a causal reranker scores with
    // its language-model head). An embedding model has no language-model head.
    ModelTask task = ModelTask::Generate;
    std::int64_t classifier_labels = 0;
    std::int64_t extra_params = 0;  // small model-specific tensors (token types, pooler)
    // A vision encoder and its projector (vision_config of a multimodal
    // checkpoint): part of the weights, run on image tokens rather than per
    // text token. `vision_model` names the family counted ("" = none).
    std::string vision_model;
    std::int64_t vision_linear = 0;
    std::int64_t vision_other = 0;  // patch and position embeddings, norms, biases
    std::string vision_unknown;     // a vision_config of a family not counted
    VisionTower vision;             // its shape, for the images of a request
    // The checkpoint's own weight format (quantization_config), if it has one.
    std::optional<CheckpointQuant> quantization;
    std::string torch_dtype;
    bool inferred = false;  // shape guessed from a parameter count

    bool is_moe() const { return experts > 0; }
    // One forward per sequence, no decode (embedding and reranker models).
    bool pools() const { return task != ModelTask::Generate; }
    // The checkpoint holds a language-model head (untied, or tied to the embedding).
    bool has_lm_head() const {
        return task == ModelTask::Generate || (task == ModelTask::Rerank && classifier_labels == 0);
    }
    bool is_mla() const { return kv_lora_rank > 0; }
    std::int64_t q_dim() const { return heads * head_dim; }
    std::int64_t kv_dim() const { return kv_heads * head_dim; }
    bool linear_attention() const { return linear_k_heads > 0 && linear_v_heads > 0; }
    std::int64_t total_layers() const { return layers + decoder_layers; }
    // Layers that keep a KV cache growing with the context.
    std::int64_t kv_layers() const;
};

// Parameters split the way memory and quantisation care about: quantised
// formats (GPTQ, AWQ, NF4, LLM.int8) replace the linear weights of the blocks
// and keep embeddings, head and norms in 16-bit.
struct ParamCounts {
    std::uint64_t embedding = 0;      // token (+ learned position) embeddings
    std::uint64_t lm_head = 0;        // 0 when tied
    std::uint64_t block_linear = 0;   // every linear weight of every block (all experts)
    std::uint64_t active_linear = 0;  // block linear weights one token touches
    std::uint64_t other = 0;          // norms, biases, routers, extras
    // Of block_linear: every routed expert's weights (what expert parallel
    // splits); of active_linear: the routed experts one token passes.
    std::uint64_t routed_experts = 0;
    std::uint64_t routed_active = 0;
    // Of block_linear, the rest of what a format can leave in 16-bit:
    // attention (and linear-attention) projections, shared experts, and a
    // vision encoder's linear weights (not in active_linear: it runs once per
    // image). The dense MLP is what remains.
    std::uint64_t attention_linear = 0;
    std::uint64_t shared_experts = 0;
    std::uint64_t vision_linear = 0;
    std::uint64_t vision_other = 0;  // of other
    std::uint64_t total() const { return embedding + lm_head + block_linear + other; }
    std::uint64_t active() const { return embedding + lm_head + active_linear + other; }
};

ParamCounts count_params(const Architecture& arch);

// The block linear weights a format's scope covers (all of block_linear for
// the full scope); the rest of block_linear stays in 16-bit.
std::uint64_t quantized_linear(const ParamCounts& counts, const QuantScope& scope);

// Throws InputError naming `source` and the field when a shape is missing or
// absurd. Every architecture, however built, passes through here.
void validate_architecture(const Architecture& arch, std::string_view source);

// Parses a Hugging Face config.json (also GPT-2/NeoX/Falcon/Phi/T5/BERT
// spellings, and Gemma 3's nested text_config).
Architecture parse_hf_config(std::string_view json_text, std::string_view source);
namespace json {
class Value;
}
Architecture architecture_from_json(const json::Value& config, std::string_view source);

// A Llama-3-style decoder with about `params` parameters (documented in
// docs/memory-model.md): head_dim 128, 8 KV heads, FFN 3.5 x hidden,
// hidden/layers = 128, vocab 128256 (32000 below 1B), tied below 4B.
Architecture infer_architecture(std::uint64_t params);

// A family's generation (data/models.json "generations"): when it was
// released, and the name fragments that recognise it in a file's or a
// folder's name ("llama-3.1", "qwen3"), for fit's quality proxy.
struct ModelGeneration {
    std::string id;        // "llama-3.1"
    std::string family;    // "llama"
    std::string released;  // "2024-07"
    std::vector<std::string> match;
    std::string source;
};

// How fit orders models that fit alike (data/models.json "quality_proxy"):
// log2(parameters) + (release - reference) / halving_months.
struct QualityProxy {
    std::string reference;  // "2024-01": the release counted for a model of unknown release
    double halving_months = 16;
    std::string source;
};

struct ModelGenerations {
    std::vector<ModelGeneration> rows;
    QualityProxy proxy;
};

ModelGenerations parse_model_generations(std::string_view json_text, std::string_view source);
// The generation a name belongs to ("Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf"
// -> llama-3.1): the longest match fragment it contains; nullptr for none.
const ModelGeneration* match_generation(const ModelGenerations& g, std::string_view name);
// Months since year 0 of "2024-07"; nullopt when it is not YYYY-MM.
std::optional<int> release_months(std::string_view yyyy_mm);

struct ModelPreset {
    std::string id;
    std::string name;
    std::vector<std::string> aliases;
    std::string hf_repo;
    std::uint64_t published_params = 0;
    std::string params_note;
    std::string source;
    Architecture arch;
    // Image generation and vision presets ("kind": "diffusion" or "vision")
    // carry their pipeline instead of a language model's config.
    std::optional<ImageModel> image;
    // Its generation (data/models.json "generations") and release month
    // (the generation's, or the preset's own "released").
    std::string generation, family, released;
};

std::vector<ModelPreset> parse_model_presets(std::string_view json_text, std::string_view source);

// Finds a preset by id, alias or HF repo, forgivingly; nullptr when the name
// does not look like any preset (the caller then tries a size like "8B").
const ModelPreset* find_preset(const std::vector<ModelPreset>& presets, std::string_view name);
// True when `name` reads as a parameter count ("8B", "1.5e9", "-7B" to be
// rejected as a size) rather than as a preset name.
bool looks_like_size(std::string_view name);
// Throws InputError with a did-you-mean for a name that is neither a preset nor a size.
[[noreturn]] void throw_unknown_model(const std::vector<ModelPreset>& presets,
                                      std::string_view name);

// --- images in a request (model_image_tokens.cpp) ------------------------------
// One family's preprocessing figures that config.json does not hold
// (data/models.json "vision_inputs"): pixel budgets, the tokens around each
// image, break tokens; each with its source. The mechanism is the code's.
struct VisionInputFigure {
    std::string name;
    std::int64_t value = 0;
    std::string source;
};
struct VisionInputRule {
    std::string model_type;  // the config's top-level model_type: "qwen2_5_vl"
    std::string name;        // "Qwen2.5-VL"
    ImageInput input = ImageInput::None;
    std::vector<VisionInputFigure> figures;
    // A figure the mechanism needs; every one is checked present when parsed.
    std::int64_t figure(std::string_view figure_name) const;
};
std::vector<VisionInputRule> parse_vision_inputs(std::string_view json_text,
                                                 std::string_view source);
const VisionInputRule* find_vision_rule(std::span<const VisionInputRule> rules,
                                        std::string_view model_type);
// The mechanism's name as data/models.json and docs/models.md spell it.
std::string_view image_input_name(ImageInput input);

// What one image of width x height pixels becomes in a model.
struct ImageTokens {
    // The size the processor hands the encoder (Mllama: the tiled canvas).
    std::int64_t width = 0, height = 0;
    // Tokens in the language model's sequence: the image's placeholders, row
    // breaks and delimiters (Mllama: its one <|image|> token).
    std::int64_t tokens = 0;
    std::int64_t patches = 0;  // patches the encoder runs on (Mllama: every tile, padding included)
    std::int64_t outputs = 0;  // tokens the merger or projector emits
    std::int64_t tiles = 0;    // Mllama: tiles of the canvas
    // Mllama: the image's tokens whose keys and values each cross-attention
    // layer keeps (tiles x (patches + class token)); 0 for the others.
    std::int64_t cross_tokens = 0;
    // Patches each patch attends to: in the full-attention layers, and in
    // the windowed ones (Qwen2.5-VL; the same as full elsewhere).
    std::int64_t full_span = 0, window_span = 0;
};
// Throws InputError naming `origin` for a size the processor refuses
// (Qwen2.5-VL: a side under its minimum or an aspect ratio over its maximum).
ImageTokens image_tokens_of(const VisionTower& tower, const VisionInputRule& rule,
                            std::int64_t width, std::int64_t height, std::string_view origin);
// FLOPs of one image (2 per multiply-add): the encoder's linear weights over
// its patches, its attention (QK^T and AV over each layer's span), the
// merger or projector over its outputs, and for Llama 3.2 Vision the
// cross-attention layers' key and value projections of its tokens.
double image_encode_flops(const Architecture& a, const ImageTokens& t);
// Elements one patch holds at an encoder layer's peak: the residual, the
// normed input, q, k, v, the attention output and the MLP's intermediates.
double vision_layer_elements(const VisionTower& tower);

// The compiled-in presets (data/models.json): the JSON text, parsed on first use.
namespace embedded {
std::string_view models_json();
const std::vector<ModelPreset>& model_presets();
const ModelGenerations& model_generations();
const std::vector<VisionInputRule>& vision_inputs();
inline constexpr std::string_view kModelsSource = "embedded data/models.json";
}  // namespace embedded

}  // namespace gpuadvise
