// The resolver's image phases: an image generation or vision preset's own
// defaults and fields (resolution, steps, diffusers' offload, VAE tiling),
// and real-time video (streams, frames per second, the codec).
#include <fmt/format.h>

#include <algorithm>

#include "gpuadvise/error.hpp"
#include "gpuadvise/image.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"
#include "resolver.hpp"

namespace gpuadvise::workload_detail {

// An image or vision preset: its own defaults and fields; the language
// model's fields are refused by name.
Workload Resolver::image() {
    const ImageModel& im = *w_.model.image;
    const bool diffusion = im.diffusion.has_value();
    const bool clip = diffusion && im.diffusion->video.has_value();  // video generation
    for (const FieldSpec& s : field_specs()) {
        const auto& v = r_.get(s.field);
        if (!v) continue;
        if (s.models == Models::Language)
            throw InputError(fmt::format(
                "{} applies to language models; {} is {} model{}", v->origin, w_.model.name,
                diffusion ? "an image generation" : "a vision", s.model_note));
        if (s.models == Models::Diffusion && !diffusion)
            throw InputError(
                fmt::format("{} applies to image generation models such as sdxl", v->origin));
    }
    if (const Arg a = arg(Field::Method)) {
        w_.method = kMethods.parse(a.text(), a.from());
    } else {
        w_.method = Method::Inference;
        assume("method=inference (default)");
    }
    if (diffusion && w_.method != Method::Inference)
        throw InputError(fmt::format(
            "{} {} of an image generation model is not modelled yet; gpuadvise sizes its "
            "inference (drop --method)",
            arg(Field::Method).from(), to_string(w_.method)));
    if (!diffusion && w_.uses_lora())
        throw InputError(
            fmt::format("{} {} applies to language models; train {} with --method full",
                        arg(Field::Method).from(), to_string(w_.method), w_.model.name));
    const bool training = w_.trains();
    for (const FieldSpec& s : field_specs()) {
        const auto& v = r_.get(s.field);
        if (!v) continue;
        if (s.applies == Applies::Training && !training)
            throw InputError(fmt::format("{} applies to training; add --method full", v->origin));
        if (s.applies == Applies::Inference && training)
            throw InputError(fmt::format("{} applies to --method inference", v->origin));
    }
    // Precision: diffusers' docs load UNet pipelines in fp16 and FLUX/SD3
    // (DiT) checkpoints ship in bf16; vision benchmarks run under AMP.
    if (const Arg a = arg(Field::Precision)) {
        w_.precision = kPrecisions.parse(a.text(), a.from());
        if (w_.precision == Precision::Fp8)
            throw InputError(fmt::format(
                "{} fp8 is FP8 training of language models (Transformer Engine); image and "
                "vision models run in fp16, bf16 or fp32",
                a.from()));
    } else {
        const bool unet = diffusion && im.diffusion->denoiser == DenoiserKind::Unet;
        w_.precision = unet ? Precision::Fp16 : Precision::Bf16;
        assume(unet        ? "precision=fp16 (diffusers loads UNet pipelines in torch.float16)"
               : clip      ? "precision=bf16 (the dtype the video DiTs' pipelines run in)"
               : diffusion ? "precision=bf16 (the dtype FLUX and SD3 checkpoints ship in)"
                           : "precision=bf16 (16-bit autocast, as vision benchmarks run)");
    }
    const Arg q = arg(Field::Quant);
    w_.quant = q ? parse_quant(q.text(), q.from()) : Quant{&quant_none(), 0};
    if (q && !diffusion)
        throw InputError(fmt::format(
            "{} {}: quantized weights are modelled for image generation denoisers only; drop "
            "--quant",
            q.from(), quote(q.text())));
    if (training) {
        w_.mixed = MixedPrecision::Amp;
        if (const Arg a = arg(Field::MixedPrecision))
            w_.mixed = kMixedPrecisions.parse(a.text(), a.from());
        else
            assume("mixed-precision=amp (fp32 weights and optimizer state, 16-bit compute)");
        if (const Arg a = arg(Field::Optimizer)) {
            w_.optimizer = kOptimizers.parse(a.text(), a.from());
        } else {
            w_.optimizer = Optimizer::SgdMomentum;
            assume("optimizer=sgd-momentum (the ResNet recipe of NVIDIA DeepLearningExamples)");
        }
        // Vision recipes train without checkpointing; the saved-tensor
        // model has no recompute variant to offer.
        if (r_.flag(Field::GradCkpt).value_or(false))
            throw InputError(fmt::format(
                "{}: activation checkpointing is not modelled for vision backbones; drop it",
                arg(Field::GradCkpt).from()));
        if (r_.has(Field::GradAccum)) w_.grad_accum = positive(Field::GradAccum, 1'000'000);
    } else {
        w_.mixed = MixedPrecision::Pure;
    }
    w_.flash_attn = r_.flag(Field::FlashAttn).value_or(true);
    // Channels-last: DeepLearningExamples' AMP recipes train in NHWC
    // (PyTorch/Classification/ConvNets/configs.yml: memory_format nhwc in
    // every AMP configuration); PyTorch's default layout elsewhere.
    if (const auto given = r_.flag(Field::ChannelsLast)) {
        if (diffusion)
            throw InputError(fmt::format("{} applies to vision models such as resnet50",
                                         arg(Field::ChannelsLast).from()));
        w_.image.channels_last = *given;
    } else if (!diffusion && training && w_.precision != Precision::Fp32) {
        w_.image.channels_last = true;
        assume("channels-last (NHWC, DeepLearningExamples' AMP recipe)");
    }
    video();
    // Video batches one frame of every stream (DeepStream's nvstreammux).
    const std::int64_t default_batch = training ? 256 : std::max<std::int64_t>(w_.image.streams, 1);
    w_.batch = r_.has(Field::Batch) ? positive(Field::Batch, kMaxBatch) : default_batch;
    if (!r_.has(Field::Batch))
        assume(training ? "batch=256 images per GPU (NVIDIA DeepLearningExamples' default)"
               : default_batch > 1
                   ? fmt::format("batch={} (one frame of every stream)", default_batch)
               : clip ? "batch=1 clip"
                      : "batch=1 image");
    resolution(im);
    ImageSettings& s = w_.image;
    if (diffusion) frames(*im.diffusion);
    if (diffusion) {
        if (const Arg a = arg(Field::ImageSetup)) s.setup = kImageSetups.parse(a.text(), a.from());
        // ComfyUI's KSampler node defaults to 20 steps (comfy nodes.py,
        // KSampler.INPUT_TYPES), whatever the model.
        const bool comfy = s.setup == ImageSetup::Comfyui;
        s.steps = r_.has(Field::Steps) ? positive(Field::Steps, 10'000)
                  : comfy              ? 20
                                       : im.diffusion->default_steps;
        if (!r_.has(Field::Steps))
            assume(comfy ? std::string("steps=20 (ComfyUI's KSampler default)")
                         : fmt::format("steps={} (the pipeline's default)", s.steps));
        if (const Arg a = arg(Field::CpuOffload)) {
            s.offload = kCpuOffloads.parse(a.text(), a.from());
            s.offload_given = true;
        }
        s.vae_tiling = r_.flag(Field::VaeTiling).value_or(false);
    }
    w_.gpus = r_.has(Field::Gpus) ? positive(Field::Gpus, kMaxGpus) : 1;
    if (const Arg a = arg(Field::Parallel)) {
        const Parallel p = kParallels.parse(a.text(), a.from());
        const Parallel allowed = training ? Parallel::Ddp : Parallel::None;
        if (p != allowed)
            throw InputError(fmt::format(
                "{} {}: {} runs whole on every GPU ({}); use --parallel {}", a.from(), to_string(p),
                w_.model.name, training ? "data parallel" : "one replica per GPU",
                to_string(allowed)));
    }
    if (w_.gpus > 1 && training) w_.parallel = Parallel::Ddp;
    return std::move(w_);
}

void Resolver::resolution(const ImageModel& im) {
    ImageSettings& s = w_.image;
    const Arg a = arg(Field::Resolution);
    if (!a) {
        if (im.diffusion && im.diffusion->video) {
            s.width = im.diffusion->video->default_width;
            s.height = im.diffusion->video->default_height;
            assume(fmt::format("resolution={}x{} (the model's default)", s.width, s.height));
            return;
        }
        s.width = s.height = im.default_resolution();
        assume(fmt::format("resolution={0}x{0} (the model's default)", s.width));
        return;
    }
    const std::string_view text = trim(a.text());
    const PixelSize size = parse_pixel_size(text, a.from());
    s.width = size.width;
    s.height = size.height;
    if (size.square)
        assume(fmt::format("resolution={0}x{0} ({1} {2} read as a square)", s.width, a.from(),
                           quote(text)));
    const std::int64_t step =
        im.diffusion ? im.diffusion->downsample *
                           (im.diffusion->denoiser == DenoiserKind::Dit ? im.diffusion->patch : 1)
                     : 1;
    if (s.width % step != 0 || s.height % step != 0 || s.width < step || s.height < step)
        throw InputError(fmt::format(
            "{} {}: {} needs both sides to be multiples of {} pixels (e.g. {}x{})", a.from(),
            quote(text), w_.model.name, step, std::max<std::int64_t>(step, s.width / step * step),
            std::max<std::int64_t>(step, s.height / step * step)));
}

PixelSize parse_pixel_size(std::string_view text, const std::string& origin) {
    const std::size_t x = text.find_first_of("xX");
    const auto digits = [](std::string_view t) {
        return !t.empty() && t.find_first_not_of("0123456789") == std::string_view::npos;
    };
    const bool square = x == std::string_view::npos;
    if (square ? !digits(text) : !digits(text.substr(0, x)) || !digits(text.substr(x + 1)))
        throw InputError(fmt::format(
            "{} {} is not a size in pixels; give WxH (e.g. 1280x720) or one number for a square",
            origin, quote(text)));
    const auto side = [&](std::string_view t) { return parse_positive_int(t, origin, 16384); };
    PixelSize out;
    if (x == std::string_view::npos) {
        out.width = out.height = side(text);
        out.square = true;
    } else {
        out.width = side(text.substr(0, x));
        out.height = side(text.substr(x + 1));
    }
    return out;
}

// Video generation: the clip's frames, 1 + a multiple of the VAE's temporal
// compression (Wan's generate.py asserts 4n+1; LTX-Video pads to 8n+1).
void Resolver::frames(const DiffusionModel& d) {
    ImageSettings& s = w_.image;
    const Arg a = arg(Field::Frames);
    if (!d.video) {
        if (a)
            throw InputError(fmt::format(
                "{} applies to video generation models such as wan2.1-t2v-1.3b; {} makes images",
                a.from(), w_.model.name));
        return;
    }
    if (s.streams > 0)
        throw InputError(fmt::format(
            "--streams sizes a vision model on video streams; {} generates clips: give --frames",
            w_.model.name));
    const std::int64_t step = d.video->temporal_downsample;
    if (!a) {
        s.frames = d.video->default_frames;
        assume(fmt::format("frames={} (the model's default, {:.3g} s at {:g} fps)", s.frames,
                           static_cast<double>(s.frames) / d.video->fps, d.video->fps));
        return;
    }
    s.frames = positive(Field::Frames, 100'000);
    if ((s.frames - 1) % step != 0) {
        const std::int64_t below = 1 + (s.frames - 1) / step * step;
        throw InputError(fmt::format(
            "{} {}: {} takes 1 + a multiple of {} frames (its VAE keeps the first frame and "
            "compresses every {} after it into one latent frame), e.g. {} or {}",
            a.from(), s.frames, w_.model.name, step, step, below, below + step));
    }
}

void Resolver::video() {
    ImageSettings& s = w_.image;
    const bool video_task = task_ && task_->requirements.needs_av1;
    if (!r_.has(Field::Streams) && !video_task) {
        for (const Field f : {Field::Fps, Field::Codec})
            if (const Arg a = arg(f))
                throw InputError(fmt::format("{} applies to video; add --streams N", a.from()));
        return;
    }
    s.streams = r_.has(Field::Streams) ? positive(Field::Streams, 100'000) : 1;
    if (!r_.has(Field::Streams)) assume("streams=1");
    s.fps = r_.has(Field::Fps) ? static_cast<double>(positive(Field::Fps, 1000)) : 30.0;
    if (!r_.has(Field::Fps)) assume("fps=30 per stream");
    if (const Arg a = arg(Field::Codec)) {
        s.codec = kCodecs.parse(a.text(), a.from());
    } else {
        s.codec = Codec::Av1;
        assume("codec=av1 (the source document's video row)");
    }
    if (w_.trains())
        throw InputError("--streams describes video inference; drop --method or --streams");
}

}  // namespace gpuadvise::workload_detail
