#include "gpuadvise/model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <map>

#include "gpuadvise/error.hpp"
#include "gpuadvise/json_input.hpp"
#include "gpuadvise/names.hpp"

namespace gpuadvise {
namespace {

using nlohmann::json;
using u64 = std::uint64_t;

u64 u(std::int64_t v) { return v > 0 ? static_cast<u64>(v) : 0; }

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
        p.linear += h * q + 2 * h * kv + q * h;
        if (a.qkv_bias) p.other += q + 2 * kv;
        if (a.out_bias) p.other += h;
        if (a.qk_norm) p.other += 2 * u(a.head_dim);
    }
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
        if (a.mlp_bias) p.other += u(a.intermediate) * (a.mlp == MlpKind::Gated ? 2 : 1) + u(a.hidden);
        return p;
    }
    const u64 expert = mlp_linear(a, a.moe_intermediate);
    const u64 shared = a.shared_intermediate > 0 ? mlp_linear(a, a.shared_intermediate) : 0;
    p.linear = u(a.experts) * expert + shared;
    p.active_linear = u(a.experts_per_token) * expert + shared;
    p.other += u(a.hidden) * u(a.experts);  // router
    return p;
}

u64 norm_params(const Architecture& a) { return (a.norm == NormKind::LayerNorm ? 2 : 1) * u(a.hidden); }

}  // namespace

ParamCounts count_params(const Architecture& a) {
    ParamCounts c;
    c.embedding = u(a.vocab) * u(a.hidden) + u(a.learned_positions) * u(a.hidden);
    c.lm_head = a.tied_embeddings ? 0 : u(a.vocab) * u(a.hidden);
    if (a.lm_head_bias) c.other += u(a.vocab);
    const auto add = [&c](const LayerParams& p, u64 times) {
        c.block_linear += p.linear * times;
        c.active_linear += p.active_linear * times;
        c.other += p.other * times;
    };
    const u64 layer_norms = u(a.norms_per_layer) * norm_params(a);
    // Self-attention and MLP for every layer of the (decoder or encoder) stack.
    const u64 moe_layers = a.is_moe() ? u(a.layers - a.dense_layers) : 0;
    add(attention_params(a, false), u(a.layers));
    add(mlp_params(a, false), u(a.layers) - moe_layers);
    add(mlp_params(a, true), moe_layers);
    c.other += layer_norms * u(a.layers) + norm_params(a);  // + final norm
    if (a.encoder_decoder) {
        // Decoder stack: self-attention, cross-attention, MLP, three norms.
        add(attention_params(a, false), u(a.decoder_layers));
        add(attention_params(a, true), u(a.decoder_layers));
        add(mlp_params(a, false), u(a.decoder_layers));
        c.other += 3 * norm_params(a) * u(a.decoder_layers) + norm_params(a);
    }
    c.other += u(a.extra_params);
    return c;
}

