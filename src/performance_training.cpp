// One training micro-step on one GPU as its kernels run: the matmuls at the
// card's attainable rate (data/attainable.json) and the width's efficiency,
// then the bandwidth-bound kernels (normalisation, activation, residual and
// rotary element-wise work and their backward, the loss over the logits, the
// dequantisation of a quantised base, the optimizer step) at the card's
// bandwidth, and eager PyTorch's launch floor (docs/performance-model.md,
// "Training").
#include <algorithm>
#include <cmath>

#include "performance_common.hpp"

namespace gpuadvise::performance_detail {

namespace {

// Bytes one element moves per pass of the element-wise kernels around a
// layer's matmuls, forward: RMSNorm/LayerNorm reads x and writes y (two per
// layer), each residual add reads two and writes one (two per layer),
// rotary embedding reads and writes q and k, the MLP's activation reads its
// input(s) and writes the product. Backward reads the saved inputs and the
// output gradient and writes the input gradient: about twice the forward's
// traffic (assumed from the ops' shapes); a recomputed forward moves it once
// more.
double elementwise_elements(const Architecture& a) {
    const auto [h, q, kv, f] = layer_widths(a);
    const double activation = a.mlp == MlpKind::Gated ? 3.0 * f : 2.0 * f;
    return 2.0 * 2.0 * h + 2.0 * 3.0 * h + 2.0 * (q + kv) + activation;
}

// Bytes per logit the loss moves (written, then read by the softmax and its
// backward): the 16-bit logits and their gradient; with the upcast loss also
// the fp32 copy, its softmax and gradient (the memory model's per-logit
// bytes, docs/memory-model.md "The loss", moved twice); a fused
// linear-cross-entropy keeps its tiles on chip.
double loss_bytes_per_logit(Loss loss) {
    switch (loss) {
        case Loss::Upcast:
            return 2.0 * 16.0;
        case Loss::Bf16:
            return 2.0 * 6.0;
        case Loss::Chunked:
            return 2.0 * 2.0 * 2.0;
        case Loss::Fused:
            return 0.0;
    }
    return 0.0;
}

// Bytes one trainable parameter moves in the optimizer step (read and
// written, from the update rule): AdamW reads the weight, its gradient and
// both moments and writes the weight and the moments; with fp32 master
// weights (amp) every one of those is 4 bytes, else 2; 8-bit AdamW keeps the
// moments in one byte each; SGD reads and writes the weight (and its
// momentum); Lion keeps one moment; Adafactor's factored second moment is
// negligible per element.
double optimizer_bytes_per_param(const Workload& w) {
    const double p = w.mixed == MixedPrecision::Amp || w.precision == Precision::Fp32 ? 4.0 : 2.0;
    switch (w.optimizer) {
        case Optimizer::AdamW:
        case Optimizer::PagedAdamW32bit:
            return p * 7.0;
        case Optimizer::AdamW8bit:
        case Optimizer::PagedAdamW8bit:
            return p * 3.0 + 4.0;
        case Optimizer::Sgd:
            return p * 3.0;
        case Optimizer::SgdMomentum:
        case Optimizer::Lion:
            return p * 5.0;
        case Optimizer::Adafactor:
            return p * 4.0;
    }
    return p * 7.0;
}

// Passes a quantised base is dequantised in: the forward, the backward (the
// input gradient needs the 16-bit weight again) and a recomputed forward.
// bitsandbytes' matmul_4bit dequantises the whole weight to the compute dtype
// before each 16-bit matmul of a training step (bitsandbytes
// autograd/_functions.py: gemv_4bit only for a single token without grad).
double dequant_passes(const Workload& w) {
    return 2.0 + (w.grad_ckpt ? 1.0 : 0.0);
}

// Bytes each score element of eager attention moves: forward, the QK^T
// product writes it (2), the softmax reads and writes it (4), dropout reads
// and writes it and its mask (5), the product with V reads it (2); backward
// the gradient of the probabilities is written (2), dropout's backward reads
// it and the mask and writes (5), the softmax backward reads the
// probabilities and the gradient and writes the scores' gradient (6), and
// the two products read that (4): 13 forward, 30 in all (counted from the
// ops, 16-bit elements; assumed).
constexpr double kEagerScoreForwardBytes = 13.0;
constexpr double kEagerScoreBytes = 30.0;

}  // namespace

double width_efficiency(double width) {
    const double W = speed_fit("training_width");
    return width / (width + W);
}

double optimizer_step_seconds(const Workload& w, const MemoryEstimate& memory, const Gpu& gpu,
                              double shards) {
    const double params = static_cast<double>(memory.trainable_params) / std::max(shards, 1.0);
    return params * optimizer_bytes_per_param(w) / elementwise_bandwidth(gpu);
}

MicroStep training_micro_step(const Workload& w, const MemoryEstimate& memory, const Gpu& gpu,
                              double rate) {
    MicroStep out;
    const Architecture& a = w.model.arch;
    const double active = static_cast<double>(w.model.active_params);
    const double layers = static_cast<double>(a.total_layers());
    const double h = static_cast<double>(a.hidden);
    const double s = static_cast<double>(w.seq);
    const double tokens = static_cast<double>(w.batch) * s;
    // FLOPs per token: forward 2P, backward 4P for trained weights (frozen
    // LoRA bases skip the weight gradient: 2P), a recomputed forward 2P;
    // attention's QK^T and AV 12 L h s forward and backward (+4 L h s recomputed).
    double per_token = (w.method == Method::Full ? 6.0 : 4.0) * active + 12.0 * layers * h * s;
    if (w.grad_ckpt) per_token += 2.0 * active + 4.0 * layers * h * s;
    out.matmul = tokens * per_token / (rate * width_efficiency(h));
    // The vision encoder's forward over the images; full fine-tuning trains
    // it too (backward twice the forward, a recomputed forward with
    // checkpointing), LoRA and QLoRA leave it frozen (forward only).
    if (w.images.any()) {
        const double passes = w.method == Method::Full ? 3.0 + (w.grad_ckpt ? 1.0 : 0.0) : 1.0;
        const double width = static_cast<double>(std::max<std::int64_t>(a.vision.hidden, 1));
        out.matmul += passes * image_step_flops(w) / (rate * width_efficiency(width));
    }
    // An MoE layer's routed experts are matrices moe_intermediate wide, fed a
    // few tokens each: the same width law at the narrower matrix.
    if (a.is_moe() && a.moe_intermediate > 0 && a.moe_intermediate < a.hidden) {
        const ParamCounts counts = count_params(a);
        const double share = counts.active() > 0 ? static_cast<double>(counts.routed_active) /
                                                       static_cast<double>(counts.active())
                                                 : 0.0;
        const double expert_flops =
            tokens *
            (per_token - 12.0 * layers * h * s - (w.grad_ckpt ? 4.0 * layers * h * s : 0.0)) *
            std::min(share, 1.0);
        out.matmul += expert_flops / rate *
                      (1.0 / width_efficiency(static_cast<double>(a.moe_intermediate)) -
                       1.0 / width_efficiency(h));
    }
    const double act = w.precision == Precision::Fp32 ? 4.0 : 2.0;
    const double passes = 3.0 + (w.grad_ckpt ? 1.0 : 0.0);
    double bytes = tokens * layers * elementwise_elements(a) * act * passes;
    bytes += tokens * static_cast<double>(a.vocab) * loss_bytes_per_logit(w.loss);
    // Attention without a fused kernel materialises every score: per layer,
    // token and head, one element per key (the mask is applied, not skipped).
    if (!w.flash_attn)
        bytes += tokens * layers * static_cast<double>(a.heads) * s *
                 (kEagerScoreBytes + (w.grad_ckpt ? kEagerScoreForwardBytes : 0.0));
    // A quantised frozen base (QLoRA): each pass reads the packed weights and
    // writes their 16-bit copy for the matmul.
    if (!w.quant.none() && !w.quant.is_gguf()) {
        const ParamCounts counts = count_params(a);
        const double linear = static_cast<double>(counts.active_linear);
        bytes += dequant_passes(w) *
                 (static_cast<double>(memory.get(&Components::weights)) + 2.0 * linear);
    }
    out.memory = bytes / elementwise_bandwidth(gpu);
    // Eager PyTorch launches every kernel from Python: a forward, a backward
    // (about twice the forward's kernels) and a recomputed forward, each
    // kEagerLayerSeconds per layer; the GPU's work overlaps it.
    out.launch = layers * (3.0 + (w.grad_ckpt ? 1.0 : 0.0)) * kEagerLayerSeconds;
    return out;
}

}  // namespace gpuadvise::performance_detail
