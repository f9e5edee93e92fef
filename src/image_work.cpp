// What one eager denoiser forward does, split by the kind of kernel that runs
// each part (docs/image-models.md "Speed"): the matrix products and
// convolutions on the tensor cores, attention in its fused kernel, and the
// normalisations, activations, modulations, residual adds and layout copies
// that PyTorch runs as separate bandwidth-bound kernels, counted from
// diffusers' module code. The counts follow diffusers' UNet2DConditionModel
// (ResnetBlock2D, Transformer2DModel, BasicTransformerBlock with a GEGLU
// feed-forward) and its DiT blocks (adaLN-Zero modulation, FeedForward with a
// GELU, RMSNorm on queries and keys, apply_rotary_emb in fp32).
#include <algorithm>
#include <cmath>

#include "gpuadvise/image.hpp"

namespace gpuadvise {
namespace {

// Fused attention kernels tile a head in multiples of 32 (FlashAttention-2's
// head sizes 32, 64, 96, ..., 256; PyTorch's memory-efficient kernel pads
// likewise), so a 40-wide head (SD 1.5's first level) computes as 64.
double padded_head(double head) {
    return std::ceil(head / 32.0) * 32.0;
}

double conv3(double in, double out, double positions) {
    return 2.0 * 9.0 * in * out * positions;
}

// Elements an eager ResnetBlock2D reads and writes besides its convolutions,
// per position: GroupNorm (a statistics pass and an apply pass: 3) and SiLU
// (2) on its input, the timestep embedding's broadcast add (2), GroupNorm (3)
// and SiLU (2) again, the residual add (3) and the division by
// output_scale_factor (2).
double resnet_elements(double in, double out) {
    return 5.0 * in + 12.0 * out;
}

// Kernels of a ResnetBlock2D: two GroupNorms (2 each), three SiLUs, two
// convolutions, the embedding's linear and add, the residual add and the
// division, and the 1x1 shortcut when the channels change.
double resnet_kernels(double in, double out) {
    return 13.0 + (in != out ? 1.0 : 0.0);
}

// The UNet of diffusers' UNet2DConditionModel with two resnets a level on the
// way down and three on the way up (layers_per_block 2, as SD 1.x, 2.x and XL
// are configured), two in the mid block, and the preset's self-attention
// layers per level spread over its five transformers (six at the lowest level
// when it has attention: the mid block's). One part per level.
DenoiserWork unet_work(const DiffusionModel& d, std::int64_t width, std::int64_t height) {
    DenoiserWork work;
    const auto& ch = d.unet_channels;
    const std::size_t levels = ch.size();
    const double latent = latent_positions(d, width, height);
    const double text = static_cast<double>(text_tokens(d));
    const auto c = [&](std::size_t l) { return static_cast<double>(ch[l]); };
    for (std::size_t l = 0; l < levels; ++l) {
        DenoiserPart part;
        const double p = latent / std::pow(4.0, static_cast<double>(l));
        const double below = l > 0 ? c(l - 1) : c(0);  // the higher-resolution level's channels
        const auto resnet = [&](double in, bool concatenated) {
            part.conv_flops += conv3(in, c(l), p) + conv3(c(l), c(l), p) +
                               (in != c(l) ? 2.0 * in * c(l) * p : 0.0);
            part.elementwise_elements +=
                (resnet_elements(in, c(l)) + (concatenated ? 2.0 * in : 0.0)) * p;
            part.kernels += resnet_kernels(in, c(l)) + (concatenated ? 1.0 : 0.0);
            part.linears += 1.0;  // the timestep embedding's projection
        };
        // Down: the first resnet takes the level above's channels.
        resnet(below, false);
        resnet(c(l), false);
        // Up: each resnet takes the previous output concatenated with a skip
        // (UpBlock2D: the last skip is the level above's channels).
        const double previous = l + 1 < levels ? c(l + 1) : c(l);
        resnet(previous + c(l), true);
        resnet(2.0 * c(l), true);
        resnet(c(l) + below, true);
        if (l + 1 < levels) {
            part.conv_flops += conv3(c(l), c(l), p / 4.0);          // the stride-2 downsampler
            part.conv_flops += conv3(c(l + 1), c(l + 1), p);        // the level below's upsampler
            part.elementwise_elements += 5.0 * c(l + 1) * p / 4.0;  // its interpolation
            part.kernels += 3.0;
        } else {
            resnet(c(l), false);  // the mid block's two
            resnet(c(l), false);
        }
        if (l == 0) {  // conv_in and conv_out; the time embedding, GroupNorm and SiLU at the end
            part.conv_flops += 2.0 * conv3(static_cast<double>(d.latent_channels), c(0), p);
            part.elementwise_elements += 5.0 * c(0) * p;
            part.kernels += 12.0;
        }
        const double layers =
            l < d.attention_layers.size() ? static_cast<double>(d.attention_layers[l]) : 0.0;
        if (layers > 0) {
            const double wrappers = l + 1 == levels ? 6.0 : 5.0;
            // Transformer2DModel: GroupNorm (3), the layout copies into and
            // out of the token layout (2 + 2), the residual add (3); its
            // projections in and out.
            part.elementwise_elements += wrappers * 10.0 * c(l) * p;
            part.kernels += wrappers * 7.0;
            part.matmul_flops += wrappers * 2.0 * 2.0 * c(l) * c(l) * p;
            part.linears += wrappers * 2.0;
            // BasicTransformerBlock: three LayerNorms (2 each); per attention
            // the heads' output copied back to the token layout (2), divided
            // by rescale_output_factor (2) and added (3); GEGLU's GELU on 4c
            // (8) and its product with the gate (12); the feed-forward's add
            // (3). Its linears: q, k, v and out of the self-attention, q and
            // out of the cross-attention (k and v act on the text), the
            // GEGLU's 8c projection and the 4c-to-c output: 36 c^2 FLOPs a
            // token.
            part.elementwise_elements += layers * 43.0 * c(l) * p;
            part.kernels += layers * 24.0;
            part.matmul_flops += layers * 36.0 * c(l) * c(l) * p;
            part.linears += layers * 10.0;
            const double heads = l < d.level_heads.size() && d.level_heads[l] > 0
                                     ? static_cast<double>(d.level_heads[l])
                                     : static_cast<double>(d.attention_heads);
            const double head = c(l) / heads;
            const double exact = 4.0 * p * p * c(l) + 4.0 * p * text * c(l);
            part.attention_flops += layers * exact;
            part.fused_attention_flops += layers * exact * padded_head(head) / head;
            part.score_elements += layers * heads * (p * p + p * text);
            part.attention_tokens = p;
        }
        part.matmul_flops += part.conv_flops;
        work.parts.push_back(part);
    }
    // The preset's MACs (calflops, at its reference size) are the forward's
    // figure: the counted matrix products are scaled to them, level by level
    // in the proportions counted, the attention left as counted.
    const DenoiserPart counted = work.total();
    const double others = denoiser_flops(d, width, height) - counted.attention_flops;
    if (counted.matmul_flops > 0 && others > 0) {
        const double scale = others / counted.matmul_flops;
        for (DenoiserPart& part : work.parts) {
            part.matmul_flops *= scale;
            part.conv_flops *= scale;
        }
    }
    return work;
}

DenoiserWork dit_work(const DiffusionModel& d, std::int64_t width, std::int64_t height,
                      std::int64_t frames) {
    DenoiserPart part;
    part.attention_flops = denoiser_attention_flops(d, width, height, frames);
    part.matmul_flops = denoiser_flops(d, width, height, frames) - part.attention_flops;
    const double head = static_cast<double>(d.hidden) / static_cast<double>(d.heads);
    part.fused_attention_flops = part.attention_flops * padded_head(head) / head;
    part.score_elements = attention_score_elements(d, width, height, frames);
    part.attention_tokens = static_cast<double>(image_tokens(d, width, height, frames)) +
                            (d.joint_attention ? static_cast<double>(text_tokens(d)) : 0.0);
    const double h = static_cast<double>(d.hidden);
    const double n = static_cast<double>(image_tokens(d, width, height, frames));
    const double t = static_cast<double>(text_tokens(d));
    const double tokens = d.joint_attention ? n + t : n;
    // Per token and hidden unit of a block: the adaLN-Zero LayerNorm (2) with
    // its scale and shift (2 + 2), twice; the attention output's layout copy
    // (2), its gate (2) and residual add (3); the feed-forward's activation
    // on r x h (2r), its gate (2) and residual add (3).
    double per = 24.0 + 2.0 * d.mlp_ratio;
    double kernels = 23.0;
    // The modulation, q, k, v, the output and the MLP's two: 7 linears.
    double linears = 7.0;
    if (d.joint_attention) {  // MMDiT: q, k, v of both streams concatenated, the output split
        per += 8.0;
        kernels += 25.0;  // the second stream's norms, projections, gates and feed-forward
        linears += 7.0;
    } else {  // cross-attention to the text: its output copy and add
        per += 7.0;
        kernels += 8.0;
        linears += 4.0;
    }
    // RMSNorm on q and k in fp32 (diffusers' RMSNorm: upcast, square, mean,
    // scale by rsqrt, downcast, weight): 34 bytes an element of q and of k,
    // 17 elements of 2 bytes each.
    if (d.qk_norm) {
        per += 2.0 * 17.0;
        kernels += 14.0;
    }
    // apply_rotary_emb: the rotated copy (negate, stack) and the fp32
    // products with cos and sin, their sum and the downcast: 52 bytes an
    // element of q and of k.
    if (d.rope) {
        per += 2.0 * 26.0;
        kernels += 16.0;
    }
    part.elementwise_elements = static_cast<double>(d.blocks) * tokens * h * per;
    part.kernels = static_cast<double>(d.blocks) * kernels + 20.0;
    part.linears = static_cast<double>(d.blocks) * linears;
    return {{part}};
}

}  // namespace

DenoiserPart DenoiserWork::total() const {
    DenoiserPart t;
    for (const DenoiserPart& p : parts) {
        t.matmul_flops += p.matmul_flops;
        t.conv_flops += p.conv_flops;
        t.attention_flops += p.attention_flops;
        t.fused_attention_flops += p.fused_attention_flops;
        t.score_elements += p.score_elements;
        t.elementwise_elements += p.elementwise_elements;
        t.kernels += p.kernels;
        t.linears += p.linears;
        t.attention_tokens = std::max(t.attention_tokens, p.attention_tokens);
    }
    return t;
}

DenoiserWork denoiser_work(const DiffusionModel& d, std::int64_t width, std::int64_t height,
                           std::int64_t frames) {
    return d.denoiser == DenoiserKind::Unet ? unet_work(d, width, height)
                                            : dit_work(d, width, height, frames);
}

double vae_decode_elementwise(const DiffusionModel& d, std::int64_t width, std::int64_t height,
                              std::int64_t frames) {
    // The decoder's resnets (GroupNorm, SiLU twice, the residual add: 13
    // elements a position and channel) and each level's nearest-neighbour
    // upsampling (5), at the resolutions vae_decode_flops walks.
    const auto& ch = d.vae_channels;
    const std::size_t levels = ch.size();
    const double latent = latent_positions(d, width, height);
    double e = 2.0 * 13.0 * static_cast<double>(ch.back()) * latent;  // the mid block
    for (std::size_t k = 0; k < levels; ++k) {
        const double c = static_cast<double>(ch[levels - 1 - k]);
        const double pixels = latent * std::pow(4.0, static_cast<double>(k));
        e += static_cast<double>(d.vae_blocks) * 13.0 * c * pixels;
        if (k + 1 < levels) e += 5.0 * c * pixels;
    }
    if (d.video) e *= static_cast<double>(std::max<std::int64_t>(frames, 1));
    return e;
}

}  // namespace gpuadvise
