#include "gpuadvise/image.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpuadvise/error.hpp"

namespace gpuadvise {
namespace {

std::vector<std::int64_t> int_list(json::ObjectReader& r, std::string_view key, std::int64_t max,
                                   bool zero_ok = false) {
    std::vector<std::int64_t> out;
    const auto v = r.get(key);
    if (!v) return out;
    if (!v->is_array()) r.fail(key, "must be an array of positive integers");
    for (const json::Value x : v->items()) {
        const auto n = x.int64();
        const std::int64_t lowest = zero_ok ? 0 : 1;
        if (!n || *n < lowest || *n > max)
            r.fail(key,
                   fmt::format("must hold integers from {} to {} (got {})", lowest, max, x.dump()));
        out.push_back(*n);
    }
    return out;
}

constexpr std::int64_t kMaxDim = 1'000'000;
constexpr double kMaxParams = 1e15;

double area_ratio(std::int64_t width, std::int64_t height, std::int64_t ref) {
    const double r = static_cast<double>(std::max<std::int64_t>(ref, 1));
    return static_cast<double>(width) * static_cast<double>(height) / (r * r);
}

// 3x3 convolution of `in` to `out` channels over `pixels` positions.
double conv3(double in, double out, double pixels) {
    return 2.0 * 9.0 * in * out * pixels;
}

}  // namespace

std::int64_t ImageModel::default_resolution() const {
    if (diffusion) return diffusion->default_resolution;
    return vision ? vision->ref_resolution : 224;
}

std::uint64_t ImageModel::active_params() const {
    if (!diffusion) return params;
    return params - static_cast<std::uint64_t>(diffusion->experts - 1) * diffusion->denoiser_params;
}

ImageModel image_model_from_json(json::Value value, ImageFamily kind, std::string_view source,
                                 const json::Path* path) {
    json::ObjectReader r(value, source, path);
    ImageModel m;
    m.family = kind;
    if (kind == ImageFamily::Vision) {
        VisionModel v;
        v.gmacs = r.number("gmacs", 1e-6, 1e9);
        v.activations_m = r.number("activations_m", 1e-6, 1e9);
        v.ref_resolution = r.integer("ref_resolution", 16, kMaxDim);
        v.depth = r.integer("depth", 1, 100000);
        m.vision = v;
        r.finish();
        return m;
    }
    DiffusionModel d;
    d.denoiser = kDenoiserKinds.parse(r.one_of("denoiser", {"unet", "dit"}), "denoiser");
    d.denoiser_params = static_cast<std::uint64_t>(r.number("denoiser_params", 1, kMaxParams));
    if (d.denoiser == DenoiserKind::Unet) {
        d.unet_gmacs = r.number("unet_gmacs", 1e-3, 1e9);
        d.ref_resolution = r.integer("ref_resolution", 16, kMaxDim);
        d.unet_channels = int_list(r, "unet_channels", 100000);
        if (d.unet_channels.empty()) r.fail("unet_channels", "must list the channels per level");
        d.attention_level =
            r.integer("attention_level", 0, static_cast<std::int64_t>(d.unet_channels.size()) - 1);
        d.attention_heads = r.integer("attention_heads", 1, 1024);
        d.attention_layers = int_list(r, "attention_layers", 10000, true);
        d.level_heads = int_list(r, "level_heads", 10000, true);
        if (d.attention_layers.size() != d.level_heads.size() ||
            (!d.attention_layers.empty() && d.attention_layers.size() != d.unet_channels.size()))
            r.fail("attention_layers",
                   "attention_layers and level_heads give one entry per level of unet_channels");
    } else {
        d.hidden = r.integer("hidden", 1, 1'000'000);
        d.blocks = r.integer("blocks", 1, 10'000);
        d.heads = r.integer("heads", 1, 10'000);
        d.patch = r.integer("patch", 1, 64);
        d.mlp_ratio = r.number("mlp_ratio", 0.1, 64);
        d.joint_attention = r.one_of("attention", {"joint", "cross"}) == "joint";
        d.qk_norm = r.opt_bool("qk_norm").value_or(false);
        d.rope = r.opt_bool("rope").value_or(false);
    }
    if (const auto encoders = r.get("text_encoders")) {
        if (!encoders->is_array()) r.fail("text_encoders", "must be an array");
        const json::Path list{path, "text_encoders"};
        std::size_t i = 0;
        for (const json::Value e : encoders->items()) {
            const json::Path p{&list, {}, i++, true};
            json::ObjectReader er(e, source, &p);
            TextEncoder t;
            t.name = std::string(er.str("name"));
            t.params = static_cast<std::uint64_t>(er.number("params", 1, kMaxParams));
            t.tokens = er.integer("tokens", 1, 1'000'000);
            er.finish();
            d.text_encoders.push_back(std::move(t));
        }
    }
    d.cfg_sequential = r.opt_bool("cfg_sequential").value_or(false);
    d.experts = r.opt_integer("experts", 1, 64).value_or(1);
    d.reference_images = r.opt_integer("reference_images", 0, 16).value_or(0);
    if (const auto v = r.get("video")) {
        const json::Path vp{path, "video"};
        json::ObjectReader vr(*v, source, &vp);
        VideoShape shape;
        shape.temporal_downsample = vr.integer("temporal_downsample", 1, 64);
        shape.default_frames = vr.integer("default_frames", 1, 100'000);
        shape.default_width = vr.integer("default_width", 16, kMaxDim);
        shape.default_height = vr.integer("default_height", 16, kMaxDim);
        shape.fps = vr.number("fps", 1, 1000);
        if ((shape.default_frames - 1) % shape.temporal_downsample != 0)
            vr.fail("default_frames", "must be 1 + a multiple of temporal_downsample");
        vr.finish();
        d.video = shape;
    }
    // A video preset may leave its 3D VAE's parameters out where no source
    // states them: its weights then count as 0 (docs/image-models.md says so).
    if (d.video)
        d.vae_params =
            static_cast<std::uint64_t>(r.opt_number("vae_params", 1, kMaxParams).value_or(0));
    else
        d.vae_params = static_cast<std::uint64_t>(r.number("vae_params", 1, kMaxParams));
    d.vae_channels = int_list(r, "vae_channels", 100000);
    if (d.vae_channels.size() < 2) r.fail("vae_channels", "must list at least two levels");
    d.vae_blocks = r.opt_integer("vae_blocks", 1, 64).value_or(3);
    d.vae_upcast = r.opt_bool("vae_upcast").value_or(false);
    d.latent_channels = r.integer("latent_channels", 1, 4096);
    d.downsample = r.integer("downsample", 1, 1024);
    // A video model's default size is its video block's width x height; the
    // shorter side stands for the VAE's tile.
    d.default_resolution =
        d.video ? r.opt_integer("default_resolution", 16, kMaxDim)
                      .value_or(std::min(d.video->default_width, d.video->default_height))
                : r.integer("default_resolution", 16, kMaxDim);
    d.default_steps = r.integer("default_steps", 1, 10000);
    d.cfg = r.opt_bool("cfg").value_or(true);
    r.finish();
    double params = static_cast<double>(d.denoiser_params) * static_cast<double>(d.experts) +
                    static_cast<double>(d.vae_params);
    for (const TextEncoder& t : d.text_encoders) params += static_cast<double>(t.params);
    m.params = static_cast<std::uint64_t>(params);
    m.diffusion = std::move(d);
    return m;
}

std::int64_t latent_frames(const DiffusionModel& d, std::int64_t frames) {
    if (!d.video) return 1;
    return 1 + std::max<std::int64_t>(frames - 1, 0) / d.video->temporal_downsample;
}

double latent_positions(const DiffusionModel& d, std::int64_t width, std::int64_t height) {
    return static_cast<double>(std::max<std::int64_t>(width / d.downsample, 1)) *
           static_cast<double>(std::max<std::int64_t>(height / d.downsample, 1));
}

std::int64_t image_tokens(const DiffusionModel& d, std::int64_t width, std::int64_t height,
                          std::int64_t frames) {
    const std::int64_t step = d.downsample * (d.denoiser == DenoiserKind::Dit ? d.patch : 1);
    const std::int64_t spatial =
        std::max<std::int64_t>(width / step, 1) * std::max<std::int64_t>(height / step, 1);
    return spatial * latent_frames(d, frames) * (1 + d.reference_images);
}

std::int64_t text_tokens(const DiffusionModel& d) {
    std::int64_t t = 0;
    for (const TextEncoder& e : d.text_encoders) t = std::max(t, e.tokens);
    // SD3's joint attention takes CLIP's 77 and T5's tokens side by side.
    if (d.denoiser == DenoiserKind::Dit && d.joint_attention && d.text_encoders.size() > 2)
        t = d.text_encoders.front().tokens + d.text_encoders.back().tokens;
    return t;
}

double denoiser_flops(const DiffusionModel& d, std::int64_t width, std::int64_t height,
                      std::int64_t frames) {
    if (d.denoiser == DenoiserKind::Unet)
        return 2.0 * d.unet_gmacs * 1e9 * area_ratio(width, height, d.ref_resolution);
    // A DiT block applies q, k, v and the output projection (4 h^2) and the
    // MLP (2 x ratio x h^2) to every token; its adaLN modulation acts on one
    // conditioning vector per image, not per token, so it is left out (FLUX's
    // 12B parameters hold 3.2B of it).
    const double h = static_cast<double>(d.hidden);
    const double blocks = static_cast<double>(d.blocks);
    const double n = static_cast<double>(image_tokens(d, width, height, frames));
    const double t = static_cast<double>(text_tokens(d));
    const double per_token = blocks * (4.0 + 2.0 * d.mlp_ratio) * h * h;
    if (d.joint_attention) {
        const double l = n + t;
        return 2.0 * per_token * l + 4.0 * blocks * l * l * h;
    }
    // Cross attention: q and the output over the image tokens, k and v over
    // the text; self attention over the image tokens only.
    return 2.0 * per_token * n + 2.0 * blocks * (2.0 * h * h) * (n + t) + 4.0 * blocks * n * n * h +
           4.0 * blocks * n * t * h;
}

double denoiser_attention_flops(const DiffusionModel& d, std::int64_t width, std::int64_t height,
                                std::int64_t frames) {
    if (d.denoiser != DenoiserKind::Dit) return 0;
    const double h = static_cast<double>(d.hidden);
    const double blocks = static_cast<double>(d.blocks);
    const double n = static_cast<double>(image_tokens(d, width, height, frames));
    const double t = static_cast<double>(text_tokens(d));
    if (d.joint_attention) return 4.0 * blocks * (n + t) * (n + t) * h;
    return 4.0 * blocks * n * n * h + 4.0 * blocks * n * t * h;
}

double attention_score_elements(const DiffusionModel& d, std::int64_t width, std::int64_t height,
                                std::int64_t frames) {
    if (d.denoiser == DenoiserKind::Dit) {
        const double n = static_cast<double>(image_tokens(d, width, height, frames));
        const double t = static_cast<double>(text_tokens(d));
        const double per_head = d.joint_attention ? (n + t) * (n + t) : n * n + n * t;
        return static_cast<double>(d.blocks) * static_cast<double>(d.heads) * per_head;
    }
    double tokens = latent_positions(d, width, height);
    double e = 0;
    for (std::size_t l = 0; l < d.attention_layers.size(); ++l) {
        e += static_cast<double>(d.attention_layers[l]) * static_cast<double>(d.level_heads[l]) *
             tokens * tokens;
        tokens /= 4.0;
    }
    return e;
}

double vae_decode_flops(const DiffusionModel& d, std::int64_t width, std::int64_t height,
                        std::int64_t frames) {
    // The decoder of diffusers' AutoencoderKL: conv_in and a mid block at the
    // latent resolution, then one level per channel entry (coarsest first),
    // each `vae_blocks` resnets of two 3x3 convolutions and an upsampling
    // convolution at twice the resolution; attention in the mid block is
    // small at these sizes and left out.
    const auto& ch = d.vae_channels;
    const std::size_t levels = ch.size();
    const double latent = latent_positions(d, width, height);
    const double top = static_cast<double>(ch.back());
    double f = conv3(static_cast<double>(d.latent_channels), top, latent);
    f += 4.0 * conv3(top, top, latent);  // mid block: two resnets
    double in = top;
    for (std::size_t k = 0; k < levels; ++k) {
        const double c = static_cast<double>(ch[levels - 1 - k]);
        const double pixels = latent * std::pow(4.0, static_cast<double>(k));
        for (std::int64_t b = 0; b < d.vae_blocks; ++b) {
            f += conv3(in, c, pixels) + conv3(c, c, pixels);
            if (in != c) f += 2.0 * in * c * pixels;  // 1x1 shortcut
            in = c;
        }
        if (k + 1 < levels) f += conv3(c, c, pixels * 4.0);
    }
    f += conv3(in, 3.0, latent * std::pow(4.0, static_cast<double>(levels - 1)));
    // A video VAE decodes every frame of the clip through 3x3x3 causal
    // convolutions (Wan's CausalConv3d, kernel 3 in time): three times a 2D
    // decoder's taps per output frame.
    if (d.video) f *= 3.0 * static_cast<double>(std::max<std::int64_t>(frames, 1));
    return f;
}

double vision_flops(const VisionModel& v, std::int64_t width, std::int64_t height) {
    return 2.0 * v.gmacs * 1e9 * area_ratio(width, height, v.ref_resolution);
}

double vision_activations(const VisionModel& v, std::int64_t width, std::int64_t height) {
    return v.activations_m * 1e6 * area_ratio(width, height, v.ref_resolution);
}

}  // namespace gpuadvise
