#pragma once
// What memory.cpp (language models, the allocator, assembly) and
// image_memory.cpp (image workloads) share. Private to the memory module.
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

// Bytes per element of a 16- or 32-bit compute dtype.
double dtype_bytes(Precision p);

// The optimizer's state for `trainable` parameters: its moments in
// `state_dtype` bytes (Adafactor's row and column statistics over `hidden`).
double optimizer_state_bytes(Optimizer o, double state_dtype, double trainable, double hidden);

// What the optimizer step's peak adds over forward and backward (0 when
// forward/backward is the higher), for the workspace component.
double optimizer_step_excess(const Workload& w, const Components& c);

// An image workload's components: a diffusion pipeline's or a vision model's.
void image_components(const Workload& w, Components& c, double* trainable);

}  // namespace gpuadvise::memory_detail
