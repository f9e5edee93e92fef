// The speed of image workloads: a diffusion pipeline's text encoding,
// denoising steps and VAE decode (with diffusers' offload copies), and a
// vision backbone's forward (and backward) bound by FLOPs or activation
// traffic (docs/image-models.md).
#include <algorithm>
#include <cmath>

#include "gpuadvise/bands.hpp"
#include "gpuadvise/image.hpp"
#include "performance_common.hpp"

namespace gpuadvise::performance_detail {
namespace {

// Image and vision workloads (docs/image-models.md). A diffusion denoiser's
// step runs at 0.34 of the card's attainable matmul rate (data/attainable.json),
// its fused attention at that kernel's own rate where one is measured
// (fused_attention_share): the median over the visible diffusers rows (SD 1.5,
// SDXL, SD3, PixArt-Sigma, FLUX on T4 to H100; bench/data/image_measured.csv)
// of the share each row needs, not one row (the 60 rows' median estimate /
// measured is 1.01 at 0.34; 0.36 before attention had its own rate, 0.30 of
// the datasheet peak before the rates were attainable).
constexpr double kDiffusionComputeShare = 0.34;

// Vision backbones are bound by whichever is slower: FLOPs at a share of the
// attainable rate (the shares were derived over the datasheet peak and are
// kept unchanged), or the bytes their activations move at the card's bandwidth. Training
// moves each counted activation element about 45 times (forward writes and
// reads of the convolution, normalisation and activation, then backward's
// reads of the saved tensors and writes of their gradients), inference about
// 10; the medians over the timm and Lambda rows of every family (ResNet, ViT,
// ConvNeXt, EfficientNet: 43-63 and 6-13 across families).
constexpr double kVisionTrainComputeShare = 0.60;

constexpr double kVisionInferComputeShare = 0.70;

constexpr double kVisionTrainTraffic = 45.0;

constexpr double kVisionInferTraffic = 10.0;

// Fused attention's own rate. diffusers' attention processors call PyTorch's
// scaled_dot_product_attention, which runs FlashAttention-2 for 16-bit
// inputs on compute capability 8.0 and later. Its forward pass reaches
// 50-73 % of an A100's 16-bit peak, the top of that range at the long
// sequences (Dao 2023, "FlashAttention-2", arXiv:2307.08691, abstract and
// section 4.1), and 35 % of an H100's, whose wgmma instructions it does not
// use (Shah et al. 2024, "FlashAttention-3", arXiv:2407.08608, section 1).
// The top is taken: attention is most of a step where sequences are long (a
// 720p clip is 76K tokens). Assumed from those two: Ada (8.9) and consumer
// Blackwell (12.x) run the same mma.sync kernels as Ampere, at Ampere's
// share; datacenter Blackwell (10.x, 11.x), whose tcgen05 instructions
// FlashAttention-2 does not use either, at Hopper's. Elsewhere (Turing's
// memory-efficient kernel, ROCm, Metal) no share is measured and attention
// stays in the diffusion share below.
std::optional<double> fused_attention_share(const Gpu& gpu) {
    if (gpu.platform != SoftwarePlatform::Cuda || !compute_capability_at_least(gpu, 8, 0))
        return std::nullopt;
    const bool hopper_like =
        compute_capability_at_least(gpu, 9, 0) && !compute_capability_at_least(gpu, 12, 0);
    return hopper_like ? 0.35 : 0.73;
}

// accelerate's offload hooks copy each module from pageable host memory when
// it runs: 5.1 GB of SDXL UNet per step took 1.1 s more on an A100 PCIe 4.0
// (HF blog "simple SDXL optimizations"), 15 % of the link. Assumed for every
// card from that one measurement of the mechanism.
constexpr double kPageableCopyShare = 0.15;

// Diffusion: text encoding, `steps` denoiser steps on the batch (twice the
// latents under classifier-free guidance), the VAE decode, and the weights
// diffusers' offload copies in.
void diffusion_performance(Performance& perf, const Workload& w, const DiffusionModel& d,
                           const Gpu& gpu, double attainable, const AttainableRate& matmul) {
    const ImageSettings& s = w.image;
    const double b = static_cast<double>(w.batch);
    // Guidance doubles the forwards, batched or (Wan) one after the other.
    const double samples = b * (d.cfg ? 2.0 : 1.0);
    // A clip's frames (1 for an image): its latent frames multiply the tokens.
    const std::int64_t frames = std::max<std::int64_t>(s.frames, 1);
    const double rate = attainable * 1e12 * kDiffusionComputeShare;
    const double bw = gpu.memory_bandwidth_gbps * 1e9 * platform_efficiency(gpu);
    const double act = w.precision == Precision::Fp32 ? 4.0 : 2.0;
    const double denoiser_bytes = static_cast<double>(d.denoiser_params) *
                                  weight_bytes_per_param(w.quant, w.precision, false);
    // A step reads every weight once; it is bound by FLOPs unless the batch
    // is tiny and the card's bandwidth small.
    // Quantized denoisers dequantize their weights in every matmul (the
    // format's time factor of data/quants.json, as for training and prefill).
    const double dequant = w.quant.format ? w.quant.format->dequant_time_factor : 1.0;
    const double flops = denoiser_flops(d, s.width, s.height, frames);
    // Fused attention at its kernel's share of the 16-bit peak; the rest of
    // the step (and all of it elsewhere) at the diffusion share.
    const std::optional<double> fused = fused_attention_share(gpu);
    const bool split = w.flash_attn && fused && matmul.peak > 0 &&
                       (matmul.dtype == RateDtype::Bf16 || matmul.dtype == RateDtype::Fp16);
    const double attention = split ? denoiser_attention_flops(d, s.width, s.height, frames) : 0.0;
    const double compute =
        (flops - attention) / rate * dequant +
        (split ? attention / (matmul.peak * 1e12 * *fused * platform_efficiency(gpu)) : 0.0);
    double step = std::max(samples * compute, denoiser_bytes / bw);
    // Eager attention materialises every score matrix: fp16 scores written
    // and read by the softmax, its fp32 upcast written and read (diffusers'
    // attention processors upcast the softmax for SD), the fp16
    // probabilities written and read by the product with V: 16 bytes per
    // score element, at the card's bandwidth.
    if (!w.flash_attn)
        step += samples * attention_score_elements(d, s.width, s.height, frames) * 16.0 / bw;
    double encoders_flops = 0, encoders_bytes = 0;
    for (const TextEncoder& t : d.text_encoders) {
        encoders_flops += 2.0 * static_cast<double>(t.params) * static_cast<double>(t.tokens);
        encoders_bytes += static_cast<double>(t.params) * act;
    }
    const double encode =
        std::max((d.cfg ? 2.0 : 1.0) * encoders_flops / rate, encoders_bytes / bw);
    const double decode = b * vae_decode_flops(d, s.width, s.height, frames) / rate;
    const double vae_bytes = static_cast<double>(d.vae_params) * act;
    double copies = 0;
    const double link = gpu.pcie_gbps().value_or(16.0) * 1e9 * kPageableCopyShare;
    if (!gpu.shares_host_memory()) {
        // Model offload moves each component in once (every expert of a
        // mixture: Wan2.2 swaps them at the boundary step).
        if (s.offload == CpuOffload::Model)
            copies =
                (encoders_bytes + denoiser_bytes * static_cast<double>(d.experts) + vae_bytes) /
                link;
        else if (s.offload == CpuOffload::Sequential)
            copies =
                (encoders_bytes + vae_bytes + static_cast<double>(s.steps) * denoiser_bytes) / link;
    }
    const double batch_seconds = encode + static_cast<double>(s.steps) * step + decode + copies;
    perf.denoise_step_seconds = step;
    if (w.generates_video()) {
        // A clip: its seconds, and the video frames the plan's GPUs make a second.
        perf.seconds_per_clip = batch_seconds / b;
        perf.video_frames_per_s =
            b * static_cast<double>(s.frames) * static_cast<double>(w.gpus) / batch_seconds;
    } else {
        perf.seconds_per_image = batch_seconds / b;
        perf.images_per_s = b * static_cast<double>(w.gpus) / batch_seconds;
    }
    perf.bound = samples * compute >= denoiser_bytes / bw ? Bound::Compute : Bound::Memory;
}

// Vision backbones: the slower of FLOPs at a share of the attainable rate and the
// activation bytes at the card's bandwidth, per image; DDP adds the gradient
// all-reduce of each step, half hidden behind backward.
void vision_performance(Performance& perf, const Workload& w, const VisionModel& v, const Gpu& gpu,
                        double attainable, const PlanLinks& links) {
    const ImageSettings& s = w.image;
    const bool training = w.trains();
    const double b = static_cast<double>(w.batch);
    const double act = w.precision == Precision::Fp32 ? 4.0 : 2.0;
    const double eff = platform_efficiency(gpu);
    const double flops = vision_flops(v, s.width, s.height) * (training ? 3.0 : 1.0);
    const double share = training ? kVisionTrainComputeShare : kVisionInferComputeShare;
    const double traffic = vision_activations(v, s.width, s.height) * act *
                           (training ? kVisionTrainTraffic : kVisionInferTraffic);
    const double compute_time = flops / (attainable * 1e12 * share);
    const double memory_time = traffic / (gpu.memory_bandwidth_gbps * 1e9 * eff);
    const double per_image = std::max(compute_time, memory_time);
    perf.bound = compute_time >= memory_time ? Bound::Compute : Bound::Memory;
    // Forward and backward launch about three times a forward's kernels.
    double step = std::max(
        b * per_image, static_cast<double>(v.depth) * kEagerLayerSeconds * (training ? 3.0 : 1.0));
    if (training && w.gpus > 1) {
        const double grads = static_cast<double>(w.model.params) * 4.0;
        step +=
            all_reduce_seconds(links, static_cast<double>(w.gpus), grads) * (1.0 - kCommOverlap);
    }
    if (training) {
        perf.micro_step_seconds = step;
        perf.step_seconds = step * static_cast<double>(w.grad_accum);
    }
    perf.seconds_per_image = step / b;
    perf.images_per_s = b * static_cast<double>(w.gpus) / step;
    if (s.streams > 0 && s.fps > 0) perf.streams_max = *perf.images_per_s / s.fps;
}

}  // namespace

void image_performance(Performance& perf, const Workload& w, const Gpu& gpu,
                       const PlanLinks& links) {
    // The attainable matmul rate of the compute precision (TF32 for fp32 where
    // the card has it), not the datasheet peak: an FP8 checkpoint's weights
    // are upcast to it (diffusers' layerwise casting, ComfyUI without --fast).
    const RateDtype dtype = w.precision == Precision::Fp32
                                ? (gpu.tflops.tf32 ? RateDtype::Tf32 : RateDtype::Fp32)
                            : w.precision == Precision::Fp16 ? RateDtype::Fp16
                                                             : RateDtype::Bf16;
    const AttainableRate rate = attainable_rate(gpu, dtype);
    if (!rate.tflops) return;  // no sourced peak: no speed, said so by the table
    const double attainable = *rate.tflops * compute_platform_factor(gpu, rate);
    perf.matmul_rate = rate;
    const ImageModel& m = *w.model.image;
    if (m.diffusion)
        diffusion_performance(perf, w, *m.diffusion, gpu, attainable, rate);
    else
        vision_performance(perf, w, *m.vision, gpu, attainable, links);
    if (const ErrorBand* band =
            error_bands().find(BandQuantity::Images, kImageFamilies.name(m.family)))
        perf.images_band = std::pair{band->low, band->high};
    for (auto* v : {&perf.images_per_s, &perf.seconds_per_image, &perf.denoise_step_seconds,
                    &perf.streams_max, &perf.step_seconds, &perf.micro_step_seconds,
                    &perf.seconds_per_clip, &perf.video_frames_per_s})
        if (*v && !std::isfinite(**v)) v->reset();
}

}  // namespace gpuadvise::performance_detail
