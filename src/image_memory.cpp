// The memory of image workloads: a diffusion pipeline's denoiser, text
// encoders and VAE at the denoiser's peak (or the VAE decode's), and a vision
// model's weights, training state and activations. The language-model
// components are memory.cpp's; both fill the same Components.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpuadvise/memory.hpp"
#include "gpuadvise/units.hpp"
#include "memory_common.hpp"

namespace gpuadvise::memory_detail {
namespace {

// Activations one latent sample holds at the denoiser's peak, in elements.
double denoiser_live_elements(const Workload& w, const DiffusionModel& d) {
    const ImageSettings& s = w.image;
    if (d.denoiser == DenoiserKind::Dit) {
        // One block's live tensors at the MLP: the residual, the normed input,
        // the MLP's hidden layer and its activation (2 + 2 x ratio widths).
        const double n = static_cast<double>(
            image_tokens(d, s.width, s.height, std::max<std::int64_t>(s.frames, 1)));
        const double l = n + (d.joint_attention ? static_cast<double>(text_tokens(d)) : 0.0);
        double e = l * static_cast<double>(d.hidden) * (2.0 + 2.0 * d.mlp_ratio);
        if (!w.flash_attn)  // eager attention: the score matrix per head (and fp32 softmax)
            e += static_cast<double>(d.heads) * l * l * 3.0;
        return e;
    }
    // UNet: the skip connections the decoder path consumes (three per level:
    // two resnet outputs and the downsampled output) and, at the full latent
    // resolution, the concatenated skip + upsampled input, its norm,
    // activation and the convolution's output (4 x twice the channels).
    // The latent has whole pixels: the image's size divided down, truncated.
    const std::int64_t latent_w = s.width / d.downsample, latent_h = s.height / d.downsample;
    const double latent = static_cast<double>(latent_w) * static_cast<double>(latent_h);
    double e = 0, pixels = latent;
    for (const std::int64_t c : d.unet_channels) {
        e += 3.0 * static_cast<double>(c) * pixels;
        pixels /= 4.0;
    }
    e += 4.0 * 2.0 * static_cast<double>(d.unet_channels.front()) * latent;
    if (!w.flash_attn) {
        const double tokens = latent / std::pow(4.0, static_cast<double>(d.attention_level));
        e += static_cast<double>(d.attention_heads) * tokens * tokens * 3.0;
    }
    return e;
}

// The VAE decoder's peak for one image, in elements: at full resolution the
// upsampled input of the level above (twice the channels), its convolution
// output, its norm/activation and the first resnet's output.
double vae_live_elements(const DiffusionModel& d, double pixels) {
    const double c0 = static_cast<double>(d.vae_channels[0]);
    const double c1 = static_cast<double>(d.vae_channels[1]);
    return (3.0 * c1 + c0) * pixels;
}

void diffusion_components(const Workload& w, const DiffusionModel& d, Components& c) {
    const ImageSettings& s = w.image;
    const double act = dtype_bytes(w.precision);
    const double b = static_cast<double>(w.batch);
    // Guidance batches the conditional and unconditional latents together,
    // unless the pipeline runs them as two forwards (Wan).
    const double samples = b * (d.cfg && !d.cfg_sequential ? 2.0 : 1.0);
    // One denoiser; a mixture of experts (Wan2.2 A14B) keeps every expert
    // resident unless model offload moves the idle one to the host.
    const double expert = static_cast<double>(d.denoiser_params) *
                          weight_bytes_per_param(w.quant, w.precision, false);
    // ComfyUI loads a model when a node needs it and moves models out when
    // another needs the memory (comfy/model_management.py): its peak is the
    // phase that peaks, as with diffusers' model offload.
    const CpuOffload offload = s.setup == ImageSetup::Comfyui && s.offload == CpuOffload::None
                                   ? CpuOffload::Model
                                   : s.offload;
    const double denoiser =
        expert * (offload == CpuOffload::Model ? 1.0 : static_cast<double>(d.experts));
    double encoders = 0, largest_encoder = 0;
    for (const TextEncoder& t : d.text_encoders) {
        encoders += static_cast<double>(t.params) * act;
        largest_encoder = std::max(largest_encoder, static_cast<double>(t.params) * act);
    }
    // SDXL's pipeline decodes in fp32 when the VAE is fp16 and its config
    // says force_upcast (pipeline_stable_diffusion_xl.py, needs_upcasting).
    // ComfyUI decodes SDXL in bf16 (its VAE's working dtypes bf16, fp32).
    const double vae_dtype =
        d.vae_upcast && w.precision == Precision::Fp16 && s.setup != ImageSetup::Comfyui ? 4.0
                                                                                         : act;
    const double vae = static_cast<double>(d.vae_params) * vae_dtype;
    const double denoise_act = samples * denoiser_live_elements(w, d) * act;
    // Tiling decodes tiles of the VAE's sample size (the pipeline's default
    // resolution) one image at a time; otherwise the whole batch at once.
    const double side = static_cast<double>(d.default_resolution);
    double pixels = s.vae_tiling ? std::min(static_cast<double>(s.width), side) *
                                       std::min(static_cast<double>(s.height), side)
                                 : b * static_cast<double>(s.width) * static_cast<double>(s.height);
    // A causal video VAE decodes latent frame by latent frame with a cache of
    // the frames before (Wan's vae.py decode loop): the frames one latent
    // frame unfolds into are at full resolution at once.
    if (d.video && s.frames > 0)
        pixels *= static_cast<double>(std::min(s.frames, d.video->temporal_downsample));
    const double decode_act = vae_live_elements(d, pixels) * vae_dtype;
    switch (offload) {
        case CpuOffload::None:
            c.weights = denoiser;
            c.text_encoders = encoders;
            c.vae = vae;
            c.activations = std::max(denoise_act, decode_act);
            break;
        case CpuOffload::Model:
            // One component on the GPU at a time: the phase that peaks.
            if (denoiser + denoise_act >= vae + decode_act &&
                denoiser + denoise_act >= largest_encoder) {
                c.weights = denoiser;
                c.activations = denoise_act;
            } else if (vae + decode_act >= largest_encoder) {
                c.vae = vae;
                c.activations = decode_act;
            } else {
                c.text_encoders = largest_encoder;
            }
            break;
        case CpuOffload::Sequential: {
            // One block's weights on the GPU at a time (accelerate hooks per
            // module): a DiT block, or a UNet level's share.
            const double blocks = d.denoiser == DenoiserKind::Dit
                                      ? static_cast<double>(d.blocks)
                                      : 2.0 * 3.0 * static_cast<double>(d.unet_channels.size());
            c.weights = expert / blocks;
            c.activations = std::max(denoise_act, decode_act);
            break;
        }
    }
    if (!w.quant.none() && offload != CpuOffload::Sequential && d.hidden > 0)
        c.workspace = static_cast<double>(d.hidden) * static_cast<double>(d.hidden) * d.mlp_ratio *
                      act;  // one dequantised MLP matrix
}

void vision_components(const Workload& w, const VisionModel& v, Components& c, double* trainable) {
    const ImageSettings& s = w.image;
    const double act = dtype_bytes(w.precision);
    const double b = static_cast<double>(w.batch);
    const double params = static_cast<double>(w.model.params);
    const double elements = vision_activations(v, s.width, s.height);
    const double input = b * 3.0 * static_cast<double>(s.width) * static_cast<double>(s.height);
    if (!w.trains()) {
        c.weights = params * act;
        // Inference frees each output once the next layer has read it: a few
        // tensors of an average layer are live, with the input batch.
        c.activations = b * 4.0 * elements / static_cast<double>(v.depth) * act + input * act;
        return;
    }
    const bool amp = w.mixed == MixedPrecision::Amp && w.precision != Precision::Fp32;
    const double master = (amp || w.precision == Precision::Fp32) ? 4.0 : act;
    *trainable = params;
    c.weights = params * master;
    if (amp) c.workspace = params * act;  // autocast's 16-bit weight copies
    c.gradients = params * master;
    c.optimizer = optimizer_state_bytes(w.optimizer, master, params, 1e9);
    // Backward needs every convolution or matrix product's output (the
    // normalisation's input) and its normalised, activated copy (the next
    // layer's input): two tensors per counted activation element.
    c.activations = 2.0 * elements * b * act + input * act;
}

}  // namespace

void image_components(const Workload& w, Components& c, double* trainable) {
    const ImageModel& m = *w.model.image;
    if (m.diffusion)
        diffusion_components(w, *m.diffusion, c);
    else
        vision_components(w, *m.vision, c, trainable);
}

}  // namespace gpuadvise::memory_detail