void validate_architecture(const Architecture& a, std::string_view source) {
    const auto check = [&](std::string_view field, std::int64_t value, std::int64_t max) {
        if (value <= 0)
            throw InputError(fmt::format("{}: '{}' must be a positive integer (got {})", source, field, value));
        if (value > max)
            throw InputError(fmt::format("{}: '{}' = {} is implausibly large (at most {})", source, field, value, max));
    };
    check("num_hidden_layers", a.layers, 100'000);
    check("hidden_size", a.hidden, 1'000'000);
    check("intermediate_size", a.intermediate, 10'000'000);
    check("num_attention_heads", a.heads, 100'000);
    check("num_key_value_heads", a.kv_heads, 100'000);
    check("head_dim", a.head_dim, 100'000);
    check("vocab_size", a.vocab, 100'000'000);
    if (a.kv_heads > a.heads || a.heads % a.kv_heads != 0)
        throw InputError(fmt::format("{}: num_attention_heads {} is not a multiple of num_key_value_heads {}", source,
                                     a.heads, a.kv_heads));
    if (a.is_moe()) {
        check("num_experts_per_tok", a.experts_per_token, a.experts);
        check("moe_intermediate_size", a.moe_intermediate, 10'000'000);
        if (a.dense_layers >= a.layers)
            throw InputError(fmt::format("{}: first_k_dense_replace {} leaves no MoE layer of {}", source,
                                         a.dense_layers, a.layers));
    }
    if (a.encoder_decoder) check("num_decoder_layers", a.decoder_layers, 100'000);
    // Optional fields are zero when absent; when present they are bounded too.
    const auto optional = [&](std::string_view field, std::int64_t value, std::int64_t max) {
        if (value < 0 || value > max)
            throw InputError(fmt::format("{}: '{}' = {} is out of range [0, {}]", source, field, value, max));
    };
    optional("max_position_embeddings / n_positions (learned positions)", a.learned_positions, 10'000'000);
    optional("num_local_experts", a.experts, 100'000);
    optional("shared_expert_intermediate_size", a.shared_intermediate, 10'000'000);
    optional("kv_lora_rank", a.kv_lora_rank, 1'000'000);
    optional("q_lora_rank", a.q_lora_rank, 1'000'000);
    optional("qk_rope_head_dim", a.qk_rope_head_dim, 100'000);
    optional("qk_nope_head_dim", a.qk_nope_head_dim, 100'000);
    optional("v_head_dim", a.v_head_dim, 100'000);
    optional("extra parameters (type_vocab_size, relative attention buckets)", a.extra_params, 1'000'000'000'000LL);
    // A shape whose parameter count overflows is not a model; 1e15 is the
    // same limit as for --model sizes.
    const double ffn = static_cast<double>(std::max(a.intermediate, a.moe_intermediate)) *
                       static_cast<double>(std::max<std::int64_t>(a.experts, 1));
    const double approx = static_cast<double>(a.total_layers()) *
                              (static_cast<double>(a.hidden) * ffn * 3.0 +
                               4.0 * static_cast<double>(a.hidden) * static_cast<double>(a.q_dim())) +
                          (2.0 * static_cast<double>(a.vocab) + static_cast<double>(a.learned_positions)) *
                              static_cast<double>(a.hidden) +
                          static_cast<double>(a.extra_params);
    if (approx > 1e15)
        throw InputError(fmt::format("{}: the shape implies over 1e15 parameters; check hidden_size and layers", source));
}

namespace {

// Reads the first of several spellings of an integer field; 0 when absent.
// Values from a file are bounded here, before any arithmetic uses them, so a
// hostile config.json cannot overflow the shape's products.
constexpr std::int64_t kMaxField = 1'000'000'000;

std::int64_t int_field(const json& j, std::initializer_list<const char*> keys, std::string_view source) {
    for (const char* key : keys) {
        const auto it = j.find(key);
        if (it == j.end() || it->is_null()) continue;
        std::int64_t value = 0;
        if (it->is_number_integer() && !(it->is_number_unsigned() && it->get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxField))) {
            value = it->get<std::int64_t>();
        } else if (it->is_number_float()) {
            const double v = it->get<double>();
            if (!std::isfinite(v) || v != std::floor(v))
                throw InputError(fmt::format("{}: '{}' must be an integer (got {})", source, key, it->dump()));
            if (std::fabs(v) > static_cast<double>(kMaxField))
                throw InputError(fmt::format("{}: '{}' = {} is implausibly large (at most {})", source, key, it->dump(), kMaxField));
            value = static_cast<std::int64_t>(v);
        } else if (it->is_number_unsigned()) {
            throw InputError(fmt::format("{}: '{}' = {} is implausibly large (at most {})", source, key, it->dump(), kMaxField));
        } else {
            throw InputError(fmt::format("{}: '{}' must be an integer (got {})", source, key, it->dump()));
        }
        if (value < 0) throw InputError(fmt::format("{}: '{}' must not be negative (got {})", source, key, value));
        if (value > kMaxField)
            throw InputError(fmt::format("{}: '{}' = {} is implausibly large (at most {})", source, key, value, kMaxField));
        return value;
    }
    return 0;
}

bool bool_field(const json& j, const char* key, bool fallback, std::string_view source) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) return fallback;
    if (!it->is_boolean()) throw InputError(fmt::format("{}: '{}' must be true or false (got {})", source, key, it->dump()));
    return it->get<bool>();
}

std::string string_field(const json& j, const char* key, std::string_view source) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) return {};
    if (!it->is_string()) throw InputError(fmt::format("{}: '{}' must be a string (got {})", source, key, it->dump()));
    return it->get<std::string>();
}

bool one_of(const std::string& v, std::initializer_list<const char*> set) {
    return std::any_of(set.begin(), set.end(), [&](const char* s) { return v == s; });
}

Architecture architecture_from_json(const json& root, std::string_view source) {
    if (!root.is_object()) throw InputError(fmt::format("{}: expected a JSON object (a config.json)", source));
    // Gemma 3 and other multimodal configs keep the language model under text_config.
    const json& j = root.contains("text_config") && root["text_config"].is_object() ? root["text_config"] : root;
    Architecture a;
    a.model_type = string_field(j, "model_type", source);
    if (a.model_type.empty()) a.model_type = string_field(root, "model_type", source);
    const std::string& t = a.model_type;

    a.layers = int_field(j, {"num_hidden_layers", "n_layer", "num_layers", "n_layers"}, source);
    a.hidden = int_field(j, {"hidden_size", "n_embd", "d_model", "dim"}, source);
    a.heads = int_field(j, {"num_attention_heads", "n_head", "num_heads", "n_heads"}, source);
    if (a.layers == 0 || a.hidden == 0 || a.heads == 0)
        throw InputError(fmt::format(
            "{}: missing the model shape (need num_hidden_layers, hidden_size and num_attention_heads, or their "
            "GPT-2/T5 spellings n_layer/n_embd/n_head, num_layers/d_model/num_heads)",
            source));
    a.intermediate = int_field(j, {"intermediate_size", "n_inner", "d_ff", "ffn_dim", "ffn_hidden_size"}, source);
    if (a.intermediate == 0) a.intermediate = 4 * a.hidden;  // GPT-2/J, Falcon: FFN = 4 x hidden
    a.kv_heads = int_field(j, {"num_key_value_heads", "num_kv_heads", "n_head_kv", "multi_query_group_num"}, source);
    if (t == "falcon" && !bool_field(j, "new_decoder_architecture", false, source))
        a.kv_heads = bool_field(j, "multi_query", true, source) ? 1 : a.heads;
    if (a.kv_heads == 0) a.kv_heads = bool_field(j, "multi_query", false, source) ? 1 : a.heads;
    a.head_dim = int_field(j, {"head_dim", "d_kv"}, source);
    if (a.head_dim == 0 && a.hidden > 0 && a.heads > 0) a.head_dim = a.hidden / a.heads;
    a.vocab = int_field(j, {"vocab_size", "padded_vocab_size", "n_vocab"}, source);
    a.max_position = int_field(j, {"max_position_embeddings", "n_positions", "n_ctx", "seq_length"}, source);
    a.sliding_window = int_field(j, {"sliding_window"}, source);
    a.torch_dtype = string_field(j, "torch_dtype", source);
    if (a.torch_dtype.empty()) a.torch_dtype = string_field(root, "torch_dtype", source);

    // Families whose classes default to untied heads when the key is absent.
    const bool untied_default = one_of(t, {"llama", "mistral", "mixtral", "qwen", "qwen2", "qwen2_moe", "qwen3",
                                           "qwen3_moe", "phi", "phi3", "phimoe", "deepseek_v2", "deepseek_v3",
                                           "gpt_neox", "gptj", "stablelm", "starcoder2", "olmo", "olmo2"});
    a.tied_embeddings = bool_field(j, "tie_word_embeddings", !untied_default, source);
    if (root.contains("tie_word_embeddings") && &j != &root)
        a.tied_embeddings = bool_field(root, "tie_word_embeddings", a.tied_embeddings, source);

    // Block structure by family: norm type, MLP kind, biases.
    const std::string act = string_field(j, "hidden_act", source) + string_field(j, "activation_function", source);
    if (one_of(t, {"gpt2", "gptj", "gpt_neox", "falcon", "phi", "bert", "roberta", "gpt_bigcode", "starcoder2",
                   "stablelm", "opt", "bloom", "mpt"})) {
        a.mlp = MlpKind::Plain;
        a.norm = NormKind::LayerNorm;
    }
    if (t == "stablelm") a.mlp = MlpKind::Gated;  // StableLM 2 / 3B-4e1t use SwiGLU with LayerNorm
    if (t == "stablelm_alpha" || t == "gpt_neox") a.mlp = MlpKind::Plain;
    if (t == "qwen") a.intermediate /= 2;  // Qwen-1 stores the sum of both SwiGLU branches
    const bool biases = one_of(t, {"gpt2", "gpt_neox", "phi", "bert", "roberta", "gpt_bigcode", "opt", "bloom"}) ||
                        bool_field(j, "bias", false, source);
    a.qkv_bias = biases || one_of(t, {"qwen", "qwen2", "qwen2_moe"}) || bool_field(j, "attention_bias", false, source) ||
                 bool_field(j, "use_qkv_bias", false, source);
    a.out_bias = biases || bool_field(j, "attention_bias", false, source);
    a.mlp_bias = biases || bool_field(j, "mlp_bias", false, source) || t == "gptj";
    if (t == "gptj") a.qkv_bias = a.out_bias = false;
    a.lm_head_bias = t == "phi" || t == "gptj";
    // Parallel attention+MLP blocks share one norm; Gemma 2/3 wrap both sublayers.
    if (t == "gptj" || t == "phi" || (t == "falcon" && !bool_field(j, "new_decoder_architecture", false, source)))
        a.norms_per_layer = 1;
    if (one_of(t, {"gemma2", "gemma3", "gemma3_text"})) a.norms_per_layer = 4;
    a.qk_norm = one_of(t, {"qwen3", "qwen3_moe", "gemma3", "gemma3_text", "olmo2"});
    if (one_of(t, {"gpt2", "bert", "roberta", "opt", "gpt_bigcode"})) a.learned_positions = a.max_position;
    if (t == "bert" || t == "roberta") {
        a.encoder_only = true;
        // token-type embeddings, embedding LayerNorm, pooler dense layer
        a.extra_params = int_field(j, {"type_vocab_size"}, source) * a.hidden + 2 * a.hidden + a.hidden * a.hidden + a.hidden;
    }
    if (t == "t5" || t == "mt5" || bool_field(j, "is_encoder_decoder", false, source)) {
        a.encoder_decoder = true;
        a.decoder_layers = int_field(j, {"num_decoder_layers"}, source);
        if (a.decoder_layers == 0) a.decoder_layers = a.layers;
        const std::string proj = string_field(j, "feed_forward_proj", source);
        a.mlp = proj.rfind("gated", 0) == 0 ? MlpKind::Gated : MlpKind::Plain;
        a.norm = NormKind::RmsNorm;  // T5 LayerNorm has no bias
        a.head_dim = int_field(j, {"d_kv"}, source);
        // relative position buckets, one table per stack
        a.extra_params = 2 * std::max<std::int64_t>(int_field(j, {"relative_attention_num_buckets"}, source), 32) * a.heads;
    }
    (void)act;

    // Mixture of experts.
    a.experts = int_field(j, {"num_local_experts", "n_routed_experts", "num_experts", "moe_num_experts"}, source);
    if (a.experts > 0) {
        a.experts_per_token = int_field(j, {"num_experts_per_tok", "moe_top_k", "top_k"}, source);
        a.moe_intermediate = int_field(j, {"moe_intermediate_size"}, source);
        if (a.moe_intermediate == 0) a.moe_intermediate = a.intermediate;  // Mixtral
        a.shared_intermediate = int_field(j, {"shared_expert_intermediate_size"}, source) +
                                int_field(j, {"n_shared_experts"}, source) * a.moe_intermediate;
        a.dense_layers = int_field(j, {"first_k_dense_replace"}, source);
        if (j.contains("mlp_only_layers") && j["mlp_only_layers"].is_array())
            a.dense_layers += static_cast<std::int64_t>(j["mlp_only_layers"].size());
    }
    // Multi-head latent attention.
    a.kv_lora_rank = int_field(j, {"kv_lora_rank"}, source);
    if (a.kv_lora_rank > 0) {
        a.q_lora_rank = int_field(j, {"q_lora_rank"}, source);
        a.qk_rope_head_dim = int_field(j, {"qk_rope_head_dim"}, source);
        a.qk_nope_head_dim = int_field(j, {"qk_nope_head_dim"}, source);
        a.v_head_dim = int_field(j, {"v_head_dim"}, source);
        a.head_dim = a.qk_nope_head_dim + a.qk_rope_head_dim;
        a.kv_heads = a.heads;
    }
    validate_architecture(a, source);
    return a;
}

json parse_json(std::string_view text, std::string_view source) { return parse_json_input(text, source, "JSON"); }

}  // namespace

Architecture parse_hf_config(std::string_view json_text, std::string_view source) {
    return architecture_from_json(parse_json(json_text, source), source);
}

Architecture infer_architecture(std::uint64_t params) {
    const double target = static_cast<double>(params);
    Architecture a;
    a.model_type = "llama";
    a.inferred = true;
    a.head_dim = 128;
    a.vocab = params < 1'000'000'000ULL ? 32000 : 128256;
    a.tied_embeddings = params < 4'000'000'000ULL;
    // Llama 3 shape ratios: FFN = 3.5 x hidden, hidden/layers = 128, 8 KV heads.
    const auto shape = [&](std::int64_t hidden, std::int64_t layers) {
        Architecture s = a;
        s.hidden = hidden;
        s.heads = hidden / 128;
        s.kv_heads = std::min<std::int64_t>(8, s.heads);
        s.intermediate = (hidden * 7 / 2 + 255) / 256 * 256;
        s.layers = layers;
        return s;
    };
    Architecture best = shape(256, 2);
    double best_error = 1e300;
    // Real widths are multiples of 128 and, for larger models, of 8 heads, so
    // that tensor parallelism over 2, 4 or 8 GPUs splits the heads evenly.
    for (std::int64_t hidden = 256; hidden <= 65536; hidden += hidden < 2048 ? 128 : hidden < 4096 ? 512 : 1024) {
        const Architecture one = shape(hidden, 1);
        const ParamCounts c = count_params(one);
        const double fixed = static_cast<double>(c.embedding + c.lm_head);
        const double per_layer = static_cast<double>(c.total()) - fixed;
        const double layers = std::round((target - fixed) / per_layer);
        // Keep the aspect ratio of real models: layers within 0.5x-1.6x of hidden/128.
        const double natural = static_cast<double>(hidden) / 128.0;
        if (layers < 1 || layers < 0.4 * natural || layers > 1.6 * natural + 2) continue;
        const Architecture candidate = shape(hidden, static_cast<std::int64_t>(layers));
        const double error = std::fabs(std::log(static_cast<double>(count_params(candidate).total()) / target)) +
                             0.02 * std::fabs(std::log(layers / natural));
        if (error < best_error) {
            best_error = error;
            best = candidate;
        }
    }
    return best;
}

std::vector<ModelPreset> parse_model_presets(std::string_view json_text, std::string_view source) {
    const json root = parse_json(json_text, source);
    if (!root.is_object() || !root.contains("models") || !root["models"].is_array())
        throw InputError(fmt::format("{}: expected an object with a 'models' array", source));
    std::vector<ModelPreset> presets;
    std::map<std::string, std::string> seen;  // normalised name -> preset id
    for (std::size_t i = 0; i < root["models"].size(); ++i) {
        const json& m = root["models"][i];
        const std::string where = fmt::format("{} (/models/{})", source, i);
        if (!m.is_object() || !m.contains("config"))
            throw InputError(fmt::format("{}: each model needs an id and a config object", where));
        ModelPreset p;
        p.id = string_field(m, "id", where);
        if (p.id.empty()) throw InputError(fmt::format("{}: each model needs a non-empty \"id\"", where));
        p.name = string_field(m, "name", where);
        p.hf_repo = string_field(m, "hf_repo", where);
        p.params_note = string_field(m, "params_note", where);
        p.source = string_field(m, "source", where);
        if (const auto it = m.find("aliases"); it != m.end() && it->is_array())
            for (const auto& alias : *it)
                if (alias.is_string()) p.aliases.push_back(alias.get<std::string>());
        if (const auto it = m.find("params"); it != m.end() && !it->is_null()) {
            if (!it->is_number_unsigned() || it->get<std::uint64_t>() > 1'000'000'000'000'000ULL)
                throw InputError(fmt::format("{}: 'params' must be a parameter count (got {})", where, it->dump()));
            p.published_params = it->get<std::uint64_t>();
        }
        p.arch = architecture_from_json(m["config"], fmt::format("{} config of '{}'", source, p.id));
        for (const std::string& key : [&] {
                 std::vector<std::string> keys{p.id, p.hf_repo};
                 keys.insert(keys.end(), p.aliases.begin(), p.aliases.end());
                 return keys;
             }()) {
            if (key.empty()) continue;
            const auto [it, inserted] = seen.emplace(normalize_name(key), p.id);
            if (!inserted && it->second != p.id)
                throw InputError(fmt::format("{}: name '{}' is used by two presets", where, key));
        }
        presets.push_back(std::move(p));
    }
    return presets;
}

const ModelPreset* find_preset(const std::vector<ModelPreset>& presets, std::string_view name) {
    const std::string key = normalize_name(name);
    for (const auto& p : presets) {
        if (normalize_name(p.id) == key || (!p.hf_repo.empty() && normalize_name(p.hf_repo) == key)) return &p;
        for (const auto& alias : p.aliases)
            if (normalize_name(alias) == key) return &p;
    }
    return nullptr;
}

void throw_unknown_model(const std::vector<ModelPreset>& presets, std::string_view name) {
    std::vector<std::string> names;
    for (const auto& p : presets) names.push_back(p.id);
    if (auto near = closest_name(name, names))
        throw InputError(fmt::format("unknown model '{}'; did you mean '{}'? (or give a size like 8B; "
                                     "'gpuadvise models' lists presets)",
                                     name, *near));
    throw InputError(fmt::format("unknown model '{}'; give a size like 8B, 1.5B or 350M, or a preset from "
                                 "'gpuadvise models'",
                                 name));
}

}  // namespace gpuadvise
