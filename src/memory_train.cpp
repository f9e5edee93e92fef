// Training's share of the memory model: what a training step keeps on the
// GPU besides the weights (docs/memory-model.md, "Training state",
// "Activations", "Harnesses"): the trainable weights' gradients and optimizer
// state, the tensors autograd saves for backward, site by site, as the
// harness's code path saves them, and the loss's logits.
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "gpuadvise/units.hpp"
#include "memory_common.hpp"

namespace gpuadvise::memory_detail {
namespace {

// bitsandbytes' paged optimizers keep the state of a tensor of fewer than
// 1e5 elements in ordinary device memory (optim/optimizer.py
// get_state_buffer: `if not self.is_paged or p.numel() < 1e5: return
// torch.zeros_like(...)`); its 8-bit optimizers keep 32-bit state for
// tensors of fewer than min_8bit_size = 4096 elements.
constexpr double kPagedMinElements = 1e5;
constexpr double kEightBitMinElements = 4096;

bool paged(Optimizer o) {
    return o == Optimizer::PagedAdamW8bit || o == Optimizer::PagedAdamW32bit;
}
bool eight_bit(Optimizer o) {
    return o == Optimizer::AdamW8bit || o == Optimizer::PagedAdamW8bit;
}

// The LoRA matrices: A is rank x in, B is out x rank, for every targeted
// matrix of every layer (every expert's matrices in MoE layers).
struct LoraShapes {
    double params = 0;
    double small = 0;  // in tensors under kPagedMinElements
    double tiny = 0;   // in tensors under kEightBitMinElements
};

LoraShapes lora_shapes(const Workload& w) {
    LoraShapes out;
    const Architecture& a = w.model.arch;
    const double r = static_cast<double>(w.lora_rank);
    const double h = static_cast<double>(a.hidden);
    const double q = static_cast<double>(a.is_mla() ? a.heads * a.v_head_dim : a.q_dim());
    const double kv = static_cast<double>(a.kv_dim());
    const double moe_layers = a.is_moe() ? static_cast<double>(a.layers - a.dense_layers) : 0.0;
    const double dense_layers = static_cast<double>(a.total_layers()) - moe_layers;
    const double all_layers = static_cast<double>(a.total_layers());
    const auto add = [&](double in, double outf, double copies) {
        for (const double n : {r * in, r * outf}) {
            out.params += n * copies;
            if (n < kPagedMinElements) out.small += n * copies;
            if (n < kEightBitMinElements) out.tiny += n * copies;
        }
    };
    if (w.targets(LoraTarget::Q)) add(h, q, all_layers);
    if (w.targets(LoraTarget::K)) add(h, kv, all_layers);
    if (w.targets(LoraTarget::V)) add(h, kv, all_layers);
    if (w.targets(LoraTarget::O)) add(q, h, all_layers);
    const auto mlp = [&](double inner, double copies) {
        if (w.targets(LoraTarget::Gate) && a.mlp == MlpKind::Gated) add(h, inner, copies);
        if (w.targets(LoraTarget::Up)) add(h, inner, copies);
        if (w.targets(LoraTarget::Down)) add(inner, h, copies);
    };
    mlp(static_cast<double>(a.intermediate), dense_layers);
    if (a.is_moe()) {
        mlp(static_cast<double>(a.moe_intermediate), static_cast<double>(a.experts) * moe_layers);
        if (a.shared_intermediate > 0) mlp(static_cast<double>(a.shared_intermediate), moe_layers);
    }
    if (w.targets(LoraTarget::LmHead)) add(h, static_cast<double>(a.vocab), 1.0);
    return out;
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

// One input of linear layers (a "site": the attention's input, the attention
// output, the MLP's input, the down projection's input) and what the
// consumers reading it keep for backward.
struct Site {
    double width = 0;     // elements per token
    double in_bytes = 0;  // the input's dtype
    int linears = 1;      // layers reading it
    int adapters = 0;     // LoRA adapters among them
};

// Bytes per token that a site leaves saved for backward:
// - a trainable linear saves its input (F.linear); under autocast an input
//   in another dtype is cast per op, and the cast is what is saved;
// - a LoRA adapter's lora_A saves its input: with dropout p > 0 each adapter
//   keeps its own dropped copy and a bool mask (torch native_dropout; PEFT
//   and litgpt give every adapter its own nn.Dropout), else the site's input
//   itself, or the adapter-dtype cast PEFT makes outside autocast
//   (tuners_utils.py _cast_input_dtype);
// - bitsandbytes before 0.43.2 keeps every 4-bit layer's input
//   (MatMul4Bit.forward: ctx.tensors = (A, B); #1270 dropped A).
// A tensor saved by several consumers is counted once.
struct SiteBytes {
    double saved = 0;
    double legacy = 0;  // the part old bitsandbytes keeps (outside checkpointing's hooks)
    // ... of which an adapter also saves (the same tensor, without dropout):
    // a layer recomputed under non-reentrant checkpointing holds both the
    // original (ctx) and the recomputed copy (its saved tensor).
    double legacy_shared = 0;
};
SiteBytes site_bytes(const Site& s, const Workload& w, const TrainDtypes& d, bool quantized,
                     std::vector<double>* tensors) {
    bool shared = false;
    double copies = 0;
    const auto copy = [&](double bytes, double n) {
        copies += bytes * n;
        if (tensors)
            for (int k = 0; k < static_cast<int>(n); ++k) tensors->push_back(bytes * s.width);
    };
    if (w.method == Method::Full) {
        if (!d.autocast || s.in_bytes == d.act)
            shared = true;
        else
            copy(d.act, s.linears);
    }
    if (s.adapters > 0) {
        const double lora_in = d.autocast ? d.act : d.lora;
        if (w.lora_dropout > 0) {
            copy(1.0, s.adapters);  // the bool mask
            copy(lora_in, s.adapters);
        } else if (lora_in == s.in_bytes) {
            shared = true;
        } else {
            copy(lora_in, s.adapters);
        }
    }
    SiteBytes out;
    if (quantized && w.bnb_keeps_input) {
        // Linear4bit.forward casts x to the compute dtype first; A is that.
        // The legacy part is the whole input even where an adapter saves the
        // same tensor: checkpointing's hooks drop that saved copy, and
        // backward frees it, but the ctx attribute keeps the tensor alive.
        if (s.in_bytes == d.act) {
            out.legacy = s.in_bytes * s.width;
            if (shared) out.legacy_shared = out.legacy;
            shared = true;
        } else {
            out.legacy = d.act * s.linears * s.width;
            copy(d.act, s.linears);
        }
    }
    if (shared && tensors) tensors->push_back(s.in_bytes * s.width);
    out.saved = s.width * ((shared ? s.in_bytes : 0.0) + copies);
    return out;
}

// Bytes one token leaves saved for backward in one layer (Korthikanti et al.
// 2022, §4, re-derived for pre-norm decoders without dropout): each norm's
// fp32 input (HF and litgpt RMSNorm/LayerNorm upcast), q/k/v and the
// attention output that SDPA saves, the FFN tensors the activation and gating
// need, and the inputs of the linear layers, site by site.
SiteBytes saved_per_token_layer(const Workload& w, const TrainDtypes& d,
                                std::vector<double>* tensors = nullptr) {
    const auto push = [tensors](double bytes, double n = 1) {
        if (tensors)
            for (int k = 0; k < static_cast<int>(n); ++k) tensors->push_back(bytes);
    };
    const Architecture& a = w.model.arch;
    const HarnessProfile& hp = w.profile();
    const double act = d.act;
    const double h = static_cast<double>(a.hidden);
    const double q = static_cast<double>(a.is_mla() ? a.heads * a.head_dim : a.q_dim());
    const double kv = static_cast<double>(a.is_mla() ? a.heads * a.head_dim : a.kv_dim());
    const double i = ffn_width(a);
    const bool gated = a.mlp == MlpKind::Gated;
    const double norms = static_cast<double>(std::max<std::int64_t>(a.norms_per_layer, 2));
    // The attention kernel saves q, k, v and its output; k and v at every
    // query head where the harness repeats the KV heads first.
    const double kv_saved = hp.repeats_kv_heads && !a.is_mla() ? std::max(kv, q) : kv;
    double attention = act * (q + 2 * kv_saved + q);
    push(act * q, 2);
    push(act * kv_saved, 2);
    if (!w.flash_attn) {
        const double scores = static_cast<double>(a.heads) * static_cast<double>(w.seq);
        attention += (act + 4.0) * scores;
        push(act * scores);
        push(4.0 * scores);
    }
    SiteBytes out;
    if (hp.fused_lora_kernels && w.uses_lora() && w.lora_dropout == 0 && !a.is_moe()) {
        // Unsloth (kernels/fast_lora.py): LoRA_QKV saves X, LoRA_W (o) its X,
        // LoRA_MLP saves X and the gate and up outputs e, g (the product is
        // recomputed in backward); its RMSNorm kernel saves X and 1/rms.
        out.saved = norms * (act * h + 4.0) + attention + act * (h + q + h) + act * 2.0 * i;
        push(act * h, norms + 2.0);
        push(act * q);
        push(act * i, 2);
        return out;
    }
    // Each norm's fp32 input; a trainable norm weight also keeps the
    // normalised input (HF: weight * hidden_states.to(input_dtype)).
    out.saved = norms * (4.0 * h + (w.method == Method::Full ? d.resid * h : 0.0));
    push(4.0 * h, norms);
    if (w.method == Method::Full) push(d.resid * h, norms);
    out.saved += attention;
    out.saved += d.inter * i * (gated ? 3.0 : 1.0);  // gate, act(gate), up; or fc
    push(d.inter * i, gated ? 3.0 : 1.0);
    const bool bnb4 = w.method == Method::Qlora && w.quant.family() == QuantFamily::Bnb4;
    const auto count = [&](std::initializer_list<LoraTarget> ts) {
        int n = 0;
        for (const LoraTarget t : ts) n += w.targets(t) ? 1 : 0;
        return n;
    };
    // MoE layers hand each routed expert a gathered copy of its tokens.
    const double routed = a.is_moe() ? static_cast<double>(a.experts_per_token) +
                                           (a.shared_intermediate > 0 ? 1.0 : 0.0)
                                     : 1.0;
    const int qkv = count({LoraTarget::Q, LoraTarget::K, LoraTarget::V});
    const std::array<Site, 4> sites{{
        {h, d.resid, hp.fused_qkv ? 1 : 3, hp.fused_qkv ? (qkv > 0 ? 1 : 0) : qkv},
        {q, act, 1, count({LoraTarget::O})},
        {h * routed, d.resid, gated ? 2 : 1,
         gated ? count({LoraTarget::Gate, LoraTarget::Up}) : count({LoraTarget::Up})},
        {i, d.inter, 1, count({LoraTarget::Down})},
    }};
    for (const Site& s : sites) {
        const SiteBytes b = site_bytes(s, w, d, bnb4, tensors);
        out.saved += b.saved;
        out.legacy += b.legacy;
        out.legacy_shared += b.legacy_shared;
    }
    return out;
}

}  // namespace

double ffn_width(const Architecture& a) {
    if (!a.is_moe()) return static_cast<double>(a.intermediate);
    return static_cast<double>(a.experts_per_token * a.moe_intermediate + a.shared_intermediate);
}

TrainDtypes train_dtypes(const Workload& w) {
    TrainDtypes d;
    const HarnessProfile& hp = w.profile();
    d.act = dtype_bytes(w.precision);
    const bool amp = w.mixed == MixedPrecision::Amp && w.precision != Precision::Fp32;
    // DeepSpeed's engine casts the module to 16-bit and keeps the fp32 master
    // in its optimizer; torch autocast does not run.
    const bool single_gpu_lora = w.method == Method::Lora && w.gpus <= 1;
    d.deepspeed = (hp.deepspeed_half && (hp.deepspeed_single_gpu_lora || !single_gpu_lora)) ||
                  (w.gpus > 1 && (w.parallel == Parallel::Zero1 || w.parallel == Parallel::Zero2 ||
                                  w.parallel == Parallel::Zero3)) ||
                  (w.train_offload != TrainOffload::None && w.parallel != Parallel::Fsdp);
    d.autocast = amp && !d.deepspeed;
    const bool sharded = w.gpus > 1 && w.parallel == Parallel::Fsdp;
    d.kbit_fp32 = w.method == Method::Qlora && hp.kbit_fp32 && !d.deepspeed && !sharded &&
                  (w.quant.family() == QuantFamily::Bnb4 || w.quant.family() == QuantFamily::Bnb8);
    d.resid = d.act;
    // fp32 master embeddings under autocast: the embedding's output, and with
    // it the residual stream, is fp32 (FSDP's MixedPrecision gathers 16-bit).
    if (d.autocast && w.method == Method::Full &&
        (w.gpus == 1 || w.parallel == Parallel::None || w.parallel == Parallel::Ddp))
        d.resid = 4.0;
    if (d.kbit_fp32) d.resid = 4.0;
    // Linear4bit.forward returns out.to(inp_dtype): fp32 in, fp32 out.
    d.inter = d.kbit_fp32 ? 4.0 : d.act;
    const bool fp32_adapters =
        w.method == Method::Qlora ? hp.qlora_adapters_fp32 : hp.adapters_fp32;
    d.lora = w.precision == Precision::Fp32 ? 4.0
             : d.deepspeed                  ? d.act
             : amp && fp32_adapters         ? 4.0
                                            : d.act;
    return d;
}

double lora_params(const Workload& w) {
    return lora_shapes(w).params;
}

// Gradients and optimizer state of the trainable parameters.
void training_state(const Workload& w, const Params& p, double trainable, Components& c,
                    double* paged_bytes) {
    const Architecture& a = w.model.arch;
    const TrainDtypes d = train_dtypes(w);
    const bool amp = w.mixed == MixedPrecision::Amp && w.precision != Precision::Fp32;
    const double train_dtype = w.uses_lora()                             ? d.lora
                               : (w.precision == Precision::Fp32 || amp) ? 4.0
                                                                         : d.act;
    const double h = static_cast<double>(a.hidden);
    const double largest_matrix =
        std::max({h * ffn_width(a) / std::max<double>(1, static_cast<double>(a.experts_per_token)),
                  h * static_cast<double>(a.q_dim()), static_cast<double>(a.vocab) * h});
    c.gradients = w.optimizer_in_backward ? std::min(trainable, largest_matrix) * train_dtype
                                          : trainable * train_dtype;
    // DeepSpeed's 16-bit optimizer keeps an fp32 master and fp32 moments of
    // the trainable weights (LoRA here; full fine-tunes are sharded in
    // memory_shard.cpp).
    const bool ds_lora = w.uses_lora() && d.deepspeed && w.precision != Precision::Fp32;
    const double state_dtype = ds_lora ? 4.0 : train_dtype;
    if (ds_lora) c.optimizer += trainable * 4.0;
    // Which tensors are small enough for the optimizer to keep on the device
    // whatever its paging, or in 32 bits whatever its 8-bit state.
    const LoraShapes shapes = w.uses_lora() ? lora_shapes(w) : LoraShapes{};
    const double small =
        w.uses_lora() ? shapes.small : std::min(trainable, p.other);  // norms and biases
    const double tiny = w.uses_lora() ? shapes.tiny : (h < kEightBitMinElements ? small : 0.0);
    double state = optimizer_state_bytes(w.optimizer, state_dtype, trainable, h);
    if (eight_bit(w.optimizer))
        state += tiny * (8.0 - (2.0 + 8.0 / 256.0));  // fp32 moments for tiny tensors
    if (paged(w.optimizer) && trainable > 0) {
        const double on_device = state * std::min(small, trainable) / trainable;
        *paged_bytes = state - on_device;
        c.optimizer += on_device;
    } else {
        c.optimizer += state;
    }
}

double loss_bytes_per_logit(const Workload& w) {
    const double act = dtype_bytes(w.precision);
    // torch autocast runs cross_entropy (log_softmax, nll_loss) in fp32
    // (torch.amp, "CUDA Ops that can autocast to float32"): a loss written in
    // the compute dtype (Qwen-1's CrossEntropyLoss on the 16-bit logits) is
    // upcast when the harness runs it under autocast, unless the head runs
    // in chunks of its own.
    const Loss loss = w.loss == Loss::Bf16 && train_dtypes(w).autocast &&
                              !(w.profile().chunked_head_for_adapters && w.uses_lora())
                          ? Loss::Upcast
                          : w.loss;
    switch (loss) {
        case Loss::Upcast:
            // transformers loss_utils.py ForCausalLMLoss: "Upcast to float if we
            // need to compute the loss", logits.float(). The 16-bit logits, the
            // fp32 copy, the fp32 log-softmax cross_entropy saves, its fp32
            // gradient and the 16-bit gradient cast back: 2 + 4 + 4 + 4 + 2 =
            // 16 bytes. In fp32 compute .float() is a no-op: logits, log-softmax
            // and gradient, 12.
            return w.precision == Precision::Fp32 ? 3.0 * act : act + 12.0 + act;
        case Loss::Bf16:
            // Cross-entropy in the compute dtype (DeepSpeed's 16-bit engine, no
            // autocast, a model whose loss does not upcast: Qwen-1's
            // modeling_qwen.py): logits, the saved log-softmax and the
            // gradient, 6 bytes in 16-bit. With the head run in chunks (litgpt's
            // LoRA GPT) the gradient is one chunk's: logits and log-softmax.
            return w.profile().chunked_head_for_adapters && w.uses_lora() ? 2.0 * act : 3.0 * act;
        case Loss::Chunked:
            // torchtune CEWithChunkedOutputLoss ("only upcasting one chunk at a
            // time") keeps the 16-bit logits; torchtune measured 8.1 GiB saved for
            // 1.05e9 logits against the upcast loss, about 8 bytes each. (litgpt's
            // chunked_cross_entropy is not this: its measured rows show ~16 bytes
            // per logit, docs/memory-model.md.)
            return act;
        case Loss::Fused:
            // Fused linear-cross-entropy (Liger's LigerFusedLinearCrossEntropy,
            // Apple's cut-cross-entropy, Unsloth, TRL's chunked_nll) computes the
            // loss and the gradient of the hidden states chunk by chunk: the
            // logits are never materialised.
            return 0.0;
    }
    return act + 12.0 + act;
}

// Saved activations and the loss's logits of one micro-batch.
void training_activations(const Workload& w, Components& c) {
    const Architecture& a = w.model.arch;
    const TrainDtypes d = train_dtypes(w);
    const double b = static_cast<double>(w.batch), s = static_cast<double>(w.seq);
    const double layers = static_cast<double>(a.total_layers());
    const SiteBytes per_token = saved_per_token_layer(w, d);
    const double per_layer = per_token.saved * b * s;
    // A checkpointed layer keeps its input: the residual stream, in its dtype.
    const double layer_input = b * s * static_cast<double>(a.hidden) * d.resid;
    // Old bitsandbytes keeps its inputs in ctx.tensors, which non-reentrant
    // checkpointing's saved-tensor hooks do not see: every layer keeps them
    // (fsdp_qlora README: "--reentrant_checkpointing True to avoid triggering
    // a bug in bitsandbytes which results in high memory usage"). The layer
    // being recomputed holds its originals too: its recomputed set counts
    // them where nothing else saves the input (the recompute's own ctx goes
    // with its discarded graph), not where an adapter saves it as well.
    const double legacy =
        w.reentrant_ckpt ? 0.0
                         : (per_token.legacy * (layers - 1.0) + per_token.legacy_shared) * b * s;
    switch (w.ckpt_mode) {
        case CkptMode::None:
            c.activations = layers * per_layer;
            break;
        case CkptMode::Full:
            // Each layer's input is kept; backward recomputes one layer at a time.
            c.activations = layers * layer_input + per_layer + legacy;
            break;
        case CkptMode::Selective:
            // torchtitan's op policy (torchtitan activation checkpoint
            // _custom_policy, _save_list): the outputs of the attention kernel
            // and of every second matmul in forward order are kept (q, v, gate
            // and down in a Llama block), the rest recomputed one layer at a time.
            c.activations =
                layers * (layer_input + selective_saved_per_token(w) * b * s) + per_layer + legacy;
            break;
        case CkptMode::Offload:
            // torchtune's OffloadActivations / Unsloth's offloaded checkpointing:
            // the checkpointed layer inputs go to host memory; on the GPU are the
            // layer being recomputed and two inputs in flight (the one in use and
            // the one prefetched; assumed from the single prefetch stream).
            c.activations = 2.0 * layer_input + per_layer;
            break;
    }
    // A loop that keeps the previous step's logits (litgpt's fit) keeps that
    // step's graph, and with it old bitsandbytes' ctx.tensors of every layer
    // (backward released the graph's saved tensors, not ctx attributes),
    // until this step's forward returns and the logits are rebound. At that
    // moment the new logits sit beside the old ones, which is no more than
    // the loss's own tensors take later (the chunked head's log-softmax, or
    // a full loss's), so the excess over the step's peak is those inputs.
    // Reentrant checkpointing's forward records no graph, and offloading
    // hooks pack what is saved: neither keeps them. Consecutive batches of
    // this shape (assumed for variable lengths too: a run whose batches
    // reach the --seq cap meets two in a row).
    const bool graph_keeps_inputs =
        w.ckpt_mode == CkptMode::None || (w.ckpt_mode != CkptMode::Offload && !w.reentrant_ckpt);
    if (w.profile().keeps_previous_graph && graph_keeps_inputs)
        c.activations += per_token.legacy * b * s * layers;
    c.logits =
        a.encoder_only ? 0.0 : b * s * static_cast<double>(a.vocab) * loss_bytes_per_logit(w);
    // With checkpointing the recomputed layer lives in backward, after the
    // loss's backward has freed its tensors: the peak holds the larger of the
    // two, not both (the checkpointed inputs are there either way).
    if (w.ckpt_mode != CkptMode::None) c.logits -= std::min(c.logits, per_layer);
}

std::vector<double> layer_saved_per_token(const Workload& w) {
    std::vector<double> per_token;
    saved_per_token_layer(w, train_dtypes(w), &per_token);
    return per_token;
}

std::vector<TensorGroup> loss_tensors(const Workload& w, double tokens) {
    std::vector<TensorGroup> out;
    const Architecture& a = w.model.arch;
    if (a.encoder_only) return out;
    const TrainDtypes d = train_dtypes(w);
    const double logits = tokens * static_cast<double>(a.vocab);
    // As loss_bytes_per_logit counts them: the 16-bit logits and their
    // gradient, and the fp32 copy, log-softmax and its gradient (three fp32
    // in fp32 compute); in the compute dtype, each a 16-bit tensor.
    const double per_logit = loss_bytes_per_logit(w);
    const bool upcast =
        w.loss == Loss::Upcast || (w.loss == Loss::Bf16 && d.autocast &&
                                   !(w.profile().chunked_head_for_adapters && w.uses_lora()));
    if (upcast) {
        if (w.precision == Precision::Fp32) {
            out.push_back({logits * 4.0, 3});
        } else {
            out.push_back({logits * d.act, 2});
            out.push_back({logits * 4.0, 3});
        }
    } else if (per_logit > 0) {
        out.push_back({logits * d.act, per_logit / d.act});
    }
    return out;
}

}  // namespace gpuadvise::memory_detail
