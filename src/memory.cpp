#include "gpuadvise/memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpuadvise/bands.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"
#include "memory_common.hpp"

namespace gpuadvise {

using namespace memory_detail;

namespace {

// A calibration's factors (calibration.hpp): every component the framework
// allocates, not the CUDA context; with a static factor the loaded
// parameters (weights, adapters) by it and the rest by the other.
void scale_allocated_components(Components& c, const CalibrationMatch& m) {
    const double loaded = m.static_factor > 0 ? m.static_factor : m.memory_factor;
    for (double* v : {&c.weights, &c.text_encoders, &c.vae, &c.adapters}) *v *= loaded;
    for (double* v : {&c.gradients, &c.optimizer, &c.activations, &c.logits, &c.kv_cache, &c.draft,
                      &c.workspace})
        *v *= m.memory_factor;
}

// Runtime overhead outside the framework's allocations. The CUDA context with
// PyTorch's kernels and cuBLAS/cuDNN handles measures 0.3-1.3 GiB depending on
// driver, library set and lazy loading (1343 MiB on the V100 rows of
// Hugging Face's model_memory_anatomy; ~0.5 GiB with CUDA 12 lazy loading);
// we take 0.75 GiB.
constexpr double kCudaContextBytes = 0.75 * static_cast<double>(kGiB);
// --- the phases ---------------------------------------------------------------

// Weights in their storage format, and the workspace that format needs.
void weights(const Workload& w, const Params& p, Components& c, double* trainable) {
    const Architecture& a = w.model.arch;
    const double act = dtype_bytes(w.precision);
    const bool training = w.trains();
    const bool amp = training && w.mixed == MixedPrecision::Amp && w.precision != Precision::Fp32;
    const double train_dtype = (w.precision == Precision::Fp32 || amp) ? 4.0 : act;
    const double non_linear = p.embedding + p.lm_head + p.other;
    if (w.method == Method::Full) {
        *trainable = p.total();
        c.weights = *trainable * train_dtype;
        if (amp)
            c.workspace +=
                *trainable * act;  // autocast's 16-bit weight copies, held until backward
    } else if (!training && w.mixed == MixedPrecision::Amp) {
        // Inference under autocast: fp32 weights plus their 16-bit copies.
        c.weights = p.total() * 4.0;
        c.workspace += p.total() * act;
    } else if (w.model.weight_bytes) {
        c.weights = static_cast<double>(*w.model.weight_bytes);  // exact, from the model file
    } else if (w.quant.format && w.quant.format->quantizes_embeddings) {
        c.weights = p.total() *
                    weight_bytes_per_param(w.quant, w.precision, false);  // every tensor quantised
    } else {
        // A checkpoint's format may cover part of the linear weights (gpt-oss:
        // the routed experts in MXFP4); the rest stays in 16-bit.
        const ParamCounts exact = count_params(a);
        const double covered = w.quant.scope.all() || exact.block_linear == 0
                                   ? 1.0
                                   : static_cast<double>(quantized_linear(exact, w.quant.scope)) /
                                         static_cast<double>(exact.block_linear);
        const double per_weight = weight_bytes_per_param(w.quant, w.precision, w.double_quant);
        c.weights =
            p.block_linear * (covered * per_weight + (1.0 - covered) * act) + non_linear * act;
        // One matrix dequantised to the compute dtype for its matmul.
        double dequantised = static_cast<double>(a.hidden) * ffn_width(a);
        if (w.method == Method::Qlora) {
            const TrainDtypes d = train_dtypes(w);
            const bool bnb = w.quant.family() == QuantFamily::Bnb4;
            // Lightning Fabric's BitsandbytesPrecision (litgpt) replaces every
            // nn.Linear, the output head included. Its backward dequantises
            // the head (MatMul4Bit.backward: grad_output @
            // dequantize_4bit(B)) while the loss's tensors are alive: that
            // matrix is the one the peak holds.
            const bool head_4bit = bnb && w.profile().quantizes_head;
            if (head_4bit) {
                c.weights -= p.lm_head * (act - per_weight);
                dequantised = std::max(dequantised, p.lm_head);
            }
            // prepare_model_for_kbit_training casts the rest to fp32 (peft
            // utils/other.py: "cast all non INT8 parameters to fp32"); under
            // autocast the frozen fp32 head is cast to 16 bits each forward
            // and F.linear saves that copy for backward.
            if (d.kbit_fp32) {
                c.weights += (non_linear - (head_4bit ? p.lm_head : 0.0)) * (4.0 - act);
                if (d.autocast && !head_4bit) c.workspace += p.lm_head * act;
            }
        }
        if (!w.quant.none()) c.workspace += dequantised * act;
    }
    if (w.uses_lora()) {
        *trainable = lora_params(w);
        c.adapters = *trainable * train_dtypes(w).lora;
    }
}

// Tokens of KV one sequence keeps: every layer holds the context, sliding
// layers at most their window (llama.cpp pads the window by a micro-batch of
// 512 and rounds to 256; vLLM and transformers keep the window).
double kv_tokens_per_sequence(const Workload& w, double ctx) {
    const Architecture& a = w.model.arch;
    const double kv_layers = static_cast<double>(a.kv_layers());
    if (a.sliding_window <= 0 || a.sliding_layers <= 0 || a.encoder_decoder) return kv_layers * ctx;
    double window = static_cast<double>(a.sliding_window);
    if (w.engine && w.engine->memory == MemoryPolicy::LlamaCpp)
        window = std::ceil((window + 512.0) / 256.0) * 256.0;
    const double sliding = std::min(static_cast<double>(a.sliding_layers), kv_layers);
    return (kv_layers - sliding) * ctx + sliding * std::min(ctx, window);
}

// KV cache, the prefill peak and the sampled logits of inference.
void inference_activations(const Workload& w, Components& c) {
    const Architecture& a = w.model.arch;
    const double act = dtype_bytes(w.precision);
    const double b = static_cast<double>(w.batch);
    const double h = static_cast<double>(a.hidden);
    if (!a.encoder_only) {
        // MLA caches the compressed latent and the rope key: kv_lora_rank +
        // qk_rope_head_dim values per token and layer (DeepSeek V2/V3).
        const double per_token_layer =
            a.is_mla() ? static_cast<double>(a.kv_lora_rank + a.qk_rope_head_dim)
                       : 2.0 * static_cast<double>(a.kv_dim());
        c.kv_cache = kv_tokens_per_sequence(w, static_cast<double>(w.seq)) * per_token_layer * b *
                     kv_dtype_bytes(w.kv_dtype);
        // Linear-attention and state-space layers keep a fixed state per
        // sequence; Llama 3.2 Vision's cross-attention layers the keys and
        // values of its images' tokens: of one image at most tiles unless
        // --images says how many and how large.
        double state_layers = static_cast<double>(a.kv_free_layers);
        if (w.images.any() && a.cross_attention_layers > 0) {
            const double cross = static_cast<double>(a.cross_attention_layers);
            state_layers -= cross;
            c.kv_cache += cross * static_cast<double>(w.images.cross_tokens()) * 2.0 *
                          static_cast<double>(a.kv_dim()) * kv_dtype_bytes(w.kv_dtype) * b;
        }
        c.kv_cache += state_layers * static_cast<double>(a.state_bytes_per_layer) * b;
    }
    // Prefill peak of one layer: residual, normed input, q/k/v, attention
    // output and the FFN's gate, up and product, for every prompt token.
    // Engines that prefill in chunks (llama.cpp's n_ubatch) hold one chunk's
    // activations, and its attention scores against the whole prompt.
    const double prompt = static_cast<double>(w.prompt);
    double at_once = b * prompt;
    if (w.engine && w.engine->prefill_chunk > 0)
        at_once = std::min(at_once, static_cast<double>(w.engine->prefill_chunk));
    c.activations = at_once * act *
                    (2.0 * h + 2.0 * static_cast<double>(a.q_dim()) +
                     2.0 * static_cast<double>(a.kv_dim()) + 3.0 * ffn_width(a));
    if (!w.flash_attn)
        c.activations += at_once * static_cast<double>(a.heads) * prompt * (act + 4.0);
    c.logits = a.encoder_only
                   ? 0.0
                   : b * static_cast<double>(a.vocab) * (act + 4.0);  // last position + fp32 copy
    // The vision encoder runs before the prefill that reads its tokens: the
    // peak is the larger of the two.
    c.activations = std::max(c.activations, vision_encoder_peak(w));
    // transformers' DynamicCache grows by torch.cat at every step: during the
    // prefill it holds the prompt's keys and values only, and the generated
    // tokens' arrive after the prefill's tensors are gone. The peak is the
    // larger of the prefill (prompt cache + prefill activations) and the end
    // of generation (the whole cache); with the cache counted whole, only the
    // prefill's excess over the generated tokens' cache remains. Every other
    // engine here allocates its cache up front (llama.cpp's KV buffer, vLLM's
    // blocks, litgpt's and gpt-fast's static caches, ExLlama's and AutoAWQ's
    // preallocated caches).
    if (w.engine && w.engine->id == "transformers" && !a.encoder_only) {
        const double per_token_layer =
            a.is_mla() ? static_cast<double>(a.kv_lora_rank + a.qk_rope_head_dim)
                       : 2.0 * static_cast<double>(a.kv_dim());
        const double generated_kv = (kv_tokens_per_sequence(w, static_cast<double>(w.seq)) -
                                     kv_tokens_per_sequence(w, static_cast<double>(w.prompt))) *
                                    per_token_layer * b * kv_dtype_bytes(w.kv_dtype);
        c.activations = std::max(0.0, c.activations - std::max(0.0, generated_kv));
    }
}

// FP8 training keeps what bf16 mixed precision keeps (fp32 master weights,
// gradients, optimizer state, 16-bit activations: an upper bound, since
// Transformer Engine saves a linear layer's input for backward in FP8) and adds
// FP8 copies of the block linear weights, each with its transpose for the
// backward matmuls (Transformer Engine caches both on Hopper; MXFP8 keeps a
// row-wise and a column-wise copy), one byte per element. Sharded plans
// (FSDP, ZeRO-3) cast the two gathered layers only; tensor and pipeline
// parallel hold their share. The scaling state is an amax history of 1024
// fp32 values (Transformer Engine's DelayedScaling default) for the input,
// weight and output gradient of each of a layer's seven linears: 86 KB a layer.
double fp8_state_bytes(const Workload& w, const Params& p) {
    const Architecture& a = w.model.arch;
    const double layers = static_cast<double>(std::max<std::int64_t>(a.total_layers(), 1));
    const double n = static_cast<double>(std::max<std::int64_t>(w.gpus, 1));
    double copies = 2.0 * p.block_linear;
    if (w.gpus > 1 && w.layout.splits_model()) {
        const Layout& l = w.layout;
        const bool gathered = w.parallel == Parallel::Fsdp || w.parallel == Parallel::Zero3;
        copies = (gathered ? 2.0 * copies / layers
                           : copies * static_cast<double>(stage_layers(a, l)) / layers) /
                 static_cast<double>(l.tp * l.ep);
    } else if (w.gpus > 1) {
        switch (w.parallel) {
            case Parallel::Fsdp:
            case Parallel::Zero3:
                copies = 2.0 * 2.0 * p.block_linear / layers;
                break;
            case Parallel::Tp:
            case Parallel::Pp:
                copies /= n;
                break;
            case Parallel::Ddp:
            case Parallel::Zero1:
            case Parallel::Zero2:
            case Parallel::None:
                break;
        }
    }
    constexpr double kAmaxHistory = 1024, kLinearsPerLayer = 7, kTensorsPerLinear = 3;
    return copies + layers * kLinearsPerLayer * kTensorsPerLinear * kAmaxHistory * 4.0;
}

std::uint64_t checked_bytes(double v, const Workload& w) {
    if (!(v <= kMaxEstimateBytes))
        throw InputError(fmt::format(
            "the workload needs more than 1 EiB per GPU (batch {} x {} tokens); that is no "
            "workload gpuadvise can size: reduce --batch or --seq",
            w.batch, w.seq));
    return to_bytes(v);
}

MemoryEstimate finish(const Workload& w, const Components& c, double trainable,
                      double paged_bytes) {
    MemoryEstimate e;
    // Each component is rounded on its own and the total is their exact sum,
    // so the JSON always adds up; the bound keeps every sum far below 2^64.
    std::uint64_t allocated = 0;
    for (std::size_t i = 0; i < kComponentNames.size(); ++i) {
        e.bytes[i] = checked_bytes(c.*kComponentNames[i].member, w);
        if (kComponentNames[i].member != &Components::runtime) allocated += e.bytes[i];
    }
    e.allocated_bytes = allocated;
    e.releasable_bytes = checked_bytes(c.cached, w);
    e.reserved_bytes = allocated + std::min(checked_bytes(c.pool, w), e.get(&Components::runtime)) +
                       e.releasable_bytes;
    e.per_gpu_bytes = allocated + e.get(&Components::runtime);
    e.total_bytes = static_cast<std::uint64_t>(
        checked_bytes(static_cast<double>(e.per_gpu_bytes) * static_cast<double>(w.gpus), w));
    e.trainable_params = to_bytes(trainable);
    e.paged_optimizer_bytes = to_bytes(paged_bytes);
    e.host_bytes = to_bytes(c.host);
    e.host_weight_bytes = to_bytes(c.host_weights);
    return e;
}

// A language model's components: weights in their format, then training
// state and activations or the KV cache and prefill peak, then this GPU's
// share of a multi-GPU plan.
void language_components(const Workload& w, Components& c, double* trainable, double* paged_bytes) {
    const Params p = params_of(w.model);
    weights(w, p, c, trainable);
    // llama.cpp keeps the token embedding in host memory even at full offload
    // (llama-model.cpp: "there is very little benefit to offloading the input
    // layer"): the GPU holds the rest of the file.
    if (!w.trains() && w.engine && w.engine->memory == MemoryPolicy::LlamaCpp && p.total() > 0)
        c.weights -= c.weights * p.embedding / p.total();
    if (w.trains()) {
        training_state(w, p, *trainable, c, paged_bytes);
        training_activations(w, c);
        // A trained tower keeps its saved tensors through the language model's
        // pass; a frozen one (LoRA, QLoRA) runs before it, without a graph.
        c.activations = w.method == Method::Full ? c.activations + vision_training_saved(w)
                                                 : std::max(c.activations, vision_encoder_peak(w));
    } else if (w.embeds()) {
        embedding_activations(w, c);  // one forward per sequence (embedding_memory.cpp)
    } else {
        inference_activations(w, c);
        c.draft = draft_memory(w).total();
    }
    *paged_bytes /= shard(w, p, *trainable, c);
    c.host = train_offload(w, p, *trainable, c);
    if (w.trains() && w.precision == Precision::Fp8) c.workspace += fp8_state_bytes(w, p);
    c.workspace = std::max(c.workspace, 0.0);
    if (w.trains()) c.workspace += optimizer_step_excess(w, c);
}

// The draft as a workload of its own: the target's formats, engine, batch
// and context, one GPU, no calibration.
Workload draft_workload(const Workload& w) {
    Workload d = w;
    d.model = w.speculation->draft;
    d.speculation.reset();
    d.gpus = 1;
    d.parallel = Parallel::None;
    d.calibration = nullptr;
    return d;
}

}  // namespace

DraftMemory draft_memory(const Workload& w) {
    DraftMemory m;
    if (!w.speculation || w.trains() || !w.is_language()) return m;
    const Speculation& s = *w.speculation;
    const Workload d = draft_workload(w);
    const Params p = params_of(d.model);
    Components c;
    double trainable = 0;
    weights(d, p, c, &trainable);
    // A model file's target (a GGUF) has no --quant: the draft is taken at
    // the file's bits per weight, the same family as the target.
    if (w.model.weight_bytes && w.model.params > 0)
        c.weights = static_cast<double>(d.model.params) *
                    static_cast<double>(*w.model.weight_bytes) /
                    static_cast<double>(w.model.params);
    // llama.cpp keeps a model's token embedding in host memory (as for the target).
    if (w.engine && w.engine->memory == MemoryPolicy::LlamaCpp && p.total() > 0)
        c.weights -= c.weights * p.embedding / p.total();
    inference_activations(d, c);
    m.read_weights = c.weights;
    m.weights = s.mtp() && s.weights_in_target ? 0.0 : c.weights;
    m.kv_cache = c.kv_cache;
    // The target's cache for the K drafted positions beyond the context.
    Components t;
    inference_activations(w, t);
    m.lookahead_kv =
        w.seq > 0 ? t.kv_cache * static_cast<double>(s.tokens) / static_cast<double>(w.seq) : 0.0;
    return m;
}

namespace memory_detail {

Params params_of(const Model& m) {
    const ParamCounts c = count_params(m.arch);
    const double scale =
        c.total() > 0 ? static_cast<double>(m.params) / static_cast<double>(c.total()) : 1.0;
    return {static_cast<double>(c.embedding) * scale, static_cast<double>(c.lm_head) * scale,
            static_cast<double>(c.block_linear) * scale,
            static_cast<double>(c.active_linear) * scale, static_cast<double>(c.other) * scale};
}

double dtype_bytes(Precision p) {
    return p == Precision::Fp32 ? 4.0 : 2.0;
}

double optimizer_state_bytes(Optimizer o, double state_dtype, double trainable, double hidden) {
    switch (o) {
        case Optimizer::AdamW:
            return 2.0 * state_dtype * trainable;
        case Optimizer::AdamW8bit:
        case Optimizer::PagedAdamW8bit:
            return (2.0 + 8.0 / 256.0) * trainable;  // uint8 states + fp32 absmax per 256
        case Optimizer::PagedAdamW32bit:
            return 8.0 * trainable;
        case Optimizer::Sgd:
            return 0.0;
        case Optimizer::SgdMomentum:
        case Optimizer::Lion:
            return state_dtype * trainable;
        case Optimizer::Adafactor:
            return 4.0 * trainable * 2.0 / std::max(hidden, 1.0);  // row + column statistics
    }
    return 0.0;
}

// torch.optim's foreach AdamW (torch/optim/adam.py, _multi_tensor_adam, the
// default on CUDA) computes exp_avg_sq_sqrt = torch._foreach_sqrt(
// device_exp_avg_sqs): a new tensor the size of one of the two moments for
// every parameter of a device/dtype group at once, i.e. half the state. The
// step runs after backward has freed activations and logits, so its peak is
// weights + gradients + 1.5 x the state; the fused kernel and the per-parameter
// loop (one parameter's temporary at a time) add nothing measurable, and an
// optimizer step inside backward (optimizer_in_bwd) steps one parameter at a
// time. The step's peak, or 0 where no foreach temporary applies.
double optimizer_step_peak(const Workload& w, const Components& c) {
    // DeepSpeed (zero2, zero3) steps with its own FusedAdam
    // (deepspeed/ops/adam/fused_adam.py), not torch.optim.
    // Megatron-LM (a layout that splits the model) steps with Apex's or
    // Transformer Engine's fused Adam, which keeps no foreach temporaries.
    const bool deepspeed = w.parallel == Parallel::Zero1 || w.parallel == Parallel::Zero2 ||
                           w.parallel == Parallel::Zero3 || w.layout.splits_model();
    if (w.optimizer != Optimizer::AdamW || w.optimizer_impl != OptimizerImpl::Foreach ||
        w.optimizer_in_backward || deepspeed || w.train_offload != TrainOffload::None)
        return 0.0;
    // DDP's gradient buckets stay allocated through the step.
    const double buckets = w.gpus > 1 && w.parallel == Parallel::Ddp ? c.gradients : 0.0;
    return c.weights + c.adapters + c.gradients + buckets + 1.5 * c.optimizer;
}

// What the step's peak adds over forward/backward (0 when forward/backward is
// the higher), carried in the workspace component so the components still add
// up to the allocated peak.
double optimizer_step_excess(const Workload& w, const Components& c) {
    const double step = optimizer_step_peak(w, c);
    double forward_backward = 0;
    for (const auto& n : kComponentNames)
        if (n.member != &Components::runtime) forward_backward += c.*n.member;
    return std::max(0.0, step - forward_backward);
}

}  // namespace memory_detail

std::uint64_t MemoryEstimate::get(double Components::*member) const {
    for (std::size_t i = 0; i < kComponentNames.size(); ++i)
        if (kComponentNames[i].member == member) return bytes[i];
    return 0;
}

double weight_bytes_per_param(const Quant& quant, Precision precision, bool double_quant) {
    if (quant.none()) return dtype_bytes(precision);
    return quant.bits_per_weight(double_quant) / 8.0;
}

Components component_bytes(const Workload& w, double* trainable, double* paged_bytes) {
    Components c;
    *trainable = 0;
    *paged_bytes = 0;
    if (w.is_image())
        image_components(w, c, trainable);
    else
        language_components(w, c, trainable, paged_bytes);
    if (w.calibration)
        if (const auto m = match_calibration(*w.calibration, w)) scale_allocated_components(c, *m);
    double allocated = 0;
    for (const auto& n : kComponentNames)
        if (n.member != &Components::runtime) allocated += c.*n.member;
    const AllocatorPool pool = allocator_pool(w, allocated);
    c.pool = pool.pinned;
    c.cached = pool.cached;
    c.runtime = kCudaContextBytes + c.pool;
    return c;
}

MemoryEstimate estimate_memory(const Workload& w) {
    double trainable = 0, paged_bytes = 0;
    const Components c = component_bytes(w, &trainable, &paged_bytes);
    MemoryEstimate e = finish(w, c, trainable, paged_bytes);
    e.estimator = EstimatorUsed::Component;
    const Architecture& a = w.model.arch;
    if (!w.trains() && a.sliding_layers > 0)
        e.notes.push_back(fmt::format(
            "{} of {} layers attend to a {}-token window; their KV cache holds only the window",
            a.sliding_layers, a.kv_layers(), a.sliding_window));
    if (w.trains()) {
        const double step = optimizer_step_peak(w, c);
        if (step > 0 && std::fabs(step - static_cast<double>(e.allocated_bytes)) < 16.0)
            e.notes.push_back(fmt::format(
                "the peak is the optimizer step: foreach AdamW's temporary ({}) over weights, "
                "gradients and state, after activations are freed; --optimizer-impl fused "
                "avoids it",
                format_gib(to_bytes(0.5 * c.optimizer))));
    }
    if (w.speculation && !w.trains()) {
        const Speculation& s = *w.speculation;
        const DraftMemory d = draft_memory(w);
        const bool split = w.gpus > 1 && (w.parallel == Parallel::Tp || w.parallel == Parallel::Pp);
        const double n = split ? static_cast<double>(w.gpus) : 1.0;
        const auto share = [n](double v) { return format_gib(to_bytes(v / n)); };
        std::string weights_note;
        if (s.mtp() && s.weights_in_target)
            weights_note = fmt::format(
                "its weights ({}) are already in the model's weights (the checkpoint count "
                "holds them; vLLM loads them for MTP speculative decoding only)",
                share(d.read_weights));
        else if (s.mtp())
            weights_note = fmt::format(
                "{} of weights, which the model's published count leaves out (counted as the "
                "checkpoint stores them, with its own embedding and head)",
                share(d.weights));
        else
            weights_note = fmt::format(
                "{} of weights in the plan's format, {}{}", share(d.weights),
                w.quant.none() ? std::string(to_string(w.precision)) : w.quant.text(),
                w.engine && w.engine->id == "vllm" && !w.quant.none()
                    ? " (vLLM loads a draft unquantized unless its speculative_config gives a "
                      "quantization)"
                    : "");
        e.notes.push_back(fmt::format(
            "draft {}: {}; {} of its own KV cache at the same context and batch; {} of the "
            "model's KV cache for the {} drafted position{} a step verifies past the context",
            sanitize(s.draft.name, 60), weights_note, share(d.kv_cache), share(d.lookahead_kv),
            s.tokens, s.tokens == 1 ? "" : "s"));
    }
    if ((w.optimizer == Optimizer::PagedAdamW8bit || w.optimizer == Optimizer::PagedAdamW32bit) &&
        w.trains())
        e.notes.push_back(fmt::format(
            "paged optimizer state ({}) lives in unified memory and pages to the host under "
            "pressure; it is not counted in what must fit",
            format_gib(e.paged_optimizer_bytes)));
    return e;
}

MemoryEstimate estimate_memory_doc(const Workload& w) {
    // The source document's rule (§2.1): weights x 1.2 for weights plus
    // gradients and AdamW state, plus activations of 0.3 x weights, or 0.15 x
    // with gradient checkpointing (the factor of its worked example).
    const double weights = static_cast<double>(w.model.params) *
                           weight_bytes_per_param(w.quant, w.precision, w.double_quant);
    Components c;
    const double n = static_cast<double>(w.gpus);
    c.weights = weights / n;
    if (w.trains()) {
        c.optimizer = 0.2 * weights / n;
        c.activations = (w.grad_ckpt ? 0.15 : 0.3) * weights / n;
    } else {
        c.activations = 0.2 * weights / n;  // the document's "weights x 1.2" reserve for inference
    }
    MemoryEstimate e = finish(w, c, 0, 0);
    e.estimator = EstimatorUsed::Doc;
    e.notes.push_back(
        "the source document's rule of thumb (§2.1: weights x 1.2 + activations x 0.15 with "
        "checkpointing); it "
        "counts gradients and optimizer state as 0.2 x weights, far below AdamW's real 12-16 bytes "
        "per parameter");
    return e;
}

std::string memory_band_group(const Workload& w) {
    if (w.is_image() || w.fixed_bytes) return "";
    if (!w.trains()) return w.engine ? fmt::format("inference:{}", w.engine->id) : "";
    if (!w.harness_given) return "";
    return fmt::format("{}:{}", to_string(w.method), kHarnesses.name(w.harness));
}

MemoryEstimate estimate(const Workload& w) {
    if (w.fixed_bytes) {
        Components c;
        c.requirement = static_cast<double>(*w.fixed_bytes);
        MemoryEstimate e = finish(w, c, 0, 0);
        e.estimator = EstimatorUsed::Task;
        e.notes.push_back(
            "a fixed requirement from the task preset (the source document, §6), not a modelled "
            "estimate");
        return e;
    }
    if (w.estimator == Estimator::Doc) return estimate_memory_doc(w);
    MemoryEstimate e = estimate_memory(w);
    // Image workloads have their own validation rows (bench/data/image_*.csv).
    const std::string_view method = w.is_image() ? kImageFamilies.name(w.model.image->family)
                                    : w.method == Method::Inference ? "inference"
                                                                    : to_string(w.method);
    if (w.is_diffusion() && w.image.offload == CpuOffload::Model)
        e.notes.push_back(
            "model offload keeps one component on the GPU at a time; the breakdown is the phase "
            "that peaks (the allocator's cache may still hold the others)");
    // An image family without rows of its own has no band (the language
    // models' would not say how wrong this estimate is). A language model's
    // engine or harness has its own band where the rows of several sources
    // made one.
    const std::string group = memory_band_group(w);
    const ErrorBand* band = nullptr;
    if (w.is_image())
        band = error_bands().find_exact(BandQuantity::Memory, method);
    else if (!group.empty())
        band = error_bands().find_exact(BandQuantity::Memory, group);
    if (!band && !w.is_image()) band = error_bands().find(BandQuantity::Memory, method);
    if (band) e.band = std::pair{band->low, band->high};
    if (w.calibration)
        if (const auto m = match_calibration(*w.calibration, w); m && m->memory_records > 0) {
            e.calibrated = m;
            e.notes.push_back(fmt::format(
                "calibrated from {} measured run{} in {}: allocated components x{:.3f}{}{}",
                m->memory_records, m->memory_records > 1 ? "s" : "", m->source, m->memory_factor,
                m->static_factor > 0
                    ? fmt::format(" (the loaded parameters x{:.3f})", m->static_factor)
                    : std::string(),
                m->weight < 1 ? fmt::format(", at weight {:g}: the runs are of another model of "
                                            "the same harness",
                                            m->weight)
                              : std::string()));
            // The range a calibrated estimate keeps: bench/accuracy's spread of
            // the other rows of a source after calibrating on one of them.
            if (const ErrorBand* b = error_bands().find_exact(BandQuantity::Memory, "calibrated"))
                e.band = std::pair{b->low, b->high};
        }
    return e;
}

}  // namespace gpuadvise
