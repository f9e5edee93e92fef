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
// The software a diffusion pipeline runs in (--image-setup): diffusers'
// pipelines as their docs run them, or ComfyUI's defaults (models loaded
// when a node needs them and moved out when another needs the memory,
// KSampler's 20 steps, the VAE in bf16).
enum class ImageSetup : std::uint8_t { Diffusers, Comfyui };

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
inline constexpr auto kImageSetups = make_enum_table<ImageSetup>(
    {{ImageSetup::Diffusers, "diffusers"}, {ImageSetup::Comfyui, "comfyui"}});

struct TextEncoder {
    std::string name;
    std::uint64_t params = 0;
    std::int64_t tokens = 0;  // the pipeline's default prompt length for this encoder
};

// A video diffusion model's clip (the `video` object of a preset's `image`):
// its causal 3D VAE keeps the first frame and compresses every following
// `temporal_downsample` frames into one latent frame, so N frames are
// 1 + (N - 1) / temporal_downsample latent frames (Wan, HunyuanVideo,
// CogVideoX, LTX-Video); N must be 1 + a multiple of it.
struct VideoShape {
    std::int64_t temporal_downsample = 4;
    std::int64_t default_frames = 1;
    std::int64_t default_width = 0, default_height = 0;
    double fps = 16;  // the frame rate its clips are written at
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
    // What each DiT block does beside its matrix products, which diffusers
    // runs as separate eager kernels: RMS- or layer-normalised queries and
    // keys (qk_norm: SD3.5, FLUX, Wan, HunyuanVideo, LTX-Video, CogVideoX) and
    // rotary position embeddings applied in fp32 (rope: FLUX, Wan,
    // HunyuanVideo, LTX-Video, CogVideoX-5B).
    bool qk_norm = false, rope = false;
    std::vector<TextEncoder> text_encoders;
    std::uint64_t vae_params = 0;
    std::vector<std::int64_t> vae_channels;  // decoder channels per level, full resolution first
    std::int64_t vae_blocks = 3;             // resnet blocks per decoder level
    bool vae_upcast = false;  // decoded in fp32 under fp16 compute (SDXL's force_upcast)
    std::int64_t latent_channels = 4, downsample = 8;
    std::int64_t default_resolution = 512, default_steps = 50;
    bool cfg = true;  // classifier-free guidance runs the denoiser on 2 x batch latents
    // Guidance as two forwards of one batch each (Wan's generate.py and
    // diffusers' WanPipeline): the same FLOPs, half the live activations.
    bool cfg_sequential = false;
    // Denoisers of which one runs per step (Wan2.2 A14B: a high-noise and a
    // low-noise expert of `denoiser_params` each); all are resident unless
    // --cpu-offload moves the idle ones out.
    std::int64_t experts = 1;
    // Images whose latents join the sequence as context (FLUX.1 Kontext's
    // input image, taken at the output's size).
    std::int64_t reference_images = 0;
    std::optional<VideoShape> video;  // a video generation model
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
    // What one denoising step runs: every expert but one of a mixture left out.
    std::uint64_t active_params() const;
};

// The `image` object of a preset; `kind` is the preset's "kind".
ImageModel image_model_from_json(json::Value value, ImageFamily kind, std::string_view source,
                                 const json::Path* path);

// Latent frames of a clip of `frames` frames: 1 + (frames - 1) /
// temporal_downsample for a video model, 1 for an image model.
std::int64_t latent_frames(const DiffusionModel& d, std::int64_t frames);
// Positions of one latent frame (the VAE's grid, before a DiT's patches).
double latent_positions(const DiffusionModel& d, std::int64_t width, std::int64_t height);

// Tokens the denoiser attends over for one latent of `width` x `height`
// pixels (the latent's patches; of every latent frame of a clip of `frames`
// frames, and of any reference images), and the text tokens of its prompt.
std::int64_t image_tokens(const DiffusionModel& d, std::int64_t width, std::int64_t height,
                          std::int64_t frames = 1);
std::int64_t text_tokens(const DiffusionModel& d);

// Elements of the attention score matrices of one denoiser forward of one
// latent (every head of every self-attention layer): what eager attention
// writes and reads that fused attention does not.
double attention_score_elements(const DiffusionModel& d, std::int64_t width, std::int64_t height,
                                std::int64_t frames = 1);
// FLOPs of one denoiser forward of one latent; of one VAE decode of one image
// (of every frame of a clip, through 3x3x3 convolutions, for video).
double denoiser_flops(const DiffusionModel& d, std::int64_t width, std::int64_t height,
                      std::int64_t frames = 1);
// The part of denoiser_flops that is attention (the scores and their product
// with V, 4 n^2 h a layer), which fused attention kernels run at their own
// rate; 0 for a UNet, whose FLOPs are one figure at a reference size.
double denoiser_attention_flops(const DiffusionModel& d, std::int64_t width, std::int64_t height,
                                std::int64_t frames = 1);
double vae_decode_flops(const DiffusionModel& d, std::int64_t width, std::int64_t height,
                        std::int64_t frames = 1);

// One eager forward of a denoiser (image_work.cpp), split by the kind of
// kernel that runs each part, for one latent sample unless said otherwise.
// A UNet's parts are its levels (whose work and launches differ: SD 1.5's
// first level is mostly attention, its last mostly launches); a DiT's blocks
// are one part.
struct DenoiserPart {
    double matmul_flops = 0;     // linear layers and convolutions
    double conv_flops = 0;       // of which convolutions (cuDNN)
    double attention_flops = 0;  // the scores and their product with V (4 n^2 d a layer)
    // The same at the head size fused attention kernels compute: FlashAttention
    // and PyTorch's memory-efficient kernel pad a head to a multiple of 32
    // (SD 1.5's 40-wide heads run as 64).
    double fused_attention_flops = 0;
    double score_elements = 0;    // every head's score matrix (what eager attention writes)
    double attention_tokens = 0;  // the sequence its self-attention runs over
    // Elements the bandwidth-bound kernels read and write (normalisations,
    // activations, modulations, residual adds, layout copies, fp32 rotary
    // embeddings), in units of the compute dtype.
    double elementwise_elements = 0;
    double kernels = 0;  // kernels the part launches in one forward, whatever the batch
    double linears = 0;  // its linear layers' weight matrices (what weight formats quantise)
};
struct DenoiserWork {
    std::vector<DenoiserPart> parts;
    DenoiserPart total() const;
};
DenoiserWork denoiser_work(const DiffusionModel& d, std::int64_t width, std::int64_t height,
                           std::int64_t frames = 1);
// The VAE decoder's bandwidth-bound elements (normalisations, activations,
// residual adds and upsampling) for one image or one clip, in elements.
double vae_decode_elementwise(const DiffusionModel& d, std::int64_t width, std::int64_t height,
                              std::int64_t frames = 1);
// FLOPs and activation elements of one image through a vision backbone.
double vision_flops(const VisionModel& v, std::int64_t width, std::int64_t height);
double vision_activations(const VisionModel& v, std::int64_t width, std::int64_t height);

}  // namespace gpuadvise
