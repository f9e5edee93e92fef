// A plan's per-GPU share of the memory: data-parallel sharding over the GPUs
// of one box, or a 3D layout's most loaded pipeline stage with ZeRO-1/2 or
// FSDP over the data-parallel ranks.
#include <algorithm>
#include <cmath>

#include "gpuadvise/layout.hpp"
#include "gpuadvise/units.hpp"
#include "memory_common.hpp"

namespace gpuadvise::memory_detail {
namespace {

// What one GPU of a layout that splits the model holds (Megatron-LM's
// placement, docs/memory-model.md "3D layouts"): the parameters and their
// state split over tp x pp (routed experts also over ep) for the most loaded
// stage; the sharding of `parallel` over dp x cp on top; activations of the
// first stage, which holds min(pp, micro-batches) micro-batches in flight
// under 1F1B (interleaving adds (pp - 1) / (pp x vpp) of one, Korthikanti et
// al. 2022, arXiv 2205.05198 §4.2.3) and splits them over tp (sequence
// parallel, assumed on with tp as Megatron and torchtitan configure it) and
// cp; the vocabulary-parallel logits over tp x cp; and the buffers the
// collectives and stage hand-offs use.
double shard_layout(const Workload& w, const Params& p, double trainable, Components& c) {
    const Layout& l = w.layout;
    const Architecture& a = w.model.arch;
    const double tp = static_cast<double>(l.tp), pp = static_cast<double>(l.pp),
                 cp = static_cast<double>(l.cp), ep = static_cast<double>(l.ep),
                 dpcp = static_cast<double>(l.dp * l.cp);
    const double layers = static_cast<double>(std::max<std::int64_t>(a.total_layers(), 1));
    const double stage = static_cast<double>(stage_layers(a, l));
    const double uneven = stage * pp / layers;  // the most loaded stage over an even split
    const double experts = routed_expert_share(a);
    const double split = uneven * ((1.0 - experts) / (tp * pp) + experts / (tp * pp * ep));
    // Sharded over dp x cp as well: experts are replicated over dp x cp / ep
    // ranks, so every parameter's state ends up over all the plan's GPUs.
    const double sharded = uneven / (tp * pp * dpcp);
    const bool full = w.method == Method::Full;
    const bool amp = w.mixed == MixedPrecision::Amp && w.precision != Precision::Fp32;
    const double act = dtype_bytes(w.precision);
    const double b = static_cast<double>(w.batch), s = static_cast<double>(w.seq),
                 h = static_cast<double>(a.hidden);
    const bool fsdp = w.parallel == Parallel::Fsdp || w.parallel == Parallel::Zero3;
    if (full && amp && w.parallel != Parallel::Ddp && w.parallel != Parallel::None) {
        // Megatron's distributed optimizer (and ZeRO): 16-bit weights for
        // compute, the fp32 master kept and sharded with the optimizer state.
        c.optimizer += c.weights;
        c.weights = trainable * act;
        c.workspace -= trainable * act;
    }
    c.weights *= fsdp ? sharded : split;
    c.adapters *= fsdp ? sharded : split;
    c.gradients *= (fsdp || w.parallel == Parallel::Zero2) ? sharded : split;
    c.optimizer *= w.parallel == Parallel::Ddp || w.parallel == Parallel::None ? split : sharded;
    c.workspace = std::max(c.workspace, 0.0) * split;
    if (fsdp) c.workspace += 2.0 * p.block_linear / layers / tp * act;  // two gathered layers
    double in_flight = 1.0;
    if (l.pp > 1) {
        in_flight = static_cast<double>(std::min(l.pp, std::max<std::int64_t>(w.grad_accum, 1)));
        if (l.vpp > 1) in_flight *= 1.0 + (pp - 1.0) / (pp * static_cast<double>(l.vpp));
    }
    c.activations *= stage / layers * in_flight / (tp * cp);
    c.logits /= tp * cp;
    c.kv_cache = 0;
    // Sequence parallel gathers a layer's input (two in flight with overlap);
    // stages send and receive one micro-batch's activations each way.
    if (l.tp > 1) c.workspace += 2.0 * b * s / cp * h * act;
    if (l.pp > 1) c.workspace += 4.0 * b * s / (cp * tp) * h * act;
    return fsdp || w.parallel == Parallel::Zero1 || w.parallel == Parallel::Zero2 ? 1.0 / sharded
                                                                                  : 1.0 / split;
}

// DeepSpeed ZeRO-1/2's gradient buckets (runtime/zero/stage_1_and_2.py,
// backward): with contiguous_gradients every backward allocates an ipg buffer
// of reduce_bucket_size elements in the engine's 16-bit dtype, a second one
// with overlap_comm ("double buffers"), whatever the number of trainable
// parameters; independent_gradient_partition_epilogue releases them after
// backward, so they sit beside the activations. Their size is the run's
// DeepSpeed config: only a harness whose config ships with its scripts has
// one here; another adds nothing (not modelled: HF's "auto" fills
// hidden_size^2, DeepSpeed's own default is 5e8 with overlap_comm off). The
// config's figures are the harness's (HarnessProfile::zero_bucket_elements).
double zero_backward_buckets(const Workload& w) {
    const HarnessProfile& hp = w.profile();
    // Its full fine-tunes run ZeRO-3 (Qwen's finetune_ds.sh): the config
    // shipped for ZeRO-1/2 is the adapters' scripts'.
    if (!w.trains() || !w.uses_lora() || w.parallel == Parallel::Zero3 ||
        w.parallel == Parallel::Fsdp || w.train_offload != TrainOffload::None ||
        !train_dtypes(w).deepspeed)
        return 0.0;
    return hp.zero_bucket_elements * hp.zero_buckets * dtype_bytes(w.precision);
}
}  // namespace

// What one GPU of a multi-GPU plan holds. Returns the divisor of the paged
// optimizer state (it is sharded wherever the optimizer state is).
double shard(const Workload& w, const Params& p, double trainable, Components& c) {
    c.workspace += zero_backward_buckets(w);  // per GPU, on one GPU too
    if (w.gpus <= 1) return 1.0;
    if (w.trains() && w.layout.splits_model()) return shard_layout(w, p, trainable, c);
    const double n = static_cast<double>(w.gpus);
    const bool full = w.method == Method::Full;
    const bool amp = w.trains() && w.mixed == MixedPrecision::Amp && w.precision != Precision::Fp32;
    const double act = dtype_bytes(w.precision);
    const Architecture& a = w.model.arch;
    switch (w.parallel) {
        case Parallel::Ddp:
            c.workspace += c.gradients;  // DDP's gradient buckets duplicate the gradients
            return 1.0;
        case Parallel::Zero1:
        case Parallel::Zero2:
            if (full && amp) {
                // DeepSpeed: 16-bit weights replicated, the fp32 master kept with the optimizer,
                // sharded.
                c.optimizer += c.weights;
                c.weights = trainable * act;
                c.workspace -= trainable * act;
            }
            if (w.parallel == Parallel::Zero2) c.gradients /= n;
            c.optimizer /= n;
            return n;
        case Parallel::Fsdp:
        case Parallel::Zero3: {
            const double layers = static_cast<double>(std::max<std::int64_t>(a.total_layers(), 1));
            const double layer_params = p.block_linear / layers;
            // FSDP1 units that hold a block's frozen weights and its LoRA
            // weights in one FlatParameter (use_orig_params=True, litgpt's
            // auto_wrap_policy={Block}) get gradient memory "equivalent to not
            // freezing those parameters" (torch FSDP docstring): the block's
            // gradients, sharded, and one unit's unsharded before its
            // reduce-scatter.
            const bool mixed_flat = w.trains() && w.uses_lora() && w.profile().fsdp_mixed_flat &&
                                    w.parallel == Parallel::Fsdp;
            if (mixed_flat) {
                c.gradients += (p.block_linear + p.other) * act;
                c.workspace += layer_params * act;
            }
            // Gradient accumulation through accelerate's or Fabric's no_sync
            // skips the reduce-scatter of every micro-step but the last, so
            // each unit keeps its whole gradient, unsharded, in the dtype it
            // was computed in (the compute dtype) until the step that syncs
            // (torch FSDP no_sync: "gradients are accumulated in unsharded
            // form"); that step's backward holds them next to its activations.
            // A harness's choice: without --harness the estimate keeps the
            // reduce-scatter of every micro-step (torchtitan, Megatron, accelerate's
            // sync_each_batch).
            const bool no_sync = w.trains() && w.parallel == Parallel::Fsdp && w.grad_accum > 1 &&
                                 w.harness_given && w.profile().fsdp_no_sync;
            const double unsharded_grads = full && amp ? c.gradients * act / 4.0 : c.gradients;
            c.weights /= n;
            c.adapters /= n;
            c.gradients = no_sync ? unsharded_grads : c.gradients / n;
            c.optimizer /= n;
            // The root unit (the parameters no block unit wraps: the token
            // embedding, the output head, the final norm) stays gathered from
            // forward to the end of backward: FSDP1's _post_forward_reshard
            // does not free the root ("they are immediately used for backward
            // computation"), and FSDP2 keeps the root's reshard_after_forward
            // off. It is gathered in the 16-bit compute dtype.
            if (w.trains() && w.parallel == Parallel::Fsdp &&
                w.profile().fsdp_root_holds_embeddings)
                c.workspace += (p.embedding + p.lm_head) * act;
            // Two layers' weights gathered (current + prefetched) replace the
            // per-step weight copies of autocast. They are gathered as stored:
            // a 4-bit base travels packed (bitsandbytes quant_storage for
            // FSDP1, torchao NF4's all-gather hooks for FSDP2).
            const double gathered =
                w.quant.none() ? act : weight_bytes_per_param(w.quant, w.precision, w.double_quant);
            if (full && amp) c.workspace -= trainable * act;
            c.workspace += 2.0 * layer_params * gathered;
            // A full fine-tune's unit holds its unsharded gradients until the
            // reduce-scatter (in the compute dtype).
            if (full && w.trains() && !no_sync) c.workspace += layer_params * act;
            return n;
        }
        case Parallel::Tp:
            c.weights /= n;
            c.adapters /= n;
            c.gradients /= n;
            c.optimizer /= n;
            c.kv_cache /= n;
            c.draft /= n;  // the draft split as the target (vLLM's draft_tensor_parallel_size)
            c.activations /= n;
            c.logits /= n;
            c.workspace /= n;
            return n;
        case Parallel::Pp:
            // Each stage holds its layers; the prefill peak is one layer's either way.
            c.weights /= n;
            c.adapters /= n;
            c.gradients /= n;
            c.optimizer /= n;
            c.kv_cache /= n;
            c.draft /= n;  // the draft's layers split over the stages too (llama.cpp's default)
            if (full && amp) c.workspace /= n;
            return n;
        case Parallel::None:
            return 1.0;
    }
    return 1.0;
}

// DeepSpeed's reduce_bucket_size default (runtime/zero/config.py:
// reduce_bucket_size = 5e8 elements): the gradients ZeRO-1/2/3 hold on the
// GPU while they stream to the host under offload_optimizer.
constexpr double kReduceBucketElements = 5e8;

double train_offload(const Workload& w, const Params& p, double trainable, Components& c) {
    if (!w.trains() || w.train_offload == TrainOffload::None) return 0.0;
    const double n = static_cast<double>(std::max<std::int64_t>(w.gpus, 1));
    const Architecture& a = w.model.arch;
    const bool full = w.method == Method::Full;
    const bool amp = w.mixed == MixedPrecision::Amp && w.precision != Precision::Fp32;
    const double act = dtype_bytes(w.precision);
    const bool fsdp = w.parallel == Parallel::Fsdp;
    // On one GPU shard() left the fp32 master as the weights: the offloading
    // engine keeps 16-bit weights on the GPU and the master with the state.
    if (w.gpus <= 1 && full && amp) {
        c.optimizer += c.weights;
        c.weights = trainable * act;
        c.workspace -= trainable * act;
    }
    // ZeRO-3 likewise: shard() left each rank's fp32 master partition as its
    // weights; DeepSpeed keeps a 16-bit partition beside the master the
    // optimizer holds (FSDP's fp32 FlatParameter is the master itself).
    if (w.gpus > 1 && w.parallel == Parallel::Zero3 && full && amp) {
        c.optimizer += c.weights;
        c.weights = trainable * act / n;
    }
    const double grad_bytes = full ? (amp ? 4.0 : act) : train_dtypes(w).lora;
    // The host: every rank's optimizer partition (fp32 master and moments),
    // and the gradients it steps with (DeepSpeedCPUAdam reads fp32 gradients;
    // FSDP's CPU offload moves the sharded gradients).
    double host = c.optimizer * n + trainable * grad_bytes;
    c.optimizer = 0;
    const double bucket = kReduceBucketElements * act;
    if (w.train_offload == TrainOffload::Optimizer) {
        c.gradients = std::min(c.gradients, bucket);
        return host;
    }
    // params: the 16-bit (or 4-bit) parameters live on the host too, and are
    // gathered a layer at a time (the current and the prefetched one).
    c.host_weights = (c.weights + c.adapters) * n;
    host += c.host_weights;
    c.weights = 0;
    c.adapters = 0;
    c.gradients = fsdp ? 0.0 : std::min(c.gradients, bucket);
    if (w.gpus <= 1) {
        const double layers = static_cast<double>(std::max<std::int64_t>(a.total_layers(), 1));
        const double gathered =
            w.quant.none() ? act : weight_bytes_per_param(w.quant, w.precision, w.double_quant);
        c.workspace += 2.0 * p.block_linear / layers * gathered;
        if (full) c.workspace += p.block_linear / layers * act;  // a unit's unsharded gradients
    }
    return host;
}

}  // namespace gpuadvise::memory_detail
