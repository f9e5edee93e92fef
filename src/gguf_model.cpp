// What a GGUF file says about the model: the `general.*` and `<arch>.*`
// metadata keys llama.cpp writes, and what the tensor names show of the block
// structure (gates, biases, norms, tied embeddings), mapped into a validated
// Architecture. The file's bytes are read by gguf.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string>

#include "gguf_common.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/gguf.hpp"

namespace gpuadvise::gguf_detail {

namespace {

// Names and strings shown to the user: control characters (a terminal escape
// in a file from the internet) become '?'.
std::string display_text(std::string_view text) {
    std::string out(text.substr(0, 200));
    for (char& c : out) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte == 0x7f) c = '?';
    }
    return out;
}

}  // namespace

void TensorHints::add(std::string_view name, const std::array<u64, 4>& dims, u32 n_dims) {
    const auto rows = [&] { return n_dims >= 2 ? static_cast<std::int64_t>(dims[1]) : 0; };
    if (name == "output.weight") has_output = true;
    if (name == "position_embd.weight") position_rows = rows();
    if (name == "token_embd.weight") embedding_rows = rows();
    if (name.substr(0, 4) != "blk.") return;
    const std::size_t dot = name.find('.', 4);
    if (dot == std::string_view::npos) return;
    const std::string_view layer = name.substr(4, dot - 4);
    const std::string_view s = name.substr(dot + 1);
    if (s == "ffn_gate.weight" || s == "ffn_gate_exps.weight") gated = true;
    if (s == "ffn_up.weight" || s == "ffn_up_exps.weight") up = true;
    if (s == "ffn_up.weight" && up_rows == 0) up_rows = rows();
    if (s == "attn_norm.bias") norm_bias = true;
    if (s == "attn_q.bias" || s == "attn_qkv.bias") qkv_bias = true;
    if (s == "attn_output.bias") out_bias = true;
    if (s == "ffn_up.bias" || s == "ffn_down.bias") mlp_bias = true;
    if (s == "attn_q_norm.weight") qk_norm = true;
    if (layer == "0" &&
        (s == "attn_norm.weight" || s == "attn_norm_2.weight" || s == "ffn_norm.weight" ||
         s == "post_attention_norm.weight" || s == "post_ffw_norm.weight"))
        ++layer0_norms;
}

void read_model(const Metadata& meta, const TensorHints& hints, GgufInfo& info) {
    // The model's shape, from the metadata keys llama.cpp writes.
    info.architecture = display_text(meta.get_string("general.architecture"));
    if (info.architecture.empty()) meta.fail("missing 'general.architecture' in the GGUF metadata");
    info.name = display_text(meta.get_string("general.name"));
    if (meta.find("general.file_type") != nullptr)
        info.file_type = meta.get_int("general.file_type");
    const std::string prefix = std::string(meta.get_string("general.architecture")) + ".";
    const auto arch_int = [&](const char* suffix) { return meta.get_int(prefix + suffix); };
    const auto require = [&](const char* suffix, std::int64_t value) {
        if (value == 0)
            meta.fail(fmt::format(
                "'{}{}' is missing or zero in the GGUF metadata; gpuadvise cannot size this model",
                printable_name(prefix), suffix));
    };

    Architecture& a = info.arch;
    a.model_type = info.architecture;
    a.layers = arch_int("block_count");
    a.hidden = arch_int("embedding_length");
    a.heads = arch_int("attention.head_count");
    require("block_count", a.layers);
    require("embedding_length", a.hidden);
    require("attention.head_count", a.heads);
    a.kv_heads = arch_int("attention.head_count_kv");
    if (a.kv_heads == 0) a.kv_heads = a.heads;  // GGUF: absent means no grouping
    a.head_dim = arch_int("attention.key_length");
    if (a.head_dim == 0 && a.heads > 0) a.head_dim = a.hidden / a.heads;
    a.max_position = arch_int("context_length");
    a.sliding_window = arch_int("attention.sliding_window");
    a.intermediate = arch_int("feed_forward_length");
    a.experts = arch_int("expert_count");
    if (a.experts > 0) {
        a.experts_per_token = arch_int("expert_used_count");
        a.moe_intermediate = arch_int("expert_feed_forward_length");
        if (a.moe_intermediate == 0)
            a.moe_intermediate = a.intermediate;  // Mixtral: every FFN is an expert
        if (a.intermediate == 0) a.intermediate = a.moe_intermediate;
        a.shared_intermediate = arch_int("expert_shared_feed_forward_length");
        if (a.shared_intermediate == 0)
            a.shared_intermediate = arch_int("expert_shared_count") * a.moe_intermediate;
        a.dense_layers = arch_int("leading_dense_block_count");
    }
    require("feed_forward_length", a.intermediate);

    if (const Value* tokens = meta.find("tokenizer.ggml.tokens"); tokens != nullptr) {
        if (tokens->type != kArray) meta.fail("'tokenizer.ggml.tokens' must be an array");
        a.vocab = static_cast<std::int64_t>(std::min(tokens->count, kMaxI64));
    }
    if (a.vocab == 0) a.vocab = arch_int("vocab_size");
    if (a.vocab == 0) a.vocab = hints.embedding_rows;
    if (a.vocab == 0)
        meta.fail("the vocabulary size is unknown (no 'tokenizer.ggml.tokens', '" +
                  printable_name(prefix) + "vocab_size' or 'token_embd.weight')");

    a.tied_embeddings = !hints.has_output;
    // No gate tensor means a plain MLP, unless the gate is fused into an up
    // projection twice the FFN size (Phi-3).
    if (hints.up && !hints.gated && hints.up_rows != 2 * a.intermediate) a.mlp = MlpKind::Plain;
    if (hints.norm_bias) a.norm = NormKind::LayerNorm;
    if (hints.layer0_norms > 0) a.norms_per_layer = hints.layer0_norms;
    a.qkv_bias = hints.qkv_bias;
    a.out_bias = hints.out_bias;
    a.mlp_bias = hints.mlp_bias;
    a.qk_norm = hints.qk_norm;
    a.learned_positions = hints.position_rows;
    // llama.cpp's converter writes `<arch>.pooling_type` for checkpoints that
    // pool (LLM_KV_POOLING_TYPE; llama_pooling_type 1 mean, 2 cls, 3 last, 4
    // rank): an embedding model, or with rank a reranker scoring with its
    // classifier (cls.output.weight). Its BERT-family archs attend both ways.
    if (const std::int64_t pooling = arch_int("pooling_type"); pooling > 0) {
        a.task = pooling == 4 ? ModelTask::Rerank : ModelTask::Embed;
        if (a.task == ModelTask::Rerank) a.classifier_labels = 1;
        a.encoder_only = info.architecture.find("bert") != std::string::npos;
    }
    validate_architecture(a, meta.source());
}

}  // namespace gpuadvise::gguf_detail
