#include "gpuadvise/memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpuadvise/bands.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/units.hpp"
#include "memory_common.hpp"

namespace gpuadvise {

using namespace memory_detail;

namespace {

// A calibration record's memory factor (calibration.hpp): every component
// the framework allocates, not the CUDA context.
void scale_allocated_components(Components& c, double factor) {
    for (double* v : {&c.weights, &c.text_encoders, &c.vae, &c.adapters, &c.gradients, &c.optimizer,
                      &c.activations, &c.logits, &c.kv_cache, &c.workspace})
        *v *= factor;
}

// Runtime overhead outside the framework's allocations. The CUDA context with
// PyTorch's kernels and cuBLAS/cuDNN handles measures 0.3-1.3 GiB depending on
// driver, library set and lazy loading (1343 MiB on the V100 rows of
// Hugging Face's model_memory_anatomy; ~0.5 GiB with CUDA 12 lazy loading);
// we take 0.75 GiB.
constexpr double kCudaContextBytes = 0.75 * static_cast<double>(kGiB);
// Inference on a PyTorch-allocator engine: the pool beyond the allocated peak
// is taken as 8 % of it (assumed: a typical reserved/allocated gap; vLLM's
// up-front reservation is sized by --gpu-memory-utilization, not modelled here).
constexpr double kAllocatorReserve = 0.08;
// Training: the tensors a step frees and allocates again (activations, logits,
// autocast's weight copies) come back in other sizes within the step (saved
// activations are freed while gradients are allocated), and the caching
// allocator serves a request from a larger cached block by splitting it
// (c10/cuda/CUDACachingAllocator.cpp: blocks over 1 MiB are split, the rest of
// a split block serves only smaller requests). A quarter of those per-step
// tensors left as split-off remainders is assumed; it puts fixed-shape runs at
// 1.1-1.25 x allocated, the span reported for packed runs.
constexpr double kSplitRemainder = 0.25;
// Batches of changing shape: the share of one step's logits-sized blocks that
// later, longer batches cannot reuse. The allocator hands a cached block to
// any smaller request by splitting it, so the smaller tensors of later steps
// (activations, gradients) take part of them back; half is assumed stranded,
// which reproduces the 1.4-1.5 x reserved/allocated reported for padded
// variable-length runs at long sequences (assumed, not fitted to a row).
constexpr double kStrandedLogits = 0.5;

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
    const double moe_layers = a.is_moe() ? static_cast<double>(a.layers - a.dense_layers) : 0.0;
    const double dense_layers = static_cast<double>(a.total_layers()) - moe_layers;
    double attn = 0;
    if (w.targets(LoraTarget::Q)) attn += r * (h + q);
    if (w.targets(LoraTarget::K)) attn += r * (h + kv);
    if (w.targets(LoraTarget::V)) attn += r * (h + kv);
    if (w.targets(LoraTarget::O)) attn += r * (q + h);
    const auto mlp = [&](double inner, double copies) {
        double p = 0;
        if (w.targets(LoraTarget::Gate) && a.mlp == MlpKind::Gated) p += r * (h + inner);
        if (w.targets(LoraTarget::Up)) p += r * (h + inner);
        if (w.targets(LoraTarget::Down)) p += r * (inner + h);
        return p * copies;
    };
    const double moe_mlp =
        a.is_moe()
            ? mlp(static_cast<double>(a.moe_intermediate), static_cast<double>(a.experts)) +
                  (a.shared_intermediate > 0 ? mlp(static_cast<double>(a.shared_intermediate), 1)
                                             : 0)
            : 0.0;
    const double head =
        w.targets(LoraTarget::LmHead) ? r * (h + static_cast<double>(a.vocab)) : 0.0;
    return attn * static_cast<double>(a.total_layers()) +
           mlp(static_cast<double>(a.intermediate), 1) * dense_layers + moe_mlp * moe_layers + head;
}

// Bytes one token leaves saved for backward in one layer (Korthikanti et al.
// 2022, §4, re-derived for pre-norm decoders without dropout): the fp32 input
// every RMSNorm/LayerNorm saves, q/k/v and the attention output, the FFN
// tensors the activation and gating need, and the inputs of the linear layers
// whose weights (or LoRA adapters) receive gradients.
double saved_bytes_per_token_layer(const Workload& w) {
    const Architecture& a = w.model.arch;
    const double act = dtype_bytes(w.precision);
    const double h = static_cast<double>(a.hidden);
    const double q = static_cast<double>(a.is_mla() ? a.heads * a.head_dim : a.q_dim());
    const double kv = static_cast<double>(a.is_mla() ? a.heads * a.head_dim : a.kv_dim());
    const double i = ffn_width(a);
    // Quantised frozen linears (bitsandbytes, GPTQ/AWQ autograd functions)
    // save their input for backward like trainable ones do.
    const bool saves_inputs = w.method == Method::Full || !w.quant.none();
    double bytes = 4.0 * h * static_cast<double>(std::max<std::int64_t>(a.norms_per_layer, 2));
    bytes += act * (q + 2 * kv + q);
    if (!w.flash_attn)
        bytes += (act + 4.0) * static_cast<double>(a.heads) * static_cast<double>(w.seq);
    bytes += act * i * (a.mlp == MlpKind::Gated ? 3.0 : 1.0);
    const bool attn_in = saves_inputs || w.targets(LoraTarget::Q) || w.targets(LoraTarget::K) ||
                         w.targets(LoraTarget::V);
    const bool mlp_in = saves_inputs || w.targets(LoraTarget::Gate) || w.targets(LoraTarget::Up);
    const bool down_in = saves_inputs || w.targets(LoraTarget::Down);
    if (attn_in) bytes += act * h;
    if (mlp_in) bytes += act * h;
    if (down_in) bytes += act * i;
    return bytes;
}

bool paged(Optimizer o) {
    return o == Optimizer::PagedAdamW8bit || o == Optimizer::PagedAdamW32bit;
}

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
        c.weights = p.block_linear *
                        (covered * weight_bytes_per_param(w.quant, w.precision, w.double_quant) +
                         (1.0 - covered) * act) +
                    non_linear * act;
        if (!w.quant.none())
            c.workspace +=
                static_cast<double>(a.hidden) * ffn_width(a) * act;  // one dequantised matrix
    }
    if (w.uses_lora()) {
        *trainable = lora_params(w);
        c.adapters = *trainable * train_dtype;
    }
}

