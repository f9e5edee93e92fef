// Embedding and reranker models (docs/models.md, "Embedding and reranker
// models"): a batch of sequences, each run through the model once and pooled
// (an embedding) or scored (a query-document pair); nothing is generated, so
// there is no KV cache, no decode and no time to first token. The fields of
// generation, latency targets, speculative decoding and images do not apply,
// and each is refused by name with the fix on its row of the field table
// (`generating_only`); training such a model (contrastive loss over
// in-batch negatives) is not modelled.
#include <fmt/format.h>

#include <algorithm>

#include "gpuadvise/error.hpp"
#include "resolver.hpp"

namespace gpuadvise::workload_detail {

namespace {

// sentence-transformers' SentenceTransformer.encode(batch_size=32) and
// CrossEncoder.predict(batch_size=32), the libraries that embed and rerank
// in Python: how many sequences go through the model at once by default.
constexpr std::int64_t kDefaultBatch = 32;
// Tokens per sequence when none are given: 512, the positions of the BERT
// family and the chunk length retrieval pipelines split documents into
// (sentence-transformers' max_seq_length of BERT-size models), capped by the
// model's own limit.
constexpr std::int64_t kDefaultTokens = 512;

}  // namespace

void Resolver::pooling_fields() {
    if (!w_.model.arch.pools()) return;
    // With its article: "an embedding model", "a reranker model".
    const std::string_view kind =
        w_.model.arch.task == ModelTask::Embed ? "an embedding" : "a reranker";
    if (w_.trains()) {
        const Arg m = arg(Field::Method);
        throw InputError(fmt::format(
            "{} is {} model; {} {} (training one with a contrastive loss over in-batch "
            "negatives) is not modelled: use --method inference",
            w_.model.name, kind, m ? m.from() : std::string("--method"), to_string(w_.method)));
    }
    // What applies to generation only is the field table's `generating_only`
    // column, the fix on each field's row.
    for (const FieldSpec& s : field_specs())
        if (const Arg a = arg(s.field); a && !s.generating_only.empty())
            throw InputError(fmt::format("{} does not apply to {} model ({}): {}", a.from(), kind,
                                         w_.model.name, s.generating_only));
}

void Resolver::pooling_tokens() {
    const Field seq_flag = seq_field();
    const std::int64_t limit = w_.model.arch.max_position;
    if (r_.has(seq_flag)) {
        w_.seq = positive(seq_flag, kMaxTokens);
    } else {
        w_.seq = limit > 0 ? std::min(kDefaultTokens, limit) : kDefaultTokens;
        assume(
            fmt::format("seq={} tokens per sequence (a retrieval chunk: the BERT family's 512 "
                        "positions{})",
                        w_.seq, limit > 0 && limit < kDefaultTokens ? ", cut to the model's" : ""));
    }
    w_.prompt = w_.seq;
    w_.gen = 0;
    if (!r_.has(Field::Batch)) {
        w_.batch = kDefaultBatch;
        assume(
            fmt::format("batch={} sequences a forward (sentence-transformers' encode and "
                        "predict default)",
                        kDefaultBatch));
    }
}

}  // namespace gpuadvise::workload_detail

namespace gpuadvise {

std::int64_t pooled_sequences_at_once(const Workload& w) {
    const std::int64_t s = std::max<std::int64_t>(w.seq, 1);
    // llama.cpp embeds and reranks a sequence within one micro-batch (its
    // pooling reads every token of it; llama-server refuses a sequence longer
    // than n_ubatch), so a micro-batch holds whole sequences.
    if (w.engine && w.engine->prefill_chunk > 0) {
        const std::int64_t chunk = std::max<std::int64_t>(w.engine->prefill_chunk, s);
        return std::clamp<std::int64_t>(chunk / s, 1, std::max<std::int64_t>(w.batch, 1));
    }
    return std::max<std::int64_t>(w.batch, 1);
}

}  // namespace gpuadvise
