#include "gpuadvise/memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpuadvise/units.hpp"

namespace gpuadvise {
namespace {

// Runtime overhead outside the framework's allocations. The CUDA context with
// PyTorch's kernels and cuBLAS/cuDNN handles measures 0.3-1.3 GiB depending on
// driver, library set and lazy loading (1343 MiB on the V100 rows of
// Hugging Face's model_memory_anatomy; ~0.5 GiB with CUDA 12 lazy loading);
// we take 0.75 GiB. The caching allocator reserves more than it hands out;
// 8 % of the allocated peak is a typical reserved/allocated gap.
constexpr double kCudaContextBytes = 0.75 * static_cast<double>(kGiB);
constexpr double kAllocatorReserve = 0.08;

double dtype_bytes(Precision p) { return p == Precision::Fp32 ? 4.0 : 2.0; }

double kv_dtype_bytes(KvDtype k) {
    switch (k) {
        case KvDtype::Fp32: return 4.0;
        case KvDtype::Fp8:
        case KvDtype::Int8: return 1.0;
        default: return 2.0;
    }
}

// Parameter counts of the shape, scaled to the user's total when the shape was
// inferred from a bare size (so "8B" means 8e9 parameters, not the shape's 8.03e9).
struct Params {
    double embedding, lm_head, block_linear, active_linear, other;
    double total() const { return embedding + lm_head + block_linear + other; }
};

Params params_of(const Model& m) {
    const ParamCounts c = count_params(m.arch);
    const double scale = c.total() > 0 ? static_cast<double>(m.params) / static_cast<double>(c.total()) : 1.0;
    return {static_cast<double>(c.embedding) * scale, static_cast<double>(c.lm_head) * scale,
            static_cast<double>(c.block_linear) * scale, static_cast<double>(c.active_linear) * scale,
            static_cast<double>(c.other) * scale};
}

bool targets(const Workload& w, LoraTarget t) {
    return std::find(w.lora_targets.begin(), w.lora_targets.end(), t) != w.lora_targets.end();
}

// FFN width one token passes through: the dense FFN, or its routed experts
// plus shared experts in an MoE layer.
double ffn_width(const Architecture& a) {
    if (!a.is_moe()) return static_cast<double>(a.intermediate);
    return static_cast<double>(a.experts_per_token * a.moe_intermediate + a.shared_intermediate);
}

// LoRA adapter parameters: rank x (in + out) for every targeted matrix of
// every layer (every expert's matrices in MoE layers).
double lora_params(const Workload& w) {
    const Architecture& a = w.model.arch;
    const double r = static_cast<double>(w.lora_rank);
    const double h = static_cast<double>(a.hidden);
    const double q = static_cast<double>(a.is_mla() ? a.heads * a.v_head_dim : a.q_dim());
    const double kv = static_cast<double>(a.kv_dim());
    const double dense_i = static_cast<double>(a.intermediate);
    const double moe_i = static_cast<double>(a.moe_intermediate);
    const double moe_layers = a.is_moe() ? static_cast<double>(a.layers - a.dense_layers) : 0.0;
    const double dense_layers = static_cast<double>(a.total_layers()) - moe_layers;
    double per_layer_attn = 0;
    if (targets(w, LoraTarget::Q)) per_layer_attn += r * (h + q);
    if (targets(w, LoraTarget::K)) per_layer_attn += r * (h + kv);
    if (targets(w, LoraTarget::V)) per_layer_attn += r * (h + kv);
    if (targets(w, LoraTarget::O)) per_layer_attn += r * (q + h);
    const auto mlp = [&](double inner, double copies) {
        double p = 0;
        if (targets(w, LoraTarget::Gate) && a.mlp == MlpKind::Gated) p += r * (h + inner);
        if (targets(w, LoraTarget::Up)) p += r * (h + inner);
        if (targets(w, LoraTarget::Down)) p += r * (inner + h);
        return p * copies;
    };
    const double moe_mlp = a.is_moe() ? mlp(moe_i, static_cast<double>(a.experts)) +
                                            (a.shared_intermediate > 0 ? mlp(static_cast<double>(a.shared_intermediate), 1) : 0)
                                      : 0.0;
    const double head = targets(w, LoraTarget::LmHead) ? r * (h + static_cast<double>(a.vocab)) : 0.0;
    return per_layer_attn * static_cast<double>(a.total_layers()) + mlp(dense_i, 1) * dense_layers + moe_mlp * moe_layers +
           head;
}

// Bytes one token leaves saved for backward in one layer (Korthikanti et al.
// 2022, §4, re-derived for pre-norm decoders without dropout): the fp32 input
// every RMSNorm/LayerNorm saves, q/k/v and the attention output, the FFN
// tensors the activation and gating need, and the inputs of the linear layers
// whose weights (or LoRA adapters) receive gradients.
double saved_bytes_per_token_layer(const Workload& w, std::int64_t seq) {
    const Architecture& a = w.model.arch;
    const double act = dtype_bytes(w.precision);
    const double h = static_cast<double>(a.hidden);
    const double q = static_cast<double>(a.is_mla() ? a.heads * a.head_dim : a.q_dim());
    const double kv = static_cast<double>(a.is_mla() ? a.heads * a.head_dim : a.kv_dim());
    const double i = ffn_width(a);
    const bool full = w.method == Method::Full;
    // Quantised frozen linears (bitsandbytes, GPTQ/AWQ autograd functions)
    // save their input for backward like trainable ones do.
    const bool saves_inputs = full || w.quant != Quant::None;
    double bytes = 4.0 * h * static_cast<double>(std::max<std::int64_t>(a.norms_per_layer, 2));
    bytes += act * (q + 2 * kv + q);
    if (!w.flash_attn) bytes += (act + 4.0) * static_cast<double>(a.heads) * static_cast<double>(seq);
    bytes += act * i * (a.mlp == MlpKind::Gated ? 3.0 : 1.0);
    const bool attn_in = saves_inputs || targets(w, LoraTarget::Q) || targets(w, LoraTarget::K) || targets(w, LoraTarget::V);
    const bool mlp_in = saves_inputs || targets(w, LoraTarget::Gate) || targets(w, LoraTarget::Up);
    const bool down_in = saves_inputs || targets(w, LoraTarget::Down);
    if (attn_in) bytes += act * h;
    if (mlp_in) bytes += act * h;
    if (down_in) bytes += act * i;
    return bytes;
}

double optimizer_state_bytes(Optimizer o, double state_dtype, double trainable, double hidden) {
    switch (o) {
        case Optimizer::AdamW: return 2.0 * state_dtype * trainable;
        case Optimizer::AdamW8bit:
        case Optimizer::PagedAdamW8bit: return (2.0 + 8.0 / 256.0) * trainable;  // uint8 states + fp32 absmax per 256
        case Optimizer::PagedAdamW32bit: return 8.0 * trainable;
        case Optimizer::Sgd: return 0.0;
        case Optimizer::SgdMomentum:
        case Optimizer::Lion: return state_dtype * trainable;
        case Optimizer::Adafactor: return 4.0 * trainable * 2.0 / std::max(hidden, 1.0);  // row + column statistics
    }
    return 0.0;
}

}  // namespace

std::uint64_t MemoryEstimate::component(const std::string& name) const {
    for (const auto& c : components)
        if (c.name == name) return c.bytes;
    return 0;
}

double weight_bytes_per_param(Quant quant, Precision precision, bool double_quant) {
    switch (quant) {
        case Quant::None: return dtype_bytes(precision);
        case Quant::Int8: return 1.0 + 4.0 / 4096.0;  // LLM.int8: int8 + fp32 scale per row
        case Quant::Nf4:
        case Quant::Fp4:
            // bitsandbytes blocksize 64; double quantisation stores the absmax
            // as int8 with one fp32 constant per 256 blocks.
            return double_quant ? 0.5 + 1.0 / 64.0 + 4.0 / (64.0 * 256.0) : 0.5 + 4.0 / 64.0;
        case Quant::Int4:
        case Quant::GptqInt4:
        case Quant::AwqInt4: return 0.5 + (2.0 + 0.5) / 128.0;  // fp16 scale + 4-bit zero per group of 128
        case Quant::GptqInt8: return 1.0 + (2.0 + 1.0) / 128.0;
        case Quant::Fp8: return 1.0 + 4.0 / (128.0 * 128.0);  // fp32 scale per 128x128 block
        // GGUF (ggml block formats): Q4_0 and Q8_0 are 18 and 34 bytes per 32
        // weights; the K-quant mixes average 4.89 (Q4_K_M), 5.69 (Q5_K_M) and
        // 6.56 (Q6_K) bits per weight over a Llama-style model (llama.cpp
        // quantize table; 4.58 GiB for Llama-3-8B Q4_K_M in bench/data).
        case Quant::Q4_0: return 18.0 / 32.0;
        case Quant::Q4_K_M: return 4.89 / 8.0;
        case Quant::Q5_K_M: return 5.69 / 8.0;
        case Quant::Q6_K: return 6.5625 / 8.0;
        case Quant::Q8_0: return 34.0 / 32.0;
    }
    return 2.0;
}

MemoryEstimate estimate_memory(const Workload& w) {
    const Architecture& a = w.model.arch;
    const Params p = params_of(w.model);
    const double act = dtype_bytes(w.precision);
    const double b = static_cast<double>(w.batch);
    const double s = static_cast<double>(w.seq);
    const double n = static_cast<double>(w.gpus);
    const double h = static_cast<double>(a.hidden);
    const double vocab = static_cast<double>(a.vocab);
    const bool training = w.trains();
    const bool full = w.method == Method::Full;
    const bool amp = training && w.mixed == MixedPrecision::Amp && w.precision != Precision::Fp32;
    // dtype of trainable weights, their gradients and optimizer states
    const double train_dtype = (w.precision == Precision::Fp32 || amp) ? 4.0 : act;

    double weights = 0, adapters = 0, grads = 0, optimizer = 0, activations = 0, logits = 0, kv = 0, workspace = 0;
    double trainable = 0, paged = 0;
    const double non_linear = p.embedding + p.lm_head + p.other;
    const double largest_matrix = std::max({h * ffn_width(a) / std::max<double>(1, static_cast<double>(a.experts_per_token)),
                                            h * static_cast<double>(a.q_dim()), vocab * h});

    if (full) {
        trainable = p.total();
        weights = trainable * train_dtype;
        if (amp) workspace += trainable * act;  // autocast's 16-bit weight copies, held until backward
    } else if (!training && w.mixed == MixedPrecision::Amp) {
        // Inference under autocast: fp32 weights plus their 16-bit copies.
        weights = p.total() * 4.0;
        workspace += p.total() * act;
    } else if (w.model.weight_bytes) {
        weights = static_cast<double>(*w.model.weight_bytes);  // exact, from the model file
    } else if (is_gguf(w.quant)) {
        weights = p.total() * weight_bytes_per_param(w.quant, w.precision, false);  // embeddings quantised too
    } else {
        weights = p.block_linear * weight_bytes_per_param(w.quant, w.precision, w.double_quant) + non_linear * act;
        if (w.quant != Quant::None && !is_gguf(w.quant)) workspace += h * ffn_width(a) * act;  // one dequantised matrix
    }
    if (w.uses_lora()) {
        trainable = lora_params(w);
        adapters = trainable * train_dtype;
    }
    if (training) {
        grads = w.optimizer_in_backward ? std::min(trainable, largest_matrix) * train_dtype : trainable * train_dtype;
        optimizer = optimizer_state_bytes(w.optimizer, train_dtype, trainable, h);
        if (w.optimizer == Optimizer::PagedAdamW8bit || w.optimizer == Optimizer::PagedAdamW32bit) {
            paged = optimizer;
            optimizer = 0;
        }
        const double layers = static_cast<double>(a.total_layers());
        const double per_layer = saved_bytes_per_token_layer(w, w.seq) * b * s;
        // Checkpointing keeps each layer's input and recomputes one layer at a
        // time during backward.
        activations = w.grad_ckpt ? layers * b * s * h * act + per_layer : layers * per_layer;
        // Logits in the compute dtype, their fp32 log-softmax for the loss and
        // its fp32 gradient; a chunked loss upcasts one chunk at a time, so
        // only the 16-bit logits remain (torchtune measured 8.1 GiB saved for
        // 1.05e9 logits, about 8 bytes each).
        logits = a.encoder_only ? 0.0 : b * s * vocab * (w.chunked_loss ? act : act + 8.0);
    } else {
        const double kv_b = kv_dtype_bytes(w.kv_dtype);
        const double ctx = static_cast<double>(w.seq);
        if (!a.encoder_only) {
            const double per_token = a.is_mla() ? static_cast<double>(a.kv_lora_rank + a.qk_rope_head_dim)
                                                : 2.0 * static_cast<double>(a.kv_dim());
            const double kv_layers = static_cast<double>(a.encoder_decoder ? a.decoder_layers * 2 : a.layers);
            kv = kv_layers * per_token * ctx * b * kv_b;
        }
        // Prefill peak of one layer: residual, normed input, q/k/v, attention
        // output and the FFN's gate, up and product, for every prompt token.
        const double prompt = static_cast<double>(w.prompt);
        activations = b * prompt * act *
                      (2.0 * h + 2.0 * static_cast<double>(a.q_dim()) + 2.0 * static_cast<double>(a.kv_dim()) +
                       3.0 * ffn_width(a));
        if (!w.flash_attn) activations += b * static_cast<double>(a.heads) * prompt * prompt * (act + 4.0);
        logits = a.encoder_only ? 0.0 : b * vocab * (act + 4.0);  // last position, plus its fp32 copy for sampling
    }

    // Multi-GPU: what one GPU of the plan holds.
    if (w.gpus > 1) {
        switch (w.parallel) {
            case Parallel::Ddp:
                workspace += grads;  // DDP's gradient buckets duplicate the gradients
                break;
            case Parallel::Zero2:
                if (full && amp) {
                    // DeepSpeed: 16-bit weights replicated, fp32 master with the optimizer, sharded.
                    optimizer += weights;
                    weights = trainable * act;
                    workspace -= trainable * act;
                }
                grads /= n;
                optimizer /= n;
                break;
            case Parallel::Fsdp:
            case Parallel::Zero3: {
                weights /= n;
                adapters /= n;
                grads /= n;
                optimizer /= n;
                // Two layers' weights gathered in 16-bit (current + prefetched)
                // replace the per-step weight copies of autocast.
                const double layer_params = p.block_linear / static_cast<double>(std::max<std::int64_t>(a.total_layers(), 1));
                if (full && amp) workspace -= trainable * act;
                workspace += 2.0 * layer_params * act;
                break;
            }
            case Parallel::Tp:
                weights /= n;
                adapters /= n;
                grads /= n;
                optimizer /= n;
                kv /= n;
                activations /= n;
                logits /= n;
                workspace /= n;
                break;
            case Parallel::Pp:
                weights /= n;
                adapters /= n;
                grads /= n;
                optimizer /= n;
                kv /= n;
                if (!training) activations /= 1.0;  // one layer's prefill peak either way
                workspace /= (full && amp) ? n : 1.0;
                break;
            case Parallel::None: break;
        }
    }
    workspace = std::max(workspace, 0.0);

    MemoryEstimate e;
    e.estimator = "component";
    e.trainable_params = to_bytes(trainable);
    e.paged_optimizer_bytes = to_bytes(paged / (w.gpus > 1 && (w.parallel == Parallel::Zero2 || w.parallel == Parallel::Zero3 ||
                                                               w.parallel == Parallel::Fsdp || w.parallel == Parallel::Tp ||
                                                               w.parallel == Parallel::Pp)
                                                    ? n
                                                    : 1.0));
    e.components = {{"weights_bytes", to_bytes(weights)},
                    {"adapters_bytes", to_bytes(adapters)},
                    {"gradients_bytes", to_bytes(grads)},
                    {"optimizer_bytes", to_bytes(optimizer)},
                    {"activations_bytes", to_bytes(activations)},
                    {"logits_bytes", to_bytes(logits)},
                    {"kv_cache_bytes", to_bytes(kv)},
                    {"workspace_bytes", to_bytes(workspace)}};
    std::uint64_t allocated = 0;
    for (const auto& c : e.components) allocated += c.bytes;
    const std::uint64_t runtime = to_bytes(kCudaContextBytes + kAllocatorReserve * static_cast<double>(allocated));
    e.components.push_back({"runtime_bytes", runtime});
    e.allocated_bytes = allocated;
    e.per_gpu_bytes = allocated + runtime;
    e.total_bytes = e.per_gpu_bytes * static_cast<std::uint64_t>(w.gpus);
    if (a.sliding_window > 0 && !training)
        e.notes.push_back("KV cache counted for the whole context; a sliding-window cache would hold less");
    if (w.optimizer == Optimizer::PagedAdamW8bit || w.optimizer == Optimizer::PagedAdamW32bit)
        e.notes.push_back(fmt::format("paged optimizer state ({}) lives in unified memory and pages to the host under "
                                      "pressure; it is not counted in what must fit",
                                      format_gib(e.paged_optimizer_bytes)));
    return e;
}

MemoryEstimate estimate_memory_doc(const Workload& w) {
    // The source document's rule (§2.1): weights x 1.2 for weights plus
    // gradients and AdamW state, plus activations of 0.3 x weights, or 0.15 x
    // with gradient checkpointing (the factor of its worked example).
    const double weights = static_cast<double>(w.model.params) * weight_bytes_per_param(w.quant, w.precision, w.double_quant);
    double optimizer = 0, activations = 0;
    if (w.trains()) {
        optimizer = 0.2 * weights;
        activations = (w.grad_ckpt ? 0.15 : 0.3) * weights;
    } else {
        activations = 0.2 * weights;  // the document's "weights x 1.2" reserve for inference
    }
    const double n = static_cast<double>(w.gpus);
    MemoryEstimate e;
    e.estimator = "doc";
    e.components = {{"weights_bytes", to_bytes(weights / n)},
                    {"gradients_bytes", 0},
                    {"optimizer_bytes", to_bytes(optimizer / n)},
                    {"activations_bytes", to_bytes(activations / n)},
                    {"kv_cache_bytes", 0},
                    {"runtime_bytes", 0}};
    for (const auto& c : e.components) e.allocated_bytes += c.bytes;
    e.per_gpu_bytes = e.allocated_bytes;
    e.total_bytes = e.per_gpu_bytes * static_cast<std::uint64_t>(w.gpus);
    e.notes.push_back(
        "the source document's rule of thumb (§2.1: weights x 1.2 + activations x 0.15 with checkpointing); it "
        "counts gradients and optimizer state as 0.2 x weights, far below AdamW's real 12-16 bytes per parameter");
    return e;
}

MemoryEstimate estimate(const Workload& w) {
    if (w.fixed_bytes) {
        MemoryEstimate e;
        e.estimator = "task";
        e.components = {{"requirement_bytes", *w.fixed_bytes}};
        e.allocated_bytes = e.per_gpu_bytes = *w.fixed_bytes;
        e.total_bytes = *w.fixed_bytes * static_cast<std::uint64_t>(w.gpus);
        e.notes.push_back("a fixed requirement from the task preset (document §6), not a modelled estimate");
        return e;
    }
    return w.estimator == Estimator::Doc ? estimate_memory_doc(w) : estimate_memory(w);
}

}  // namespace gpuadvise
