// Speculative decoding (--draft, --draft-tokens, --draft-acceptance): the
// draft that proposes tokens, how many a step, and the acceptance rate the
// speed rests on, each default with its source (data/speculative.json;
// docs/performance-model.md, "Speculative decoding"). Inference only: the
// field table's applicability check refuses them for training.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "gpuadvise/error.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"
#include "resolver.hpp"

namespace gpuadvise::workload_detail {

namespace {

// The engines of data/speculative.json that run a draft of `kind`, for messages.
std::string engines_running(DraftKind kind) {
    std::vector<std::string> ids;
    for (const EngineSpeculation& e : speculative_data().engines)
        if (kind == DraftKind::Mtp ? e.mtp : e.draft_model) ids.push_back(e.engine);
    std::string out;
    for (std::size_t i = 0; i < ids.size(); ++i)
        out += (i == 0 ? "" : i + 1 == ids.size() ? " or " : ", ") + ids[i];
    return out;
}

}  // namespace

// A draft model: a language preset or a size. A size is a model of the
// target's family: its shape is inferred, with the target's vocabulary (a
// draft must share the target's tokenizer).
Model Resolver::draft_model(const Arg& a) const {
    const std::string text(trim(a.text()));
    Model d;
    if (looks_like_size(text)) {
        const std::uint64_t params = parse_param_count(text, a.from());
        d.name = text;
        d.origin = ModelOrigin::Size;
        d.arch = infer_architecture(params);
        d.arch.vocab = w_.model.arch.vocab;
        d.params = params;
        d.active_params = params;
        return d;
    }
    const ModelPreset* p = find_preset(presets_, text);
    if (p == nullptr) {
        std::vector<std::string> names;
        for (const ModelPreset& m : presets_)
            if (!m.image) names.push_back(m.id);
        const auto near = closest_name(text, names);
        throw InputError(fmt::format(
            "{} {}: no such model{}; give a preset that shares the target's tokenizer, a size "
            "like 1B, or mtp for the checkpoint's own MTP layers",
            a.from(), quote(text), near ? fmt::format(" (did you mean '{}'?)", *near) : ""));
    }
    if (p->image)
        throw InputError(fmt::format(
            "{} {} is an image model; a draft is a language model that shares the target's "
            "tokenizer (e.g. --draft llama-3.2-1b for a Llama 3 target)",
            a.from(), p->id));
    d.name = p->id;
    d.hf_repo = p->hf_repo;
    d.origin = ModelOrigin::Preset;
    d.arch = p->arch;
    const ParamCounts counts = count_params(d.arch);
    d.params = counts.total();
    d.active_params = counts.active();
    return d;
}

// The checkpoint's MTP layers as a model of their own: each is a decoder
// layer of the last layer's kind (an MoE layer for DeepSeek-V3 and GLM-4.5)
// with the copies of the embedding and head the checkpoint stores, eh_proj
// (2 x hidden to hidden) and its norms, as count_params counts them
// (model_params.cpp). Its KV cache is one layer's per MTP layer.
Model Resolver::mtp_model(const Arg& a) const {
    const Architecture& t = w_.model.arch;
    if (t.nextn_predict_layers <= 0)
        throw InputError(fmt::format(
            "{} mtp: {} has no multi-token-prediction layers (its config has no "
            "num_nextn_predict_layers); give a draft model instead, e.g. --draft 1B, or a model "
            "with MTP layers (deepseek-v3, deepseek-r1, glm-4.5-air)",
            a.from(), sanitize(w_.model.name, 60)));
    Model d;
    d.name = fmt::format("{} MTP", sanitize(w_.model.name, 60));
    d.origin = w_.model.origin;
    Architecture m = t;
    m.layers = t.nextn_predict_layers;
    m.dense_layers = 0;  // the last layer's kind: an MoE layer where the model has them
    if (!t.is_moe() || t.dense_layers >= t.layers) m.experts = m.experts_per_token = 0;
    m.mtp_layers = 0;
    m.nextn_predict_layers = 0;
    m.kv_free_layers = 0;
    m.sliding_layers = 0;
    m.cross_attention_layers = 0;
    m.decoder_layers = 0;
    m.encoder_decoder = false;
    m.vision_model.clear();
    m.vision_linear = m.vision_other = 0;
    m.tied_embeddings = false;  // its own embed_tokens and shared_head.head
    // eh_proj and the enorm and hnorm of each layer (shared_head.norm is the final norm).
    m.extra_params = m.layers * (2 * m.hidden * m.hidden + 2 * m.hidden);
    d.arch = m;
    const ParamCounts counts = count_params(m);
    d.params = counts.total();
    d.active_params = counts.active();
    return d;
}

void Resolver::speculation() {
    const Arg d = arg(Field::Draft), k = arg(Field::DraftTokens), p = arg(Field::DraftAcceptance);
    if (!d) {
        for (const Arg& x : {k, p})
            if (x)
                throw InputError(fmt::format(
                    "{} sets speculative decoding; add --draft MODEL (a smaller model with the "
                    "same tokenizer) or --draft mtp",
                    x.from()));
        return;
    }
    if (w_.trains() || w_.engine == nullptr || !w_.is_language()) return;  // refused elsewhere
    Speculation s;
    s.given = std::string(trim(d.text()));
    s.kind = lower(s.given) == "mtp" ? DraftKind::Mtp : DraftKind::Model;
    s.draft = s.mtp() ? mtp_model(d) : draft_model(d);
    if (!s.mtp()) {
        if (s.draft.params >= w_.model.params)
            throw InputError(fmt::format(
                "{} {} ({} parameters) is not smaller than the model ({}); a draft must be "
                "much smaller than the target, e.g. --draft 1B",
                d.from(), quote(s.given), format_count(s.draft.params),
                format_count(w_.model.params)));
        if (s.draft.origin == ModelOrigin::Preset && s.draft.arch.vocab != w_.model.arch.vocab)
            w_.warnings.push_back(fmt::format(
                "the draft {} has a vocabulary of {} tokens and the model {}: engines need the "
                "draft to share the target's tokenizer (vLLM checks the vocabulary size, "
                "llama.cpp the tokens)",
                s.draft.name, s.draft.arch.vocab, w_.model.arch.vocab));
    } else {
        // GLM-4.5's count includes its MTP layer; DeepSeek-V3's published count does not.
        s.weights_in_target = w_.model.arch.mtp_layers >= w_.model.arch.nextn_predict_layers;
    }
    const SpeculativeData& data = speculative_data();
    const EngineSpeculation* e = data.engine(w_.engine->id);
    if (e == nullptr || !(s.mtp() ? e->mtp : e->draft_model))
        throw InputError(fmt::format(
            "{} {}: {} runs no {} that gpuadvise models; use --engine {} (data/speculative.json)",
            d.from(), quote(s.given), w_.engine->name,
            s.mtp() ? "multi-token-prediction drafting" : "draft model", engines_running(s.kind)));
    const std::int64_t layers = w_.model.arch.nextn_predict_layers;
    if (k) {
        s.tokens = positive(Field::DraftTokens, kMaxDraftTokens);
        s.tokens_basis = k.from();
    } else if (s.mtp() && e->mtp_tokens_from_checkpoint) {
        s.tokens = layers;
        s.tokens_basis =
            fmt::format("{}'s default: the checkpoint's {} MTP layer{} (num_nextn_predict_layers)",
                        w_.engine->name, layers, layers == 1 ? "" : "s");
    } else if (!s.mtp() && e->draft_tokens) {
        s.tokens = *e->draft_tokens;
        s.tokens_basis = fmt::format("{}'s default (data/speculative.json)", w_.engine->name);
    } else if (s.mtp()) {
        s.tokens = layers;
        s.tokens_assumed = true;
        s.tokens_basis = fmt::format(
            "assumed: {} states no default; the checkpoint's {} MTP layer{}, the depth it was "
            "trained to predict",
            w_.engine->name, layers, layers == 1 ? "" : "s");
    } else {
        s.tokens = data.assumed_draft_tokens;
        s.tokens_assumed = true;
        s.tokens_basis =
            fmt::format("assumed: {} has no default; vLLM's documentation example speculates {}",
                        w_.engine->name, data.assumed_draft_tokens);
    }
    if (!k) assume(fmt::format("draft-tokens={} ({})", s.tokens, s.tokens_basis));
    if (p) {
        s.acceptance = parse_real_in(p.text(), p.from(), 0.0, 1.0, "0.7");
        s.acceptance_basis = p.from();
        s.acceptance_given = true;
    } else {
        const AcceptanceRow* row =
            typical_acceptance(data, s.kind, static_cast<double>(w_.model.params),
                               static_cast<double>(s.draft.params));
        if (row == nullptr) throw std::logic_error("data/speculative.json has no acceptance row");
        s.acceptance = row->alpha;
        s.acceptance_basis =
            s.mtp() ? fmt::format("{} with {}, {}", row->target, row->draft, row->cite)
                    : fmt::format(
                          "{} drafted by {}, {:.0f}x smaller, {}, {}: the nearest size "
                          "ratio to this pair's {:.0f}x",
                          row->target, row->draft, *row->target_params / *row->draft_params,
                          row->sampling, row->cite,
                          static_cast<double>(w_.model.params) /
                              static_cast<double>(std::max<std::uint64_t>(s.draft.params, 1)));
        assume(
            fmt::format("draft-acceptance={:.2f} ({}; the real rate depends on the pair and "
                        "the text: --draft-acceptance sets it)",
                        s.acceptance, s.acceptance_basis));
    }
    w_.speculation = std::move(s);
}

}  // namespace gpuadvise::workload_detail
