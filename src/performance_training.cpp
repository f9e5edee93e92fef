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

// Bytes one token moves through a layer's element-wise kernels in one
// forward, counted from the ops each code path runs (docs/performance-model.md,
// "Training"). `fused`: one read and one write per op chain (torch.compile,
// Transformer Engine, Unsloth's and Liger's Triton kernels); else eager
// PyTorch, as the Hugging Face model code runs it:
// - RMSNorm (transformers LlamaRMSNorm.forward, torchtune and litgpt the same
//   way): x.to(float32), pow(2), mean, x * rsqrt(var + eps), .to(dtype),
//   weight * x, each its own kernel: (a + 4) + 8 + 4 + 8 + (4 + a) + 2a =
//   28 + 4a bytes per element (a = the activation's bytes); LayerNorm is one
//   native kernel (torch.nn.functional.layer_norm): read and write, 2a;
// - rotary embedding (apply_rotary_pos_emb): q * cos, rotate_half's negation
//   of one half and torch.cat, * sin, the sum: 2a + a + 2a + 2a + 3a = 10a per
//   element of q and k; fused 2a;
// - the gated MLP's act_fn(gate) * up: silu 2a, the product 3a per element;
//   fused 3a; a plain MLP's GeLU is one native kernel, 2a;
// - the two residual adds: read two, write one, 3a per element of the hidden;
// - a LoRA adapter (PEFT's Linear.forward: result + lora_B(lora_A(dropout(x)))
//   * scaling): lora_A reads its input (a), dropout reads and writes it and
//   its mask (2a + 1, when p > 0); lora_B writes its output (a), the scaling
//   reads and writes it (2a), the sum reads two and writes one (3a); Unsloth's
//   LoRA kernels add B(A x) inside the base matmul (addmm): only the read of x.
double elementwise_forward_bytes(const Workload& w, bool fused) {
    const Architecture& a = w.model.arch;
    const auto [h, q, kv, f] = layer_widths(a);
    const double act = w.precision == Precision::Fp32 ? 4.0 : 2.0;
    const double norms = static_cast<double>(std::max<std::int64_t>(a.norms_per_layer, 1));
    // QLoRA through PEFT's prepare_model_for_kbit_training keeps the
    // embeddings and norms in fp32, so the residual stream is fp32: each norm
    // reads and writes 4 bytes, each residual add reads 4 + a and writes 4,
    // and every 4-bit linear casts its fp32 input to the compute dtype
    // (bitsandbytes Linear4bit.forward: x.to(compute_dtype)), 4 + a per consumer.
    const bool fp32_stream =
        w.method == Method::Qlora && w.profile().kbit_fp32 && act < 4.0 && !fused;
    const double resid = fp32_stream ? 4.0 : act;
    const bool eager_rms = !fused && a.norm == NormKind::RmsNorm;
    const double norm = eager_rms ? 28.0 + (resid < 4.0 ? 4.0 * resid : 0.0) : 2.0 * resid;
    double bytes = norms * norm * h + 2.0 * (2.0 * resid + act) * h;
    if (fp32_stream) {
        const double consumers =
            (w.profile().fused_qkv ? 1.0 : 3.0) + (a.mlp == MlpKind::Gated ? 2.0 : 1.0);
        bytes += consumers * (4.0 + act) * h;
    }
    if (a.qk_norm) bytes += norm * (q + kv);
    if (a.learned_positions == 0) bytes += (fused ? 2.0 : 10.0) * act * (q + kv);
    if (a.mlp == MlpKind::Gated)
        bytes += (fused ? 3.0 : 5.0) * act * f;
    else
        bytes += 2.0 * act * f;
    if (w.uses_lora()) {
        const bool kernels = w.profile().fused_lora_kernels && w.lora_dropout == 0;
        const double in_side = act + (w.lora_dropout > 0 ? 2.0 * act + 1.0 : 0.0);
        const double out_side = kernels ? 0.0 : 6.0 * act;
        const auto adapter = [&](LoraTarget t, double in, double out) {
            if (w.targets(t)) bytes += in_side * in + out_side * out;
        };
        adapter(LoraTarget::Q, h, q);
        adapter(LoraTarget::K, h, kv);
        adapter(LoraTarget::V, h, kv);
        adapter(LoraTarget::O, q, h);
        if (a.mlp == MlpKind::Gated) adapter(LoraTarget::Gate, h, f);
        adapter(LoraTarget::Up, h, f);
        adapter(LoraTarget::Down, f, h);
    }
    return bytes;
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

double training_width_efficiency(double width, const Gpu& gpu, double rate) {
    const double bandwidth = gpu.memory_bandwidth_gbps * 1e9;
    if (!(bandwidth > 0) || !(rate > 0)) return width_efficiency(width);
    const double W = speed_fit("training_width_per_ridge") * rate / bandwidth;
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
    const auto efficiency = [&](double width) {
        return training_width_efficiency(width, gpu, rate);
    };
    out.matmul = tokens * per_token / (rate * efficiency(h));
    // The vision encoder's forward over the images; full fine-tuning trains
    // it too (backward twice the forward, a recomputed forward with
    // checkpointing), LoRA and QLoRA leave it frozen (forward only).
    if (w.images.any()) {
        const double passes = w.method == Method::Full ? 3.0 + (w.grad_ckpt ? 1.0 : 0.0) : 1.0;
        const double width = static_cast<double>(std::max<std::int64_t>(a.vision.hidden, 1));
        out.matmul += passes * image_step_flops(w) / (rate * efficiency(width));
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
        out.matmul +=
            expert_flops / rate *
            (1.0 / efficiency(static_cast<double>(a.moe_intermediate)) - 1.0 / efficiency(h));
    }
    // Forward once, backward about twice the forward's traffic (each op
    // reads its saved input and the output's gradient and writes the input's
    // gradient), a recomputed forward once more.
    const double passes = 3.0 + (w.grad_ckpt ? 1.0 : 0.0);
    double bytes = tokens * layers * elementwise_forward_bytes(w, w.fused_kernels) * passes;
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
