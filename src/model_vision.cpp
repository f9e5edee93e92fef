// Vision towers a config.json describes (SigLIP for Gemma 3, Qwen2.5-VL,
// Mllama, Llama 4, Pixtral for Mistral 3), counted from each family's
// transformers modules, and Llama 3.2 Vision's cross-attention state.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "gpuadvise/error.hpp"
#include "gpuadvise/json.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/text.hpp"
#include "model_common.hpp"

namespace gpuadvise::model_detail {
namespace {

// The tokens one image becomes in Llama 3.2 Vision: max_num_tiles tiles of
// (image_size / patch_size)^2 patches plus a class token each.
double mllama_image_tokens(const json::Value& vision, std::string_view source) {
    const double image = dim(vision, "image_size", 448, source);
    const double patch = std::max(1.0, dim(vision, "patch_size", 14, source));
    const double side = std::floor(image / patch);
    return dim(vision, "max_num_tiles", 4, source) * (side * side + 1);
}
// A vision encoder's parameters by family. Each count follows the family's
// transformers modules; absent keys take the configuration class's default.
struct VisionCount {
    double linear = 0, other = 0;
    VisionTower tower;  // the shape, for the images of a request
};
// The widths every family shares, read once.
void tower_widths(VisionTower& t, double h, double i, double layers, double heads, double patch) {
    t.hidden = static_cast<std::int64_t>(h);
    t.intermediate = static_cast<std::int64_t>(i);
    t.layers = static_cast<std::int64_t>(layers);
    t.heads = static_cast<std::int64_t>(heads);
    t.patch = static_cast<std::int64_t>(patch);
    t.full_attention_layers = t.layers;
}
// SigLIP (modeling_siglip.py, SiglipVisionConfig defaults) with Gemma 3's
// projector: mm_input_projection_weight (vision x text hidden) and an RMSNorm.
VisionCount siglip_for_gemma3(const json::Value& root, const json::Value& v, double text_hidden,
                              std::string_view source) {
    const double h = dim(v, "hidden_size", 768, source);
    const double i = dim(v, "intermediate_size", 3072, source);
    const double layers = dim(v, "num_hidden_layers", 12, source);
    const double channels = dim(v, "num_channels", 3, source);
    const double patch = std::max(1.0, dim(v, "patch_size", 16, source));
    const double side = std::floor(dim(v, "image_size", 224, source) / patch);
    VisionCount c;
    c.other = channels * patch * patch * h + h + side * side * h;  // patch conv, positions
    c.linear = layers * (4 * h * h + 2 * h * i);
    c.other += layers * (4 * h + i + h + 4 * h) + 2 * h;  // biases, LayerNorms, post norm
    if (bool_field(v, "vision_use_head", true, source)) {
        // MultiheadAttentionPoolingHead: probe, attention, LayerNorm, MLP.
        c.linear += 4 * h * h + 2 * h * i;
        c.other += h + 4 * h + 2 * h + i + h;
    }
    c.other += h * text_hidden + h;
    // Gemma3MultiModalProjector pools the patches to mm_tokens_per_image
    // (Gemma3Config's default 256) and projects each to the text width.
    VisionTower& t = c.tower;
    t.input = ImageInput::Pooled;
    tower_widths(t, h, i, layers, dim(v, "num_attention_heads", 12, source), patch);
    t.image_size = static_cast<std::int64_t>(dim(v, "image_size", 224, source));
    t.pooled_tokens = static_cast<std::int64_t>(dim(root, "mm_tokens_per_image", 256, source));
    if (t.pooled_tokens < 1 || t.pooled_tokens > static_cast<std::int64_t>(side * side))
        throw InputError(fmt::format("{}: 'mm_tokens_per_image' = {} must be 1 to the {} patches",
                                     source, t.pooled_tokens, side * side));
    t.patch_linear = static_cast<std::int64_t>(layers * (4 * h * h + 2 * h * i));
    t.token_linear = static_cast<std::int64_t>(h * text_hidden);
    t.output_hidden = static_cast<std::int64_t>(text_hidden);
    return c;
}
// Qwen2.5-VL's vision transformer (modeling_qwen2_5_vl.py): a Conv3d patch
// embedding, blocks of RMSNorm + fused qkv attention + gated MLP with biases,
// and the patch merger (spatial_merge_size^2 patches -> out_hidden_size).
VisionCount qwen2_5_vl_vision(const json::Value& v, double text_hidden, std::string_view source) {
    const double h = dim(v, "hidden_size", 3584, source);
    const double i = dim(v, "intermediate_size", 3420, source);
    const double depth = dim(v, "depth", 32, source);
    const double channels = dim(v, "in_chans", int_or(v, "in_channels", 3, source), source);
    const double patch = dim(v, "patch_size", 14, source);
    const double temporal = dim(v, "temporal_patch_size", 2, source);
    const double merge = dim(v, "spatial_merge_size", 2, source);
    const double out = dim(v, "out_hidden_size", static_cast<std::int64_t>(text_hidden), source);
    VisionCount c;
    c.other = channels * temporal * patch * patch * h;
    c.linear = depth * (4 * h * h + 3 * h * i);
    c.other += depth * (2 * h + 4 * h + 2 * i + h);
    const double merged = h * merge * merge;
    c.linear += merged * merged + merged * out;
    c.other += h + merged + out;
    // Windowed attention (Qwen2_5_VLVisionConfig: window_size 112 pixels)
    // except in the fullatt_block_indexes layers (default 7, 15, 23, 31).
    VisionTower& t = c.tower;
    t.input = ImageInput::DynamicResolution;
    tower_widths(t, h, i, depth, dim(v, "num_heads", 16, source), patch);
    t.gated_mlp = true;
    t.merge = static_cast<std::int64_t>(merge);
    t.window = static_cast<std::int64_t>(dim(v, "window_size", 112, source));
    const std::vector<std::int64_t> full = index_list(v, "fullatt_block_indexes", source);
    t.full_attention_layers = v.find("fullatt_block_indexes")
                                  ? static_cast<std::int64_t>(full.size())
                                  : std::min<std::int64_t>(4, t.layers);
    t.full_attention_layers = std::min(t.full_attention_layers, t.layers);
    t.patch_linear = static_cast<std::int64_t>(depth * (4 * h * h + 3 * h * i));
    t.token_linear = static_cast<std::int64_t>(merged * merged + merged * out);
    t.output_hidden = static_cast<std::int64_t>(out);
    return c;
}
// Llama 3.2 Vision's encoder (modeling_mllama.py): tiled patches with gated
// position and aspect-ratio embeddings, a local and a gated global
// transformer, and the projector to the text width.
VisionCount mllama_vision(const json::Value& v, double text_hidden, std::string_view source) {
    const double h = dim(v, "hidden_size", 1280, source);
    const double i = dim(v, "intermediate_size", 5120, source);
    const double layers = dim(v, "num_hidden_layers", 32, source);
    const double global = dim(v, "num_global_layers", 8, source);
    const double channels = dim(v, "num_channels", 3, source);
    const double patch = std::max(1.0, dim(v, "patch_size", 14, source));
    const double side = std::floor(dim(v, "image_size", 448, source) / patch);
    const double tiles = dim(v, "max_num_tiles", 4, source);
    double ratios = 8;  // MllamaVisionConfig's supported_aspect_ratios
    if (const auto r = v.find("supported_aspect_ratios"); r && r->is_array())
        ratios = static_cast<double>(r->size());
    const double out = dim(v, "vision_output_dim", 7680, source);
    const double patches = side * side + 1;
    VisionCount c;
    c.other = channels * patch * patch * h + h + 1 + patches * h +
              (ratios + 1) * tiles * patches * h + 2 * ((ratios + 1) * tiles * h + 1) + 4 * h;
    c.linear = (layers + global) * (4 * h * h + 2 * h * i);
    c.other += (layers + global) * (i + h + 4 * h) + 2 * global;
    c.linear += out * text_hidden;
    c.other += text_hidden;
    // Every tile's patches and class token run through the local and the
    // global layers, then the projector, one image's tiles attending together.
    VisionTower& t = c.tower;
    t.input = ImageInput::Tiles;
    tower_widths(t, h, i, layers + global, dim(v, "attention_heads", 16, source), patch);
    t.image_size = static_cast<std::int64_t>(dim(v, "image_size", 448, source));
    t.max_tiles = static_cast<std::int64_t>(tiles);
    t.patch_linear = static_cast<std::int64_t>((layers + global) * (4 * h * h + 2 * h * i));
    t.token_linear = static_cast<std::int64_t>(out * text_hidden);
    t.output_hidden = static_cast<std::int64_t>(text_hidden);
    return c;
}
// Llama 4's vision encoder (modeling_llama4.py): an unfolded-patch linear, a
// class token and positions, LayerNorm'd transformer with biases, the pixel
// shuffle MLP and the projector to the text width.
VisionCount llama4_vision(const json::Value& v, double text_hidden, std::string_view source) {
    const double h = dim(v, "hidden_size", 768, source);
    const double i = dim(v, "intermediate_size", 5632, source);
    const double layers = dim(v, "num_hidden_layers", 34, source);
    const double channels = dim(v, "num_channels", 3, source);
    const double patch = std::max(1.0, dim(v, "patch_size", 14, source));
    const double side = std::floor(dim(v, "image_size", 448, source) / patch);
    const double out = dim(v, "vision_output_dim", 7680, source);
    const double in_proj = dim(v, "projector_input_dim", 4096, source);
    const double out_proj = dim(v, "projector_output_dim", 4096, source);
    VisionCount c;
    c.linear = channels * patch * patch * h;
    c.other = h + (side * side + 1) * h + 4 * h;
    c.linear += layers * (4 * h * h + 2 * h * i);
    c.other += layers * (4 * h + i + h + 4 * h);
    c.linear += i * in_proj + out_proj * out_proj + out * text_hidden;
    if (bool_field(v, "multi_modal_projector_bias", false, source)) c.other += text_hidden;
    return c;
}
// Pixtral (modeling_pixtral.py) with Mistral 3's projector: RMSNorm, the
// patch merger (spatial_merge_size^2 patches -> one) and two linears to the
// text width.
VisionCount pixtral_for_mistral3(const json::Value& root, const json::Value& v, double text_hidden,
                                 std::string_view source) {
    const double h = dim(v, "hidden_size", 1024, source);
    const double i = dim(v, "intermediate_size", 4096, source);
    const double layers = dim(v, "num_hidden_layers", 24, source);
    const double channels = dim(v, "num_channels", 3, source);
    const double patch = dim(v, "patch_size", 16, source);
    const double merge = dim(root, "spatial_merge_size", 2, source);
    VisionCount c;
    c.other = channels * patch * patch * h + h;
    c.linear = layers * (4 * h * h + 3 * h * i);
    c.other += layers * 2 * h;
    c.other += h;
    c.linear += h * merge * merge * h + h * text_hidden + text_hidden * text_hidden;
    if (bool_field(root, "multimodal_projector_bias", false, source)) c.other += 2 * text_hidden;
    // Images keep their aspect ratio under a longest side of image_size.
    VisionTower& t = c.tower;
    t.input = ImageInput::PatchRows;
    tower_widths(t, h, i, layers, dim(v, "num_attention_heads", 16, source), patch);
    t.gated_mlp = true;
    t.merge = static_cast<std::int64_t>(merge);
    t.image_size = static_cast<std::int64_t>(dim(v, "image_size", 1024, source));
    t.patch_linear = static_cast<std::int64_t>(layers * (4 * h * h + 3 * h * i));
    t.token_linear = static_cast<std::int64_t>(h * merge * merge * h + h * text_hidden +
                                               text_hidden * text_hidden);
    t.output_hidden = static_cast<std::int64_t>(text_hidden);
    return c;
}
}  // namespace

// Llama 3.2 Vision's cross-attention layers (text_config's
// cross_attention_layers): they hold no KV of the text, only the keys and
// values of the image's tokens, a fixed state per sequence.
void read_cross_attention(const json::Value& root, const json::Value& j, Architecture& a,
                          std::string_view source) {
    const std::vector<std::int64_t> layers = index_list(j, "cross_attention_layers", source);
    if (layers.empty()) return;
    if (static_cast<std::int64_t>(layers.size()) >= a.layers)
        throw InputError(fmt::format(
            "{}: 'cross_attention_layers' lists {} layers of {}; some must be self-attention",
            source, layers.size(), a.layers));
    a.cross_attention_layers = static_cast<std::int64_t>(layers.size());
    a.kv_free_layers = a.cross_attention_layers;
    double tokens = 0;
    if (const auto vision = root.find("vision_config"); vision && vision->is_object())
        tokens = mllama_image_tokens(*vision, fmt::format("{} vision_config", source));
    a.state_bytes_per_layer = bounded_count(tokens * 2.0 * static_cast<double>(a.kv_dim()) * 2.0,
                                            "image's key/value state", source);
}
// The vision encoder of a multimodal config.json (vision_config), counted
// for the families above; another family is named in vision_unknown.
void read_vision(const json::Value& root, Architecture& a, std::string_view source) {
    const auto vision = root.find("vision_config");
    if (!vision || !vision->is_object()) return;
    const std::string top = string_field(root, "model_type", source);
    const std::string type = string_field(*vision, "model_type", source);
    const std::string vsource = fmt::format("{} vision_config", source);
    const double text_hidden = static_cast<double>(a.hidden);
    std::optional<VisionCount> c;
    std::string_view family;  // the key of its rule in data/models.json "vision_inputs"
    if (top == "gemma3" && (type.empty() || type == "siglip_vision_model")) {
        c = siglip_for_gemma3(root, *vision, text_hidden, vsource);
        family = "gemma3";
    } else if (top == "qwen2_5_vl") {
        c = qwen2_5_vl_vision(*vision, text_hidden, vsource);
        family = "qwen2_5_vl";
    } else if (top == "mllama" || type == "mllama_vision_model") {
        c = mllama_vision(*vision, text_hidden, vsource);
        family = "mllama";
    } else if (top == "llama4" || type == "llama4_vision_model") {
        c = llama4_vision(*vision, text_hidden, vsource);
        family = "llama4";
    } else if (top == "mistral3" && (type.empty() || type == "pixtral")) {
        c = pixtral_for_mistral3(root, *vision, text_hidden, vsource);
        family = "mistral3";
    }
    if (!c) {
        a.vision_unknown = type.empty() ? top : type;
        if (a.vision_unknown.empty()) a.vision_unknown = "unnamed";
        return;
    }
    a.vision_model = type.empty() ? top : type;
    a.vision_linear = bounded_count(c->linear, "vision encoder", vsource);
    a.vision_other = bounded_count(c->other, "vision encoder", vsource);
    a.vision = c->tower;
    a.vision.family = std::string(family);
    if (a.vision.modelled() &&
        (a.vision.patch < 1 || a.vision.hidden < 1 || a.vision.layers < 1 || a.vision.merge < 1))
        throw InputError(
            fmt::format("{}: the vision tower needs a patch_size, hidden_size, layers and a merge "
                        "of at least 1",
                        vsource));
}

}  // namespace gpuadvise::model_detail
