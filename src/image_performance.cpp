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

// A diffusion step is what its kernels do one after the other
// (docs/image-models.md "Speed"): the matrix products and convolutions at a
// share of the card's attainable matmul rate, attention in its fused kernel
// at that kernel's own rate, and the normalisations, activations and copies
// eager PyTorch runs as separate kernels at the bandwidth; while the host
// launches every kernel from Python, which bounds a step from below when the
// GPU's work is small (SD 1.5 on an H100).
//
// Two coefficients bench/accuracy fits on the visible diffusion rows
// (data/attainable.json "fit"; bench/data/image_measured.csv: SD 1.5, SDXL,
// SD3, PixArt-Sigma and FLUX on T4 to H100): the share of the attainable
// rate the matmuls and convolutions reach ("diffusion_matmul_share"), and
// the host seconds per kernel eager PyTorch launches ("eager_kernel_s":
// Python, the dispatcher, the launch, diffusers' modules around them).
double diffusion_matmul_share() {
    return speed_fit("diffusion_matmul_share");
}
double eager_kernel_seconds() {
    return speed_fit("eager_kernel_s");
}

// Eager attention materialises every score matrix: fp16 scores written and
// read by the softmax, its fp32 upcast written and read (diffusers' attention
// processors upcast the softmax for SD), the fp16 probabilities written and
// read by the product with V: 16 bytes per score element.
constexpr double kEagerScoreBytes = 16.0;

// diffusers' GGUF linears dequantise their weight with PyTorch operations on
// every forward (quantizers/gguf/utils.py, City96's port of ggml's
// dequantisation): an 8-bit block format is one product of the int8 values
// with their scale (the int8 read, the 16-bit write: 3 bytes a weight); the
// 2- to 6-bit formats shift and mask the packed values into a byte tensor,
// mask again, scale and offset it, each a kernel with its own output (about
// 10 bytes a weight). Each such linear launches 1 or 5 extra kernels.
constexpr double kGgufByteDequantBytes = 3.0;
constexpr double kGgufPackedDequantBytes = 10.0;

// Fused attention's own rate, as a share of the card's 16-bit figure.
// diffusers' attention processors call PyTorch's scaled_dot_product_attention,
// which runs FlashAttention-2 for 16-bit inputs on compute capability 8.0 and
// later, with FP32 accumulation in mma.sync:
// - on an A100, 177.7-187.1 TFLOPS non-causal at 1K-4K tokens (liangan1/
//   GPU_travel performance/flash-attn/README.md @07d0469: 0.57-0.60 of 312;
//   its clocks drop from 1410 to about 1200 MHz under the load), rising to
//   the 73 % FlashAttention-2 reaches at 16K tokens (Dao 2023,
//   arXiv:2307.08691, abstract and section 4.1): log-linear between;
// - on a GeForce RTX 4090, 166-169 TFLOPS at 1K-2K tokens, heads of 64 and
//   128 (apache/tvm tl_doc/flash_perf.md @aa7b939): the whole of its 165
//   TFLOPS FP32-accumulate figure, which is what a GeForce part's catalog
//   16-bit figure is; taken for every GeForce part from Ampere on;
// - on an H100, 35 %, since it does not use Hopper's wgmma (Shah et al. 2024,
//   FlashAttention-3, arXiv:2407.08608, section 1); datacenter Blackwell
//   (10.x, 11.x), whose tcgen05 it does not use either, assumed the same.
// Elsewhere (Turing's memory-efficient kernel, ROCm, Metal) no rate is
// measured and attention runs at the matmul share.
std::optional<double> fused_attention_share(const Gpu& gpu, double tokens) {
    if (gpu.platform != SoftwarePlatform::Cuda || !compute_capability_at_least(gpu, 8, 0))
        return std::nullopt;
    const bool hopper_like =
        compute_capability_at_least(gpu, 9, 0) && !compute_capability_at_least(gpu, 12, 0);
    if (hopper_like) return 0.35;
    if (gpu.segment == Segment::Consumer) return 1.0;
    const double octaves = std::clamp(std::log2(std::max(tokens, 1.0) / 4096.0), 0.0, 2.0);
    return 0.59 + (0.73 - 0.59) * octaves / 2.0;
}

// accelerate's offload hooks copy each module from pageable host memory when
// it runs: with sequential offload, SDXL's 5.1 GB UNet per step took 2.2 s
// more on the A100 of the HF blog "Exploring simple optimizations for SDXL"
// (67.0 s against 11.4 s for 25 steps: the notebook's num_inference_steps),
// 7 % of its PCIe 4.0 link. Assumed for every card from that measurement of
// the mechanism.
constexpr double kPageableCopyShare = 0.07;

// The attainable rate of `dtype` on `gpu` with its platform's factor, FLOP/s;
// 0 where the card has no sourced peak for it.
double rate_of(const Gpu& gpu, RateDtype dtype) {
    const AttainableRate r = attainable_rate(gpu, dtype);
    return r.tflops ? *r.tflops * 1e12 * compute_platform_factor(gpu, r) : 0.0;
}

