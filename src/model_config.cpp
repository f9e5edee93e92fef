// A Hugging Face config.json in all its spellings into an Architecture: the
// keys' spellings, the family's defaults (FamilyTraits, from each family's
// modeling code), the checkpoint's task, blocks, experts and latent attention.
// Which layers do what is model_layers.cpp; vision towers model_vision.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "gpuadvise/error.hpp"
#include "gpuadvise/json.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/text.hpp"
#include "model_common.hpp"

namespace gpuadvise {

using namespace model_detail;

namespace {

// What a model family's classes do when config.json does not say (the
// Hugging Face modeling files of each family). One row per model_type.
struct FamilyTraits {
    std::string_view model_type;
    bool untied = false;      // separate lm_head when tie_word_embeddings is absent
    bool plain_mlp = false;   // GELU/ReLU MLP (2 matrices) instead of gated SwiGLU/GeGLU (3)
    bool layer_norm = false;  // LayerNorm (weight + bias) instead of RMSNorm
    bool biases = false;      // every linear layer has a bias
    bool qkv_bias = false;    // only q/k/v carry a bias (Qwen)
    std::int64_t norms_per_layer =
        2;                 // 1: parallel attention+MLP blocks; 4: Gemma 2/3 sandwich norms
    bool qk_norm = false;  // per-head q/k norms
    bool learned_positions = false;  // a learned position table of max_position rows
    bool lm_head_bias = false;
    // Layers alternate sliding-window and global attention: every `sliding_period`
    // layers one is global (Gemma 2: 2, Gemma 3: 6) when config.json has no layer_types.
    std::int64_t sliding_period = 0;
    bool attention_bias_out = true;   // attention_bias also biases o_proj (not GLM's)
    bool use_qk_norm_key = false;     // `use_qk_norm` adds q/k norm weights (GLM-4.5, Cohere)
    bool qk_norm_per_head = false;    // ... one weight vector per head (Cohere)
    bool attention_sinks = false;     // gpt-oss: a sink logit per head
    bool gated_attention = false;     // Qwen3-Next: q_proj also yields the output gate
    bool router_bias = false;         // e_score_correction_bias (DeepSeek-V3 routers) or a bias
    bool expert_bias = false;         // gpt-oss: biases on every expert's projections
    bool shared_expert_gate = false;  // Qwen2-MoE, Qwen3-Next
    std::int64_t shared_experts = 0;  // shared experts of the expert width the config does not name
    std::int64_t extra_vocab_rows = 0;  // embedding rows beyond vocab_size (Mllama: 8)
    // The checkpoint stores its num_nextn_predict_layers MTP layers, counted
    // (GLM-4.5: the Hub totals include them). DeepSeek-V3's are not: its
    // published 671B leaves the 14B module out.
    bool mtp_counted = false;
    // The class defaults of keys a family's config.json files omit, from the
    // transformers configuration class (0: no default, the key is required).
    std::int64_t default_heads = 0;
    std::int64_t default_kv_heads = 0;
    std::int64_t default_head_dim = 0;
    std::int64_t default_vocab = 0;
    std::int64_t default_sliding_window = 0;
};

constexpr FamilyTraits kFamilies[] = {
    {"llama", true},
    {"mistral", true},
    {"ministral3", true},  // Mistral 3 family text models (Devstral Small 2)
    {"mixtral", true},
    {"qwen", true, false, false, false, true},
    {"qwen2", true, false, false, false, true},
    {.model_type = "qwen2_moe", .untied = true, .qkv_bias = true, .shared_expert_gate = true},
    {"qwen3", true, false, false, false, false, 2, true},
    {"qwen3_moe", true, false, false, false, false, 2, true},
    // Qwen2.5-VL's language model is Qwen2 (q/k/v biases); newer transformers
    // nest it as qwen2_5_vl_text.
    {"qwen2_5_vl", true, false, false, false, true},
    {"qwen2_5_vl_text", true, false, false, false, true},
    // Qwen3-Next (modeling_qwen3_next.py): gated full attention with q/k
    // norms, Gated DeltaNet layers, a gated shared expert.
    {.model_type = "qwen3_next",
     .untied = true,
     .qk_norm = true,
     .gated_attention = true,
     .shared_expert_gate = true},
    {"phi", true, true, true, true, false, 1, false, false, true},
    {"phi3", true},
    {"phimoe", true},
    {"deepseek_v2", true},
    // DeepseekV3TopkRouter keeps an e_score_correction_bias per expert; Kimi K2
    // is the DeepSeek-V3 architecture under its own model_type.
    {.model_type = "deepseek_v3", .untied = true, .router_bias = true},
    {.model_type = "kimi_k2", .untied = true, .router_bias = true},
    // GLM-4.5/4.6 (modeling_glm4_moe.py): q/k/v biases only, optional q/k
    // norms, DeepSeek-V3's router; the checkpoint's MTP layer is counted.
    {.model_type = "glm4_moe",
     .untied = true,
     .attention_bias_out = false,
     .use_qk_norm_key = true,
     .router_bias = true,
     .mtp_counted = true},
    // gpt-oss (modeling_gpt_oss.py): attention sinks, a router with a bias,
    // experts with biases.
    {.model_type = "gpt_oss",
     .untied = true,
     .attention_sinks = true,
     .router_bias = true,
     .expert_bias = true},
    // Llama 4 (modeling_llama4.py): one shared expert of the expert width;
    // its QK norm is an L2 norm without weights.
    {.model_type = "llama4_text", .untied = true, .shared_experts = 1},
    // Llama 3.2 Vision's text model embeds vocab_size + 8 rows (MllamaTextModel).
    {.model_type = "mllama_text_model", .untied = true, .extra_vocab_rows = 8},
    // Command R/R+ (modeling_cohere.py): one LayerNorm without bias before
    // attention and MLP in parallel, tied embeddings, per-head q/k norms.
    {.model_type = "cohere",
     .norms_per_layer = 1,
     .use_qk_norm_key = true,
     .qk_norm_per_head = true},
    {"gpt_neox", true, true, true, true},
    {"gptj", true, true, true, false, false, 1, false, false, true},
    {"stablelm", true, false, true},
    {"stablelm_alpha", true, true, true},
    {"starcoder2", true, true, true},
    {"olmo", true},
    {"olmo2", true, false, false, false, false, 2, true},
    {"gemma", false},
    {"gemma2", false, false, false, false, false, 4, false, false, false, 2},
    {"gemma3", false, false, false, false, false, 4, true, false, false, 6},
    // Gemma3TextConfig's defaults apply to the keys google/gemma-3-4b-it's
    // config.json omits (transformers configuration_gemma3.py @ 008f5c8c:
    // num_attention_heads 8, num_key_value_heads 4, head_dim 256,
    // vocab_size 262208, sliding_window 4096).
    {.model_type = "gemma3_text",
     .norms_per_layer = 4,
     .qk_norm = true,
     .sliding_period = 6,
     .default_heads = 8,
     .default_kv_heads = 4,
     .default_head_dim = 256,
     .default_vocab = 262208,
     .default_sliding_window = 4096},
    {"gpt2", false, true, true, true, false, 2, false, true},
    {"gpt_bigcode", false, true, true, true, false, 2, false, true},
    {"opt", false, true, true, true, false, 2, false, true},
    {"bert", false, true, true, true, false, 2, false, true},
    {"roberta", false, true, true, true, false, 2, false, true},
    {"xlm-roberta", false, true, true, true, false, 2, false, true},  // BGE-M3's encoder
    {"falcon", false, true, true},
    {"bloom", false, true, true, true},
    {"mpt", false, true, true},
};

const FamilyTraits* family(std::string_view model_type) {
    for (const FamilyTraits& f : kFamilies)
        if (f.model_type == model_type) return &f;
    return nullptr;
}

// What the checkpoint's class is for, from config.json's `architectures`
// (transformers writes the class the weights were saved from):
// `*ForSequenceClassification` scores each sequence (a cross-encoder
// reranker, or any classifier) with `num_labels` outputs, or as many as
// `id2label` names, else PretrainedConfig's default of 2; a bare `*Model`
// (XLMRobertaModel, BertModel, MistralModel, NomicBertModel) has no head and
// pools its hidden states (an embedding model). Every other class
// (`*ForCausalLM`, `*ForMaskedLM`, `*ForConditionalGeneration`,
// `*LMHeadModel`) or none generates. A preset's "task" (data/models.json) overrides this where the
// config names a class the checkpoint does not hold (Qwen3-Embedding).
void read_task(const json::Value& root, Architecture& a, std::string_view source) {
    const auto list = root.find("architectures");
    if (!list || !list->is_array() || list->size() == 0) return;
    const json::Value first = *list->items().begin();
    if (!first.is_string())
        throw InputError(fmt::format("{}: 'architectures' must be a list of strings", source));
    const std::string_view name = first.text();
    constexpr std::string_view kClassifier = "ForSequenceClassification";
    if (name.size() > kClassifier.size() && name.ends_with(kClassifier)) {
        a.task = ModelTask::Rerank;
        std::int64_t labels = int_field(root, {"num_labels"}, source);
        if (const auto names = root.find("id2label"); labels == 0 && names && names->is_object())
            labels = static_cast<std::int64_t>(names->size());
        a.classifier_labels = labels > 0 ? labels : 2;
        if (a.classifier_labels > 1'000'000)
            throw InputError(fmt::format("{}: {} labels is out of range [1, 1000000]", source,
                                         a.classifier_labels));
    } else if (name.size() > 5 && name.ends_with("Model") &&
               name.find("For") == std::string_view::npos &&
               name.find("LMHead") == std::string_view::npos && name != "ChatGLMModel") {
        // Generative classes named *Model without "For": GPT-2's and Qwen-1's
        // *LMHeadModel, and ChatGLM's causal LM, ChatGLMModel.
        a.task = ModelTask::Embed;
    }
}

}  // namespace

std::int64_t Architecture::kv_layers() const {
    if (encoder_only) return 0;
    if (encoder_decoder) return decoder_layers * 2;  // self- and cross-attention
    return std::max<std::int64_t>(layers - kv_free_layers, 0);
}

Architecture architecture_from_json(const json::Value& root, std::string_view source) {
    if (!root.is_object())
        throw InputError(fmt::format("{}: expected a JSON object (a config.json)", source));
    // Gemma 3 and other multimodal configs keep the language model under text_config.
    const auto text_config = root.find("text_config");
    const json::Value j = text_config && text_config->is_object() ? *text_config : root;
    Architecture a;
    a.model_type = string_field(j, "model_type", source);
    if (a.model_type.empty()) a.model_type = string_field(root, "model_type", source);
    const std::string& t = a.model_type;
    const FamilyTraits* f = family(t);
    const FamilyTraits none{};
    const FamilyTraits& traits = f ? *f : none;

    a.layers = int_field(j, {"num_hidden_layers", "n_layer", "num_layers", "n_layers"}, source);
    a.hidden = int_field(j, {"hidden_size", "n_embd", "d_model", "dim"}, source);
    a.heads = int_field(j, {"num_attention_heads", "n_head", "num_heads", "n_heads"}, source);
    // Keys a family's files omit take its configuration class's default.
    const auto absent = [&j](std::initializer_list<std::string_view> keys) {
        for (const auto k : keys)
            if (j.find(k)) return false;
        return true;
    };
    if (a.heads == 0 && traits.default_heads > 0 &&
        absent({"num_attention_heads", "n_head", "num_heads", "n_heads"}))
        a.heads = traits.default_heads;
    if (a.layers == 0 || a.hidden == 0 || a.heads == 0) {
        // A field given as 0 is not "missing": say which one is wrong.
        if (!absent({"num_hidden_layers", "n_layer", "num_layers", "n_layers"}) && a.layers == 0)
            throw InputError(
                fmt::format("{}: 'num_hidden_layers' must be at least 1 (got 0)", source));
        if (!absent({"hidden_size", "n_embd", "d_model", "dim"}) && a.hidden == 0)
            throw InputError(fmt::format("{}: 'hidden_size' must be at least 1 (got 0)", source));
        if (!absent({"num_attention_heads", "n_head", "num_heads", "n_heads"}) && a.heads == 0)
            throw InputError(
                fmt::format("{}: 'num_attention_heads' must be at least 1 (got 0)", source));
        throw InputError(
            fmt::format("{}: missing the model shape (need num_hidden_layers, hidden_size and "
                        "num_attention_heads, or their "
                        "GPT-2/T5 spellings n_layer/n_embd/n_head, num_layers/d_model/num_heads)",
                        source));
    }
    a.intermediate = int_field(
        j, {"intermediate_size", "n_inner", "d_ff", "ffn_dim", "ffn_hidden_size"}, source);
    if (a.intermediate == 0) a.intermediate = 4 * a.hidden;  // GPT-2/J, Falcon: FFN = 4 x hidden
    a.kv_heads = int_field(
        j, {"num_key_value_heads", "num_kv_heads", "n_head_kv", "multi_query_group_num"}, source);
    if (a.kv_heads == 0 && absent({"num_key_value_heads"})) a.kv_heads = traits.default_kv_heads;
    if (t == "falcon" && !bool_field(j, "new_decoder_architecture", false, source))
        a.kv_heads = bool_field(j, "multi_query", true, source) ? 1 : a.heads;
    if (a.kv_heads == 0) a.kv_heads = bool_field(j, "multi_query", false, source) ? 1 : a.heads;
    a.head_dim = int_field(j, {"head_dim", "d_kv"}, source);
    if (a.head_dim == 0 && absent({"head_dim"})) a.head_dim = traits.default_head_dim;
    if (a.head_dim == 0) {
        a.head_dim = a.hidden / a.heads;
        if (a.head_dim == 0)
            throw InputError(fmt::format(
                "{}: hidden_size {} is smaller than num_attention_heads {}, so each head would "
                "have no width; check both fields",
                source, a.hidden, a.heads));
    }
    a.vocab = int_field(j, {"vocab_size", "padded_vocab_size", "n_vocab"}, source);
    if (a.vocab == 0 && absent({"vocab_size"})) a.vocab = traits.default_vocab;
    a.max_position =
        int_field(j, {"max_position_embeddings", "n_positions", "n_ctx", "seq_length"}, source);
    a.torch_dtype = string_field(j, "torch_dtype", source);
    if (a.torch_dtype.empty()) a.torch_dtype = string_field(root, "torch_dtype", source);

    // Sliding-window attention: a window with no layer pattern applies to
    // every layer (Mistral 7B v0.1); Qwen2-style configs carry a window that
    // is off unless use_sliding_window is true.
    a.sliding_window = int_field(j, {"sliding_window"}, source);
    if (!j.find("sliding_window")) a.sliding_window = traits.default_sliding_window;
    if (!bool_field(j, "use_sliding_window", true, source)) a.sliding_window = 0;
    read_layer_types(j, a, source);
    read_local_attention(j, a, source);
    if (a.sliding_window > 0 && a.sliding_layers == 0 && !j.find("layer_types")) {
        const std::int64_t period = int_field(j, {"sliding_window_pattern"}, source) > 0
                                        ? int_field(j, {"sliding_window_pattern"}, source)
                                        : traits.sliding_period;
        a.sliding_layers = period > 0 ? a.layers - a.layers / period : a.layers;
    }
    if (a.sliding_window == 0) a.sliding_layers = 0;

    a.tied_embeddings = bool_field(j, "tie_word_embeddings", !traits.untied, source);
    if (&j != &root && root.find("tie_word_embeddings"))
        a.tied_embeddings = bool_field(root, "tie_word_embeddings", a.tied_embeddings, source);

    // Block structure by family: norm type, MLP kind, biases.
    a.mlp = traits.plain_mlp ? MlpKind::Plain : MlpKind::Gated;
    a.norm = traits.layer_norm ? NormKind::LayerNorm : NormKind::RmsNorm;
    if (t == "qwen") a.intermediate /= 2;  // Qwen-1 stores the sum of both SwiGLU branches
    const bool biases = traits.biases || bool_field(j, "bias", false, source);
    a.qkv_bias = biases || traits.qkv_bias || bool_field(j, "attention_bias", false, source) ||
                 bool_field(j, "use_qkv_bias", false, source);
    a.out_bias =
        biases || (traits.attention_bias_out && bool_field(j, "attention_bias", false, source));
    a.mlp_bias = biases || bool_field(j, "mlp_bias", false, source);
    if (t == "gptj") {  // GPT-J: biases on the MLP only
        a.qkv_bias = a.out_bias = false;
        a.mlp_bias = true;
    }
    a.lm_head_bias = traits.lm_head_bias;
    a.norms_per_layer = traits.norms_per_layer;
    // Falcon's original blocks run attention and MLP in parallel from one norm.
    if (t == "falcon" && !bool_field(j, "new_decoder_architecture", false, source))
        a.norms_per_layer = 1;
    a.qk_norm =
        traits.qk_norm || (traits.use_qk_norm_key && bool_field(j, "use_qk_norm", false, source));
    a.qk_norm_per_head = a.qk_norm && traits.qk_norm_per_head;
    a.attention_sinks = traits.attention_sinks;
    a.gated_attention = traits.gated_attention || bool_field(j, "attn_output_gate", false, source);
    if (traits.extra_vocab_rows > 0) a.extra_params += traits.extra_vocab_rows * a.hidden;
    if (traits.learned_positions) a.learned_positions = a.max_position;
    read_task(root, a, source);
    if (t == "bert" || t == "roberta" || t == "xlm-roberta") {
        a.encoder_only = true;
        // Token-type embeddings and one dense layer with bias: the pooler of
        // `*Model` (and of BERT's classifier), RoBERTa's classification head's
        // own dense layer, which replaces the pooler (modeling_roberta.py,
        // add_pooling_layer=False), or a masked-LM head's transform. The
        // embedding LayerNorm is the one norm count_params adds after the
        // blocks (BERT has no final norm). A classifier adds hidden -> labels.
        const std::int64_t h = a.hidden;
        a.extra_params = int_field(j, {"type_vocab_size"}, source) * h + h * h + h;
        if (a.task == ModelTask::Rerank)
            a.extra_params += h * a.classifier_labels + a.classifier_labels;
    } else if (a.task == ModelTask::Rerank && a.classifier_labels > 0) {
        // A decoder's sequence classifier (Qwen3ForSequenceClassification,
        // LlamaForSequenceClassification): `score`, hidden -> labels, no bias.
        a.extra_params += a.hidden * a.classifier_labels;
    }
    if (t == "t5" || t == "mt5" || bool_field(j, "is_encoder_decoder", false, source)) {
        a.encoder_decoder = true;
        a.decoder_layers = int_field(j, {"num_decoder_layers"}, source);
        if (a.decoder_layers == 0) a.decoder_layers = a.layers;
        const std::string proj = string_field(j, "feed_forward_proj", source);
        a.mlp = starts_with(proj, "gated") ? MlpKind::Gated : MlpKind::Plain;
        a.norm = NormKind::RmsNorm;  // T5 LayerNorm has no bias
        if (const std::int64_t d_kv = int_field(j, {"d_kv"}, source); d_kv > 0) a.head_dim = d_kv;
        // relative position buckets, one table per stack
        a.extra_params =
            2 *
            std::max<std::int64_t>(int_field(j, {"relative_attention_num_buckets"}, source), 32) *
            a.heads;
    }
    // An encoder-decoder's bare `T5Model` is not an embedding model gpuadvise sizes.
    if (a.encoder_decoder) a.task = ModelTask::Generate;

    // Mixture of experts.
    a.experts = int_field(
        j, {"num_local_experts", "n_routed_experts", "num_experts", "moe_num_experts"}, source);
    if (a.experts > 0) {
        a.experts_per_token = int_field(
            j, {"num_experts_per_tok", "experts_per_token", "moe_top_k", "top_k"}, source);
        a.moe_intermediate = int_field(j, {"moe_intermediate_size"}, source);
        // Llama 4: intermediate_size is the experts' width, intermediate_size_mlp
        // the dense layers'.
        if (const std::int64_t dense = int_field(j, {"intermediate_size_mlp"}, source); dense > 0) {
            if (a.moe_intermediate == 0) a.moe_intermediate = a.intermediate;
            a.intermediate = dense;
        }
        if (a.moe_intermediate == 0) a.moe_intermediate = a.intermediate;  // Mixtral
        a.shared_intermediate =
            int_field(j, {"shared_expert_intermediate_size"}, source) +
            (j.find("n_shared_experts") ? int_field(j, {"n_shared_experts"}, source)
                                        : traits.shared_experts) *
                a.moe_intermediate;
        a.dense_layers = a.layers - moe_layer_count(j, a.layers, source);
        a.router_bias = traits.router_bias;
        a.expert_bias = traits.expert_bias;
        a.shared_expert_gate = traits.shared_expert_gate && a.shared_intermediate > 0;
    }
    a.nextn_predict_layers = int_field(j, {"num_nextn_predict_layers"}, source);
    if (a.nextn_predict_layers > a.layers)
        throw InputError(
            fmt::format("{}: 'num_nextn_predict_layers' = {} is more than num_hidden_layers ({})",
                        source, a.nextn_predict_layers, a.layers));
    if (traits.mtp_counted) a.mtp_layers = a.nextn_predict_layers;
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
    read_linear_attention(j, a, source);
    read_cross_attention(root, j, a, source);
    read_vision(root, a, source);
    a.quantization = parse_quantization_config(root, source);
    validate_architecture(a, source);
    return a;
}

Architecture parse_hf_config(std::string_view json_text, std::string_view source) {
    const json::Document doc =
        json::Document::parse(json_text, source, "a Hugging Face config.json");
    return architecture_from_json(doc.root(), source);
}

}  // namespace gpuadvise
