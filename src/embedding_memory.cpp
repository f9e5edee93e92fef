// An embedding or reranker model's forward in memory (docs/models.md,
// "Embedding and reranker models"): the batch's sequences go through the
// model once, so nothing is cached between steps (no KV cache), and the peak
// is one layer's live tensors over the tokens run at once, plus what the
// head emits: a pooled vector per sequence, a classifier's labels, or for a
// causal reranker the vocabulary's logits at each sequence's last position.
#include "memory_common.hpp"

namespace gpuadvise::memory_detail {

void embedding_activations(const Workload& w, Components& c) {
    const Architecture& a = w.model.arch;
    const double act = dtype_bytes(w.precision);
    const double s = static_cast<double>(w.seq);
    const double sequences = static_cast<double>(pooled_sequences_at_once(w));
    const double tokens = sequences * s;
    const double h = static_cast<double>(a.hidden);
    c.kv_cache = 0;
    // One layer's peak, as a prefill's: the residual, the normed input, q, k,
    // v, the attention output and the MLP's intermediates of every token.
    c.activations = tokens * act *
                    (2.0 * h + 2.0 * static_cast<double>(a.q_dim()) +
                     2.0 * static_cast<double>(a.kv_dim()) + 3.0 * ffn_width(a));
    // Without a fused attention kernel each sequence's score matrix is
    // materialised, with its fp32 softmax.
    if (!w.flash_attn)
        c.activations += sequences * static_cast<double>(a.heads) * s * s * (act + 4.0);
    // The head's output for every sequence of the batch: the vocabulary's
    // logits at the last position (and their fp32 copy) for a causal
    // reranker, a classifier's labels, or the pooled vector.
    const double b = static_cast<double>(w.batch);
    const double outputs = a.has_lm_head()           ? static_cast<double>(a.vocab)
                           : a.classifier_labels > 0 ? static_cast<double>(a.classifier_labels)
                                                     : h;
    c.logits = b * outputs * (act + 4.0);
}

}  // namespace gpuadvise::memory_detail
