#pragma once
// Image and vision workloads: diffusion pipelines (a UNet or DiT denoiser,
// text encoders and a VAE) and vision backbones (ResNet, ViT, ConvNeXt,
// YOLO), presets of data/models.json with `"kind": "diffusion" | "vision"`.
// Their memory and speed come from the architecture (docs/image-models.md):
// FLOPs per denoising step or per image, the bytes of activations, and the
// card's dense tensor peak and memory bandwidth.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/enum_table.hpp"
#include "gpuadvise/json.hpp"

namespace gpuadvise {

enum class ImageFamily : std::uint8_t { Diffusion, Vision };
enum class DenoiserKind : std::uint8_t { Unet, Dit };
// diffusers' offload modes: enable_model_cpu_offload moves one whole
// component to the GPU at a time; enable_sequential_cpu_offload one layer.
enum class CpuOffload : std::uint8_t { None, Model, Sequential };
enum class Codec : std::uint8_t { H264, Hevc, Av1 };

inline constexpr auto kImageFamilies = make_enum_table<ImageFamily>(
    {{ImageFamily::Diffusion, "diffusion"}, {ImageFamily::Vision, "vision"}});
inline constexpr auto kDenoiserKinds =
    make_enum_table<DenoiserKind>({{DenoiserKind::Unet, "unet"}, {DenoiserKind::Dit, "dit"}});
inline constexpr auto kCpuOffloads =
    make_enum_table<CpuOffload>({{CpuOffload::None, "none"},
                                 {CpuOffload::Model, "model"},
                                 {CpuOffload::Sequential, "sequential"}});
inline constexpr auto kCodecs =
    make_enum_table<Codec>({{Codec::H264, "h264"}, {Codec::Hevc, "hevc"}, {Codec::Av1, "av1"}});

struct TextEncoder {
    std::string name;
    std::uint64_t params = 0;
    std::int64_t tokens = 0;  // the pipeline's default prompt length for this encoder
};

struct DiffusionModel {
    DenoiserKind denoiser = DenoiserKind::Unet;
    std::uint64_t denoiser_params = 0;
    // UNet: multiply-accumulates of one forward of one latent at
    // `ref_resolution` (calflops counts), scaled with the latent's area.
    double unet_gmacs = 0;
    std::int64_t ref_resolution = 0;
    std::vector<std::int64_t> unet_channels;  // per level, full latent resolution first
    std::int64_t attention_level = 0;         // first level with self-attention
    std::int64_t attention_heads = 0;         // at that level
    // Self-attention layers and heads per level (for eager attention's
    // score-matrix traffic); empty when the preset does not state them.
    std::vector<std::int64_t> attention_layers, level_heads;
    // DiT: the transformer's shape. Joint attention (MMDiT: SD3, FLUX) runs
    // image and text tokens through one attention; cross attention (PixArt)
    // attends from image tokens to the text.
    std::int64_t hidden = 0, blocks = 0, heads = 0, patch = 2;
    double mlp_ratio = 4.0;
    bool joint_attention = true;
    std::vector<TextEncoder> text_encoders;
    std::uint64_t vae_params = 0;
    std::vector<std::int64_t> vae_channels;  // decoder channels per level, full resolution first
    std::int64_t vae_blocks = 3;             // resnet blocks per decoder level
    bool vae_upcast = false;  // decoded in fp32 under fp16 compute (SDXL's force_upcast)
    std::int64_t latent_channels = 4, downsample = 8;
    std::int64_t default_resolution = 512, default_steps = 50;
    bool cfg = true;  // classifier-free guidance runs the denoiser on 2 x batch latents
};

struct VisionModel {
    // fvcore counts at `ref_resolution` for one image (timm's benchmark
    // profile): multiply-accumulates and activation elements (outputs of the
    // convolutions and matrix products), both scaled with the image's area.
    double gmacs = 0;
    double activations_m = 0;
    std::int64_t ref_resolution = 224;
    std::int64_t depth = 1;  // layers with weights, for the inference working set
};

struct ImageModel {
    ImageFamily family = ImageFamily::Vision;
    std::uint64_t params = 0;  // every component together
    std::optional<DiffusionModel> diffusion;
    std::optional<VisionModel> vision;
    std::int64_t default_resolution() const;
};

// The `image` object of a preset; `kind` is the preset's "kind".
ImageModel image_model_from_json(json::Value value, ImageFamily kind, std::string_view source,
                                 const json::Path* path);

// Tokens the denoiser attends over for one latent of `width` x `height`
// pixels (the latent's patches), and the text tokens of its prompt.
std::int64_t image_tokens(const DiffusionModel& d, std::int64_t width, std::int64_t height);
std::int64_t text_tokens(const DiffusionModel& d);

// Elements of the attention score matrices of one denoiser forward of one
// latent (every head of every self-attention layer): what eager attention
// writes and reads that fused attention does not.
double attention_score_elements(const DiffusionModel& d, std::int64_t width, std::int64_t height);
// FLOPs of one denoiser forward of one latent; of one VAE decode of one image.
double denoiser_flops(const DiffusionModel& d, std::int64_t width, std::int64_t height);
double vae_decode_flops(const DiffusionModel& d, std::int64_t width, std::int64_t height);
// FLOPs and activation elements of one image through a vision backbone.
double vision_flops(const VisionModel& v, std::int64_t width, std::int64_t height);
double vision_activations(const VisionModel& v, std::int64_t width, std::int64_t height);

}  // namespace gpuadvise
