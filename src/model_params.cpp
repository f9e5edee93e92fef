// Exact parameter counts of an Architecture: attention (full, local, linear,
// cross), MLP and MoE layers, norms, embeddings and the vision tower.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "gpuadvise/error.hpp"
#include "gpuadvise/json.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/text.hpp"

namespace gpuadvise {
namespace {

using u64 = std::uint64_t;

u64 u(std::int64_t v) {
    return v > 0 ? static_cast<u64>(v) : 0;
}
// Parameters of one decoder (or encoder) layer, split into linear weights
// (all and active) and the small rest.
struct LayerParams {
    u64 linear = 0;
    u64 active_linear = 0;
    u64 other = 0;
};
LayerParams attention_params(const Architecture& a, bool cross) {
    LayerParams p;
    const u64 h = u(a.hidden);
    if (a.is_mla()) {
        const u64 qk_head = u(a.qk_nope_head_dim + a.qk_rope_head_dim);
        if (a.q_lora_rank > 0) {
            p.linear += h * u(a.q_lora_rank) + u(a.q_lora_rank) * u(a.heads) * qk_head;
            p.other += u(a.q_lora_rank);  // q_a_layernorm
        } else {
            p.linear += h * u(a.heads) * qk_head;
        }
        p.linear += h * u(a.kv_lora_rank + a.qk_rope_head_dim);
        p.linear += u(a.kv_lora_rank) * u(a.heads) * u(a.qk_nope_head_dim + a.v_head_dim);
        p.other += u(a.kv_lora_rank);  // kv_a_layernorm
        p.linear += u(a.heads) * u(a.v_head_dim) * h;
    } else {
        const u64 q = u(a.q_dim());
        const u64 kv = cross ? q : u(a.kv_dim());
        // A gated attention's q_proj also yields the output gate: twice as wide.
        p.linear += h * q * (a.gated_attention ? 2 : 1) + 2 * h * kv + q * h;
        if (a.qkv_bias) p.other += q + 2 * kv;
        if (a.out_bias) p.other += h;
        if (a.qk_norm)
            p.other +=
                a.qk_norm_per_head ? u(a.heads + a.kv_heads) * u(a.head_dim) : 2 * u(a.head_dim);
    }
    if (a.attention_sinks) p.other += u(a.heads);
    p.active_linear = p.linear;
    return p;
}
// A Gated DeltaNet layer (Qwen3-Next): q, k, v and the output gate z from one
// projection, the beta and alpha gates from another, a depthwise causal
// convolution over q, k and v, per-head decay (A_log, dt_bias), a gated norm
// of the value head width and the output projection.
LayerParams linear_attention_params(const Architecture& a) {
    LayerParams p;
    const u64 h = u(a.hidden);
    const u64 key = u(a.linear_k_heads) * u(a.linear_k_dim);
    const u64 value = u(a.linear_v_heads) * u(a.linear_v_dim);
    p.linear = h * (2 * key + 2 * value) + h * 2 * u(a.linear_v_heads) + value * h;
    p.other =
        (2 * key + value) * u(a.linear_conv_kernel) + 2 * u(a.linear_v_heads) + u(a.linear_v_dim);
    p.active_linear = p.linear;
    return p;
}
u64 mlp_linear(const Architecture& a, std::int64_t inner) {
    return (a.mlp == MlpKind::Gated ? 3 : 2) * u(a.hidden) * u(inner);
}
LayerParams mlp_params(const Architecture& a, bool moe_layer) {
    LayerParams p;
    if (!moe_layer) {
        p.linear = p.active_linear = mlp_linear(a, a.intermediate);
        if (a.mlp_bias)
            p.other += u(a.intermediate) * (a.mlp == MlpKind::Gated ? 2 : 1) + u(a.hidden);
        return p;
    }
    const u64 expert = mlp_linear(a, a.moe_intermediate);
    const u64 shared = a.shared_intermediate > 0 ? mlp_linear(a, a.shared_intermediate) : 0;
    p.linear = u(a.experts) * expert + shared;
    p.active_linear = u(a.experts_per_token) * expert + shared;
    p.other += u(a.hidden) * u(a.experts);  // router
    if (a.router_bias) p.other += u(a.experts);
    if (a.expert_bias)
        p.other += u(a.experts) *
                   (u(a.moe_intermediate) * (a.mlp == MlpKind::Gated ? 2 : 1) + u(a.hidden));
    if (a.shared_expert_gate && shared > 0) p.other += u(a.hidden);
    return p;
}
u64 norm_params(const Architecture& a) {
    return (a.norm == NormKind::LayerNorm ? 2 : 1) * u(a.hidden);
}
}  // namespace

ParamCounts count_params(const Architecture& a) {
    ParamCounts c;
    c.embedding = u(a.vocab) * u(a.hidden) + u(a.learned_positions) * u(a.hidden);
    // An embedding model's checkpoint (loaded as `*Model`) holds no
    // language-model head, whatever tie_word_embeddings says.
    c.lm_head = a.tied_embeddings || !a.has_lm_head() ? 0 : u(a.vocab) * u(a.hidden);
    if (a.lm_head_bias) c.other += u(a.vocab);
    const auto add = [&c](const LayerParams& p, u64 times) {
        c.block_linear += p.linear * times;
        c.active_linear += p.active_linear * times;
        c.other += p.other * times;
    };
    const u64 layer_norms = u(a.norms_per_layer) * norm_params(a);
    // Self-attention (or linear attention) and MLP for every layer of the
    // (decoder or encoder) stack.
    const u64 moe_layers = a.is_moe() ? u(a.layers - a.dense_layers) : 0;
    const u64 linear_layers = a.linear_attention() ? u(a.kv_free_layers) : 0;
    const LayerParams attention = attention_params(a, false);
    add(attention, u(a.layers) - linear_layers);
    c.attention_linear += attention.linear * (u(a.layers) - linear_layers);
    if (linear_layers > 0) {
        const LayerParams linear = linear_attention_params(a);
        add(linear, linear_layers);
        c.attention_linear += linear.linear * linear_layers;
    }
    // Cross-attention layers: q and k norms of one head's width, and tanh
    // gates on the attention and the MLP.
    c.other += u(a.cross_attention_layers) * (2 * u(a.head_dim) + 2);
    add(mlp_params(a, false), u(a.layers) - moe_layers);
    add(mlp_params(a, true), moe_layers);
    if (a.is_moe()) {
        const u64 expert = mlp_linear(a, a.moe_intermediate) * moe_layers;
        c.routed_experts = u(a.experts) * expert;
        c.routed_active = u(a.experts_per_token) * expert;
        if (a.shared_intermediate > 0)
            c.shared_experts = mlp_linear(a, a.shared_intermediate) * moe_layers;
    }
    c.other += layer_norms * u(a.layers) + norm_params(a);  // + final norm
    if (a.encoder_decoder) {
        // Decoder stack: self-attention, cross-attention, MLP, three norms.
        const LayerParams self = attention_params(a, false), cross = attention_params(a, true);
        add(self, u(a.decoder_layers));
        add(cross, u(a.decoder_layers));
        c.attention_linear += (self.linear + cross.linear) * u(a.decoder_layers);
        add(mlp_params(a, false), u(a.decoder_layers));
        c.other += 3 * norm_params(a) * u(a.decoder_layers) + norm_params(a);
    }
    if (a.mtp_layers > 0) {
        // Multi-token-prediction layers (GLM-4.5: model.layers.<layers>): a
        // decoder layer of the last layer's kind, its own embed_tokens and
        // shared_head.head, eh_proj (2h -> h), enorm, hnorm and shared_head.norm.
        // In the weights (and the formats' scopes), not in the active path.
        const u64 n = u(a.mtp_layers);
        const u64 h = u(a.hidden);
        const bool moe = a.is_moe() && a.dense_layers < a.layers;
        const LayerParams mtp_attention = attention_params(a, false);
        const LayerParams mtp_mlp = mlp_params(a, moe);
        c.block_linear +=
            n * (mtp_attention.linear + mtp_mlp.linear + 2 * h * h + 2 * u(a.vocab) * h);
        c.attention_linear += n * mtp_attention.linear;
        if (moe) {
            c.routed_experts += n * u(a.experts) * mlp_linear(a, a.moe_intermediate);
            if (a.shared_intermediate > 0)
                c.shared_experts += n * mlp_linear(a, a.shared_intermediate);
        }
        c.other += n * (mtp_attention.other + mtp_mlp.other + layer_norms + 3 * norm_params(a));
    }
    c.other += u(a.extra_params);
    // The vision encoder: weights that no text token passes.
    c.vision_linear = u(a.vision_linear);
    c.vision_other = u(a.vision_other);
    c.block_linear += c.vision_linear;
    c.other += c.vision_other;
    return c;
}
std::uint64_t quantized_linear(const ParamCounts& c, const QuantScope& s) {
    const u64 named = c.attention_linear + c.shared_experts + c.routed_experts + c.vision_linear;
    const u64 dense = c.block_linear > named ? c.block_linear - named : 0;
    return (s.attention ? c.attention_linear : 0) + (s.dense_mlp ? dense : 0) +
           (s.shared_experts ? c.shared_experts : 0) + (s.routed_experts ? c.routed_experts : 0) +
           (s.vision ? c.vision_linear : 0);
}

}  // namespace gpuadvise
