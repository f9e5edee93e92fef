// An embedding or reranker model's speed (docs/models.md,
// "Embedding and reranker models"): one forward over the batch, with no
// decode. Its FLOPs are the linear weights each token passes (2 per weight;
// the embedding table is a lookup, not a matmul, and a large share of an
// encoder like BGE-M3's parameters), attention over each sequence (both
// directions for an encoder, the causal half for a decoder) and the head at
// one position per sequence; at the engine's attainable rate this is set
// against reading the weights once per micro-batch, as a prefill is.
#include <algorithm>
#include <cmath>

#include "performance_common.hpp"

namespace gpuadvise::performance_detail {

double embedding_inference(Performance& perf, const Workload& w, const MemoryEstimate& memory,
                           const Gpu& gpu) {
    const Engine& e = *w.engine;
    const Architecture& a = w.model.arch;
    const double n = static_cast<double>(w.gpus);
    const double b = static_cast<double>(w.batch);
    const double s = static_cast<double>(w.seq);
    const double h = static_cast<double>(a.hidden);
    const AttainableRate path = engine_rate(w, e, gpu);
    if (path.tflops) perf.matmul_rate = path;
    const std::optional<double> rate = forward_rate(path, gpu, e);
    if (!rate) return 0;
    // The shape's linear weights per token, scaled to the model's own count
    // (a file's exact total, or a bare size).
    const ParamCounts counts = count_params(a);
    const double scale = counts.active() > 0 ? static_cast<double>(w.model.active_params) /
                                                   static_cast<double>(counts.active())
                                             : 1.0;
    const double linear = static_cast<double>(counts.active_linear) * scale;
    const double attention_layers = static_cast<double>(
        std::max<std::int64_t>(a.layers - (a.linear_attention() ? a.kv_free_layers : 0), 0));
    // QK^T and AV: 4 s^2 d per layer over every pair, half of it when causal.
    const double attention =
        (a.encoder_only ? 4.0 : 2.0) * attention_layers * s * s * static_cast<double>(a.q_dim());
    const double head = a.has_lm_head() ? 2.0 * static_cast<double>(a.vocab) * h
                        : a.classifier_labels > 0
                            ? 2.0 * h * static_cast<double>(a.classifier_labels)
                            : 0.0;
    const double flops = b * (2.0 * linear * s + attention + head);
    const double speedup = w.parallel == Parallel::Tp ? n : 1.0;
    const double compute = flops / (*rate * width_efficiency(h) * speedup);
    // Weights are read once per micro-batch of whole sequences.
    const double at_once = static_cast<double>(pooled_sequences_at_once(w));
    const double passes = std::ceil(b / at_once);
    const double bw =
        gpu.memory_bandwidth_gbps * 1e9 * e.bandwidth_efficiency * decode_platform_share(gpu, e);
    const double weight_bytes = static_cast<double>(memory.get(&Components::weights));
    const double reads = passes * weight_bytes * weights_read_share(a, at_once * s) / bw;
    const double launches = passes * host_seconds(w, gpu);
    const double work = std::max(compute, reads);
    const double seconds = eager(e) ? std::max(work, launches) : work + launches;
    perf.bound = compute >= reads ? Bound::Compute : Bound::Memory;
    perf.batch_seconds = seconds;
    perf.sequences_per_s = b / seconds;
    perf.prefill_tokens_per_s = b * s / seconds;
    return *perf.prefill_tokens_per_s * 3600.0;
}

}  // namespace gpuadvise::performance_detail