// Bytes a quantised denoiser's dequantisation moves per forward beside its
// matmuls, per weight, and the kernels it adds per weight matrix.
struct Dequant {
    double bytes_per_weight = 0, kernels_per_linear = 0;
};
Dequant dequant_traffic(const Quant& q) {
    if (q.none()) return {};
    const double packed = q.bits_per_weight(false) / 8.0;
    switch (q.family()) {
        // diffusers' layerwise casting and ComfyUI without --fast upcast an
        // FP8 weight to the compute dtype in every forward (read 1, write 2);
        // bitsandbytes dequantises a 4-bit weight in one kernel (the packed
        // read and the 16-bit write).
        case QuantFamily::Fp8:
        case QuantFamily::Bnb4:
            return {packed + 2.0, 1.0};
        case QuantFamily::Gguf:
            return q.format->value_bits >= 8.0 ? Dequant{kGgufByteDequantBytes, 1.0}
                                               : Dequant{kGgufPackedDequantBytes, 5.0};
        default:
            return {};
    }
}

// Diffusion: text encoding, `steps` denoiser steps on the batch (twice the
// latents under classifier-free guidance), the VAE decode, and the weights
// diffusers' offload copies in.
void diffusion_performance(Performance& perf, const Workload& w, const DiffusionModel& d,
                           const Gpu& gpu, double attainable, const AttainableRate& matmul) {
    const ImageSettings& s = w.image;
    const double b = static_cast<double>(w.batch);
    // Guidance doubles the forwards, batched or (Wan) one after the other.
    const double samples = b * (d.cfg ? 2.0 : 1.0);
    const double forwards = d.cfg && d.cfg_sequential ? 2.0 : 1.0;
    // A clip's frames (1 for an image): its latent frames multiply the tokens.
    const std::int64_t frames = std::max<std::int64_t>(s.frames, 1);
    const bool fp32 = w.precision == Precision::Fp32;
    const double act = fp32 ? 4.0 : 2.0;
    const double rate = attainable * 1e12 * diffusion_matmul_share();
    const double bw = gpu.memory_bandwidth_gbps * 1e9 * platform_efficiency(gpu);
    const double elementwise_bw = elementwise_bandwidth(gpu);
    const double denoiser_params = static_cast<double>(d.denoiser_params);
    const double denoiser_bytes =
        denoiser_params * weight_bytes_per_param(w.quant, w.precision, false);
    const DenoiserWork work = denoiser_work(d, s.width, s.height, frames);
    // In fp32 PyTorch runs cuDNN's convolutions in TF32 and its matrix
    // products in full fp32 (torch.backends.cudnn.allow_tf32 is true,
    // torch.backends.cuda.matmul.allow_tf32 false by default since 1.12).
    const double full_fp32 =
        fp32 && gpu.tflops.tf32 ? rate_of(gpu, RateDtype::Fp32) * diffusion_matmul_share() : 0.0;
    // Attention: the fused kernel at its own share of the 16-bit peak (its
    // heads padded to the kernel's tile), else at the matmul share.
    const bool sixteen_bit =
        matmul.peak > 0 && (matmul.dtype == RateDtype::Bf16 || matmul.dtype == RateDtype::Fp16);
    const auto attention_rate = [&](double tokens) {
        const std::optional<double> fused = fused_attention_share(gpu, tokens);
        return w.flash_attn && fused && sixteen_bit
                   ? matmul.peak * 1e12 * *fused * platform_efficiency(gpu)
                   : rate;
    };
    // Each part of a forward: the GPU's time for one sample (matrix products,
    // attention, the bandwidth-bound kernels) and the host's for its launches.
    // The host runs ahead while the GPU is busy, so a part takes the longer
    // of its GPU time and its launches, part by part (SD 1.5's first level is
    // the GPU's, its last the host's).
    const double kernel_seconds = eager_kernel_seconds();
    const double per_forward = samples / forwards;
    double step = 0, compute = 0, memory = 0;
    for (const DenoiserPart& part : work.parts) {
        double matmuls = part.matmul_flops / rate;
        if (full_fp32 > 0)
            matmuls = part.conv_flops / rate + (part.matmul_flops - part.conv_flops) / full_fp32;
        const double attention =
            part.attention_flops > 0
                ? (w.flash_attn ? part.fused_attention_flops : part.attention_flops) /
                      attention_rate(part.attention_tokens)
                : 0.0;
        double bandwidth = part.elementwise_elements * act / elementwise_bw;
        if (!w.flash_attn) bandwidth += part.score_elements * kEagerScoreBytes / elementwise_bw;
        compute += per_forward * (matmuls + attention);
        memory += per_forward * bandwidth;
        step += std::max(per_forward * (matmuls + attention + bandwidth),
                         part.kernels * kernel_seconds);
    }
    // A quantised denoiser dequantises every weight in every forward.
    const Dequant dq = dequant_traffic(w.quant);
    const double linears = work.total().linears;
    step += std::max(denoiser_params * dq.bytes_per_weight / elementwise_bw,
                     linears * dq.kernels_per_linear * kernel_seconds);
    step = std::max(forwards * step, denoiser_bytes / bw);
    double encoders_flops = 0, encoders_bytes = 0;
    for (const TextEncoder& t : d.text_encoders) {
        encoders_flops += 2.0 * static_cast<double>(t.params) * static_cast<double>(t.tokens);
        encoders_bytes += static_cast<double>(t.params) * act;
    }
    const double encode =
        std::max((d.cfg ? 2.0 : 1.0) * encoders_flops / rate, encoders_bytes / bw);
    // The VAE decodes in fp32 where its pipeline upcasts it (SDXL's
    // force_upcast under fp16 in diffusers; ComfyUI keeps bf16 where the card
    // has it): convolutions in TF32 where the card has it.
    const bool vae_fp32 = fp32 || (d.vae_upcast && w.precision == Precision::Fp16 &&
                                   !(s.setup == ImageSetup::Comfyui && gpu.tflops.bf16));
    const double vae_rate =
        vae_fp32 ? rate_of(gpu, gpu.tflops.tf32 ? RateDtype::Tf32 : RateDtype::Fp32) *
                       diffusion_matmul_share()
                 : rate;
    const double decode =
        b * (vae_decode_flops(d, s.width, s.height, frames) / (vae_rate > 0 ? vae_rate : rate) +
             vae_decode_elementwise(d, s.width, s.height, frames) * (vae_fp32 ? 4.0 : act) /
                 elementwise_bw);
    const double vae_bytes = static_cast<double>(d.vae_params) * act;
    double copies = 0;
    const double link = gpu.pcie_gbps().value_or(16.0) * 1e9 * kPageableCopyShare;
    const double resident =
        denoiser_bytes * static_cast<double>(d.experts) + encoders_bytes + vae_bytes;
    if (!gpu.shares_host_memory()) {
        // Model offload moves each component in when it runs and back out
        // when the next one does (accelerate's CpuOffload hooks; Wan's
        // --offload_model), every expert of a mixture once (Wan2.2 swaps
        // them at the boundary step). Sequential offload copies every layer
        // in for each forward.
        if (s.offload == CpuOffload::Model)
            copies = 2.0 * resident / link;
        else if (s.offload == CpuOffload::Sequential)
            copies = (encoders_bytes + vae_bytes +
                      static_cast<double>(s.steps) * forwards * denoiser_bytes) /
                     link;
        // ComfyUI keeps every model loaded while they fit together and moves
        // the text encoders and the denoiser out and in again when they do
        // not (comfy/model_management.py, load_models_gpu and free_memory).
        else if (s.setup == ImageSetup::Comfyui && resident > static_cast<double>(gpu.memory_bytes))
            copies = 2.0 * (encoders_bytes + denoiser_bytes) / link;
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
    perf.bound = compute >= memory ? Bound::Compute : Bound::Memory;
}

// Vision backbones are bound by whichever is slower: FLOPs at a share of the
// attainable rate, or the bytes their activations move at the card's
// bandwidth. Training moves each counted activation element about 42 times
// (forward writes and reads of the convolution, normalisation and
// activation, then backward's reads of the saved tensors and writes of their
// gradients), inference about 14; in channels-last layout 0.7 of that, since
// cuDNN's tensor-core convolutions then need no NCHW-to-NHWC transposes of
// their inputs and outputs. The five are medians over the visible rows
// (bench/data/image_measured.csv: timm's RTX 3090 tables in NCHW, Lambda's
// NCHW ResNet-50 training on 17 cards, DeepLearningExamples' NHWC AMP
// training and inference on A100, V100 and T4): the shares 0.7 (training)
// and 0.9 (inference), the traffic 42 and 14, the channels-last factor 0.7
// (0.6 before layouts were told apart: the timm and Lambda rows are NCHW,
// DeepLearningExamples' AMP rows NHWC).
constexpr double kVisionTrainComputeShare = 0.70;

constexpr double kVisionInferComputeShare = 0.90;

constexpr double kVisionTrainTraffic = 42.0;

constexpr double kVisionInferTraffic = 14.0;

constexpr double kChannelsLastTraffic = 0.7;

// Vision backbones: the slower of FLOPs at a share of the attainable rate and the
// activation bytes at the card's bandwidth, per image; DDP adds the gradient
// all-reduce of each step, half hidden behind backward.
void vision_performance(Performance& perf, const Workload& w, const VisionModel& v, const Gpu& gpu,
                        double attainable, const PlanLinks& links) {
    const ImageSettings& s = w.image;
    const bool training = w.trains();
    const double b = static_cast<double>(w.batch);
    const double act = w.precision == Precision::Fp32 ? 4.0 : 2.0;
    const double flops = vision_flops(v, s.width, s.height) * (training ? 3.0 : 1.0);
    const double share = training ? kVisionTrainComputeShare : kVisionInferComputeShare;
    const double traffic = vision_activations(v, s.width, s.height) * act *
                           (training ? kVisionTrainTraffic : kVisionInferTraffic) *
                           (s.channels_last ? kChannelsLastTraffic : 1.0);
    const double compute_time = flops / (attainable * 1e12 * share);
    const double memory_time = traffic / elementwise_bandwidth(gpu);
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