// Gradients and optimizer state of the trainable parameters.
void training_state(const Workload& w, double trainable, Components& c, double* paged_bytes) {
    const Architecture& a = w.model.arch;
    const bool amp = w.mixed == MixedPrecision::Amp && w.precision != Precision::Fp32;
    const double train_dtype =
        (w.precision == Precision::Fp32 || amp) ? 4.0 : dtype_bytes(w.precision);
    const double h = static_cast<double>(a.hidden);
    const double largest_matrix =
        std::max({h * ffn_width(a) / std::max<double>(1, static_cast<double>(a.experts_per_token)),
                  h * static_cast<double>(a.q_dim()), static_cast<double>(a.vocab) * h});
    c.gradients = w.optimizer_in_backward ? std::min(trainable, largest_matrix) * train_dtype
                                          : trainable * train_dtype;
    const double state = optimizer_state_bytes(w.optimizer, train_dtype, trainable, h);
    if (paged(w.optimizer))
        *paged_bytes = state;
    else
        c.optimizer = state;
}

// Bytes per token and layer that selective checkpointing keeps besides the
// layer input: the attention kernel's output and the outputs of every other
// matmul in the block's forward order (the 1st, 3rd, ...): q, v, gate and down
// in a gated block (q k v o gate up down), q, v and up in a plain one.
double selective_saved_per_token(const Workload& w) {
    const Architecture& a = w.model.arch;
    const double act = dtype_bytes(w.precision);
    const double q = static_cast<double>(a.is_mla() ? a.heads * a.head_dim : a.q_dim());
    const double kv = static_cast<double>(a.is_mla() ? a.heads * a.head_dim : a.kv_dim());
    const double h = static_cast<double>(a.hidden);
    const double i = ffn_width(a);
    const double ffn = a.mlp == MlpKind::Gated ? i + h : i;  // gate and down, or up
    return act * (q /* attention output */ + q + kv + ffn);
}

