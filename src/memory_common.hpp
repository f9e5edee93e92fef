#pragma once
// What memory.cpp (language models, the allocator, assembly) and
// image_memory.cpp (image workloads) share. Private to the memory module.
#include <vector>

#include "gpuadvise/memory.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise::memory_detail {

// Parameter counts of the shape, scaled to the user's total when the shape was
// inferred from a bare size (so "8B" means 8e9 parameters, not the shape's 8.03e9).
struct Params {
    double embedding, lm_head, block_linear, active_linear, other;
    double total() const { return embedding + lm_head + block_linear + other; }
};
Params params_of(const Model& m);

// This GPU's share of a multi-GPU plan (memory_shard.cpp): data-parallel
// sharding (DDP, ZeRO-1/2/3, FSDP, tensor and pipeline parallel of one box)
// or a 3D layout's most loaded stage. Scales `c` in place and returns the
// factor the paged optimizer bytes are divided by.
double shard(const Workload& w, const Params& p, double trainable, Components& c);

// Training with host memory (--train-offload, memory_shard.cpp): moves the
// optimizer state, master weights and gradients (and with params the
// parameters) of this GPU's share to the host; returns the host bytes of the
// whole plan.
double train_offload(const Workload& w, const Params& p, double trainable, Components& c);

// Bytes per element of a 16- or 32-bit compute dtype.
double dtype_bytes(Precision p);

// The optimizer's state for `trainable` parameters: its moments in
// `state_dtype` bytes (Adafactor's row and column statistics over `hidden`).
double optimizer_state_bytes(Optimizer o, double state_dtype, double trainable, double hidden);

// What the optimizer step's peak adds over forward and backward (0 when
// forward/backward is the higher), for the workspace component.
double optimizer_step_excess(const Workload& w, const Components& c);

// FFN width one token passes through: the dense FFN, or its routed experts
// plus shared experts in an MoE layer.
double ffn_width(const Architecture& a);

// The dtypes of a training step's tensors (memory_train.cpp), from the
// precision, the strategy and the harness's code path.
struct TrainDtypes {
    double act = 2;          // compute dtype
    double resid = 2;        // the residual stream: layer inputs, norm outputs
    double inter = 2;        // the FFN linears' outputs
    double lora = 4;         // LoRA weights, their gradients and AdamW moments
    bool autocast = true;    // torch autocast casts each op's inputs
    bool deepspeed = false;  // DeepSpeed's engine: 16-bit module, fp32 master in its optimizer
    bool kbit_fp32 = false;  // prepare_model_for_kbit_training's fp32 parameters kept
};
TrainDtypes train_dtypes(const Workload& w);

// LoRA adapter parameters: rank x (in + out) for every targeted matrix.
double lora_params(const Workload& w);

// Gradients and optimizer state of `trainable` parameters; state that a paged
// optimizer keeps in unified memory goes to *paged_bytes.
void training_state(const Workload& w, const Params& p, double trainable, Components& c,
                    double* paged_bytes);

// Saved activations and the loss's logits of one micro-batch.
void training_activations(const Workload& w, Components& c);

// Bytes per logit at the loss's peak, by what the harness's loss keeps.
double loss_bytes_per_logit(const Workload& w);

// Tensors of one size, `count` of them.
struct TensorGroup {
    double bytes = 0;
    double count = 0;
};
// What one layer's forward keeps for backward, tensor by tensor, in bytes
// per token (memory_train.cpp), and the loss's tensors for `tokens` tokens.
std::vector<double> layer_saved_per_token(const Workload& w);
std::vector<TensorGroup> loss_tensors(const Workload& w, double tokens);

// A vision-language model's images (memory_vision.cpp): the encoder's
// activation peak over the images it runs at once, and, when full training
// trains the tower, what its layers keep for backward (0 otherwise).
double vision_encoder_peak(const Workload& w);
double vision_training_saved(const Workload& w);

// An embedding or reranker model's forward (embedding_memory.cpp): one
// forward's activations and head outputs, no KV cache.
void embedding_activations(const Workload& w, Components& c);

// What the caching allocator holds beyond the allocated peak
// (memory_pool.cpp): `pinned`, free space in segments that still hold a live
// block (an out-of-memory retry cannot release it: part of what must fit),
// and `cached`, wholly free segments it keeps on a card with room
// (torch.cuda.max_memory_reserved counts both; a retry gives them back).
struct AllocatorPool {
    double pinned = 0, cached = 0;
};
AllocatorPool allocator_pool(const Workload& w, double allocated);

// An image workload's components: a diffusion pipeline's or a vision model's.
void image_components(const Workload& w, Components& c, double* trainable);

}  // namespace gpuadvise::memory_detail
