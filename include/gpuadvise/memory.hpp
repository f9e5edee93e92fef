#pragma once
// The memory one GPU needs for a workload, as named components that add up.
// Two estimators: `component` (the model of docs/memory-model.md, validated
// against measured peaks by bench/accuracy) and `doc` (the source document's
// rule of thumb, §2.1, kept as a reference).
#include <cstdint>
#include <string>
#include <vector>

#include "gpuadvise/workload.hpp"

namespace gpuadvise {

struct MemoryComponent {
    std::string name;  // "weights_bytes", ... as in the JSON contract
    std::uint64_t bytes = 0;
};

struct MemoryEstimate {
    std::vector<MemoryComponent> components;  // sum == per_gpu_bytes
    std::uint64_t allocated_bytes = 0;        // framework peak, without runtime overhead
    std::uint64_t per_gpu_bytes = 0;          // what must fit on one card
    std::uint64_t total_bytes = 0;            // all GPUs of the plan together
    std::uint64_t trainable_params = 0;
    // Paged optimizer state (bitsandbytes paged optimizers) lives in CUDA
    // unified memory: it pages out to the host under pressure, so it is not
    // part of what must fit, nor of what the allocator reports.
    std::uint64_t paged_optimizer_bytes = 0;
    std::string estimator;
    std::vector<std::string> notes;  // what the estimate leaves out or assumes

    std::uint64_t component(const std::string& name) const;
};

// Bytes per weight for a storage format, block/scale overhead included
// (nf4: 4 bits + an fp32 absmax per 64 weights, or 8-bit absmax with double
// quantisation; GPTQ/AWQ: fp16 scale and 4-bit zero per 128 weights).
double weight_bytes_per_param(Quant quant, Precision precision, bool double_quant);

MemoryEstimate estimate_memory(const Workload& workload);
MemoryEstimate estimate_memory_doc(const Workload& workload);
// Dispatches on workload.estimator.
MemoryEstimate estimate(const Workload& workload);

}  // namespace gpuadvise