// Bytes per logit at the loss's peak, by what the harness's loss keeps.
double loss_bytes_per_logit(const Workload& w) {
    const double act = dtype_bytes(w.precision);
    switch (w.loss) {
        case Loss::Upcast:
            // transformers loss_utils.py ForCausalLMLoss: "Upcast to float if we
            // need to compute the loss", logits.float(). The 16-bit logits, the
            // fp32 copy, the fp32 log-softmax cross_entropy saves, its fp32
            // gradient and the 16-bit gradient cast back: 2 + 4 + 4 + 4 + 2 =
            // 16 bytes. In fp32 compute .float() is a no-op: logits, log-softmax
            // and gradient, 12.
            return w.precision == Precision::Fp32 ? 3.0 * act : act + 12.0 + act;
        case Loss::Bf16:
            // Cross-entropy in the compute dtype (pure bf16, DeepSpeed bf16):
            // logits, the saved log-softmax and the gradient, 6 bytes in 16-bit.
            return 3.0 * act;
        case Loss::Chunked:
            // torchtune CEWithChunkedOutputLoss ("only upcasting one chunk at a
            // time") keeps the 16-bit logits; torchtune measured 8.1 GiB saved for
            // 1.05e9 logits against the upcast loss, about 8 bytes each. (litgpt's
            // chunked_cross_entropy is not this: its measured rows show ~16 bytes
            // per logit, docs/memory-model.md.)
            return act;
        case Loss::Fused:
            // Fused linear-cross-entropy (Liger's LigerFusedLinearCrossEntropy,
            // Apple's cut-cross-entropy, Unsloth) computes the loss and the
            // gradient of the hidden states chunk by chunk in the forward: the
            // logits are never materialised.
            return 0.0;
    }
    return act + 12.0 + act;
}

// Saved activations and the loss's logits of one micro-batch.
void training_activations(const Workload& w, Components& c) {
    const Architecture& a = w.model.arch;
    const double act = dtype_bytes(w.precision);
    const double b = static_cast<double>(w.batch), s = static_cast<double>(w.seq);
    const double layers = static_cast<double>(a.total_layers());
    const double per_layer = saved_bytes_per_token_layer(w) * b * s;
    const double layer_input = b * s * static_cast<double>(a.hidden) * act;
    switch (w.ckpt_mode) {
        case CkptMode::None:
            c.activations = layers * per_layer;
            break;
        case CkptMode::Full:
            // Each layer's input is kept; backward recomputes one layer at a time.
            c.activations = layers * layer_input + per_layer;
            break;
        case CkptMode::Selective:
            // torchtitan's op policy (torchtitan activation checkpoint
            // _custom_policy, _save_list): the outputs of the attention kernel
            // and of every second matmul in forward order are kept (q, v, gate
            // and down in a Llama block), the rest recomputed one layer at a time.
            c.activations =
                layers * (layer_input + selective_saved_per_token(w) * b * s) + per_layer;
            break;
        case CkptMode::Offload:
            // torchtune's OffloadActivations / Unsloth's offloaded checkpointing:
            // the checkpointed layer inputs go to host memory; on the GPU are the
            // layer being recomputed and two inputs in flight (the one in use and
            // the one prefetched; assumed from the single prefetch stream).
            c.activations = 2.0 * layer_input + per_layer;
            break;
    }
    c.logits =
        a.encoder_only ? 0.0 : b * s * static_cast<double>(a.vocab) * loss_bytes_per_logit(w);
}

