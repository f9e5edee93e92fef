#pragma once
// A first roofline speed model (docs/performance-model.md): memory-bound steps
// take bytes moved / bandwidth, compute-bound steps take FLOPs / dense tensor
// throughput, each scaled by a documented efficiency.
#include <optional>
#include <string>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

struct Performance {
    std::string bound;  // "memory" | "compute" | "" when the card lacks the figures
    std::optional<double> decode_tokens_per_s;   // aggregate over the batch and the plan's GPUs
    std::optional<double> prefill_tokens_per_s;
    std::optional<double> train_tokens_per_s;
    std::optional<double> step_seconds;  // one micro-batch per GPU, forward + backward
    // The headline rate used for ranking: decode tokens/s or training tokens/s.
    std::optional<double> tokens_per_s() const;
};

// Dense tensor throughput at the workload's compute precision, in TFLOPS.
std::optional<double> compute_tflops(const Gpu& gpu, const Workload& workload);

// `workload.gpus` cards of `gpu`, with `memory` the per-GPU estimate.
Performance estimate_performance(const Workload& workload, const MemoryEstimate& memory, const Gpu& gpu);

}  // namespace gpuadvise