// Tokens of KV one sequence keeps: every layer holds the context, sliding
// layers at most their window (llama.cpp pads the window by a micro-batch of
// 512 and rounds to 256; vLLM and transformers keep the window).
double kv_tokens_per_sequence(const Workload& w) {
    const Architecture& a = w.model.arch;
    const double ctx = static_cast<double>(w.seq);
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
        c.kv_cache = kv_tokens_per_sequence(w) * per_token_layer * b * kv_dtype_bytes(w.kv_dtype);
        // Linear-attention and state-space layers keep a fixed state per sequence.
        c.kv_cache += static_cast<double>(a.kv_free_layers) *
                      static_cast<double>(a.state_bytes_per_layer) * b;
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

// What the caching allocator holds beyond the allocated peak (torch
// max_memory_reserved - max_memory_allocated).
double allocator_pool(const Workload& w, const Components& c, double allocated) {
    // llama.cpp allocates exact ggml buffers: no caching allocator.
    if (!w.trains() && w.engine && w.engine->memory == MemoryPolicy::LlamaCpp) return 0.0;
    if (!w.trains()) return kAllocatorReserve * allocated;
    const double per_step = c.activations + c.logits + c.workspace;
    double pool = kSplitRemainder * per_step;
    // Batches padded to their own longest sample change shape every step. A
    // longer batch than any before cannot reuse the cached blocks of the
    // shorter ones' logits (the largest tensors of a step, one block each), so
    // it takes new segments and the old blocks stay cached. Packed or
    // fixed-length batches reuse their blocks.
    if (!w.packing) pool += kStrandedLogits * c.logits;
    return pool;
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
    e.reserved_bytes = allocated + std::min(checked_bytes(c.pool, w), e.get(&Components::runtime));
    e.per_gpu_bytes = allocated + e.get(&Components::runtime);
    e.total_bytes = static_cast<std::uint64_t>(
        checked_bytes(static_cast<double>(e.per_gpu_bytes) * static_cast<double>(w.gpus), w));
    e.trainable_params = to_bytes(trainable);
    e.paged_optimizer_bytes = to_bytes(paged_bytes);
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
        training_state(w, *trainable, c, paged_bytes);
        training_activations(w, c);
    } else {
        inference_activations(w, c);
    }
    *paged_bytes /= shard(w, p, *trainable, c);
    if (w.trains() && w.precision == Precision::Fp8) c.workspace += fp8_state_bytes(w, p);
    c.workspace = std::max(c.workspace, 0.0);
    if (w.trains()) c.workspace += optimizer_step_excess(w, c);
}

}  // namespace

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
        w.optimizer_in_backward || deepspeed)
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
        if (const auto m = match_calibration(*w.calibration, w))
            scale_allocated_components(c, m->memory_factor);
    double allocated = 0;
    for (const auto& n : kComponentNames)
        if (n.member != &Components::runtime) allocated += c.*n.member;
    c.pool = allocator_pool(w, c, allocated);
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
    if (paged(w.optimizer) && w.trains())
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
    // models' would not say how wrong this estimate is).
    if (const ErrorBand* b = w.is_image() ? error_bands().find_exact(BandQuantity::Memory, method)
                                          : error_bands().find(BandQuantity::Memory, method))
        e.band = std::pair{b->low, b->high};
    if (w.calibration)
        if (const auto m = match_calibration(*w.calibration, w); m && m->memory_records > 0) {
            e.calibrated = m;
            e.notes.push_back(fmt::format(
                "calibrated from {} measured run{} in {}: allocated components x{:.3f}",
                m->memory_records, m->memory_records > 1 ? "s" : "", m->source, m->memory_factor));
            // The range a calibrated estimate keeps: bench/accuracy's spread of
            // the other rows of a source after calibrating on one of them.
            if (const ErrorBand* b = error_bands().find_exact(BandQuantity::Memory, "calibrated"))
                e.band = std::pair{b->low, b->high};
        }
    return e;
}

}  // namespace gpuadvise
