#include "gpuadvise/perf.hpp"

#include <algorithm>
#include <cmath>

namespace gpuadvise {
namespace {

// Fractions of the datasheet peak that real kernels reach. Decode GEMVs stream
// weights at 60-80 % of peak bandwidth (llama.cpp and vLLM measurements on
// A100/H100/RTX 4090, see docs/performance-model.md); prefill and training
// GEMMs reach 40-60 % of dense tensor peak (MFU reported by Megatron-LM and
// torchtitan). The speed-model issue calibrates these per architecture class.
constexpr double kBandwidthEfficiency = 0.7;
constexpr double kPrefillEfficiency = 0.5;
constexpr double kTrainEfficiency = 0.4;
// Fraction of gradient communication that data-parallel frameworks hide
// behind the backward pass (bucketed all-reduce overlap).
constexpr double kCommOverlap = 0.5;

double interconnect_gbps(const Gpu& g) {
    if (g.interconnect_type != "none" && g.interconnect_gbps) return *g.interconnect_gbps / 2.0;  // per direction
    return g.pcie_gbps().value_or(16.0);
}

}  // namespace

std::optional<double> Performance::tokens_per_s() const {
    return train_tokens_per_s ? train_tokens_per_s : decode_tokens_per_s;
}

std::optional<double> compute_tflops(const Gpu& gpu, const Workload& w) {
    if (w.quant == Quant::Fp8 && gpu.tflops.fp8) return gpu.tflops.fp8;
    switch (w.precision) {
        case Precision::Bf16: return gpu.tflops.bf16 ? gpu.tflops.bf16 : gpu.tflops.fp16;
        case Precision::Fp16: return gpu.tflops.fp16;
        case Precision::Fp32: return gpu.tflops.fp32;
    }
    return std::nullopt;
}

Performance estimate_performance(const Workload& w, const MemoryEstimate& memory, const Gpu& gpu) {
    Performance perf;
    if (w.is_fixed()) return perf;  // no model to time
    const auto tflops = compute_tflops(gpu, w);
    const double n = static_cast<double>(w.gpus);
    const double active = static_cast<double>(w.model.active_params);
    const double total = static_cast<double>(std::max<std::uint64_t>(w.model.params, 1));
    const double bw = gpu.memory_bandwidth_gbps * 1e9 * kBandwidthEfficiency;
    const double b = static_cast<double>(w.batch);

    if (!w.trains()) {
        // Decode: every step reads the (active) weights and the KV cache once.
        const double weights = static_cast<double>(memory.component("weights_bytes")) * (active / total);
        const double kv = static_cast<double>(memory.component("kv_cache_bytes"));
        const double bytes_per_step = weights + kv * 0.5;  // the cache is half full on average
        const double memory_time = bytes_per_step / bw;
        double compute_time = 0;
        if (tflops) compute_time = 2.0 * active * b / n / (*tflops * 1e12 * kPrefillEfficiency);
        // The per-GPU weights are already split by the plan; tensor parallel
        // stages work at once, pipeline stages one after another.
        const double stages = w.parallel == Parallel::Pp ? n : 1.0;
        const double step = std::max(memory_time, compute_time) * stages;
        perf.bound = compute_time > memory_time ? "compute" : "memory";
        perf.decode_tokens_per_s = b / step;
        if (tflops) {
            const double prompt = static_cast<double>(w.prompt);
            const double flops = 2.0 * active * prompt * b;
            const double speedup = w.parallel == Parallel::Tp ? n : 1.0;
            perf.prefill_tokens_per_s = prompt * b / (flops / (*tflops * 1e12 * kPrefillEfficiency * speedup));
        }
        return perf;
    }
    if (!tflops) return perf;
    // Training FLOPs per token: forward 2P, backward 4P for trained weights;
    // frozen weights (LoRA) skip the weight-gradient half of backward;
    // checkpointing recomputes the forward once more.
    double per_token = w.method == Method::Full ? 6.0 * active : 4.0 * active;
    if (w.grad_ckpt) per_token += 2.0 * active;
    double flops_rate = *tflops * 1e12 * kTrainEfficiency;
    if (w.quant != Quant::None) flops_rate *= 0.75;  // dequantising the base weights every matmul
    const double tokens = b * static_cast<double>(w.seq);
    const double compute_seconds = tokens * per_token / flops_rate;
    double comm_seconds = 0;
    if (w.gpus > 1) {
        // Ring all-reduce (or reduce-scatter + all-gather) moves 2(N-1)/N of the
        // gradient bytes per GPU each step.
        const double link = interconnect_gbps(gpu) * 1e9;
        const double grad_bytes = static_cast<double>(memory.trainable_params) * 2.0;
        double bytes = 2.0 * (n - 1.0) / n * grad_bytes;
        // Sharded plans also all-gather every layer's weights in forward and
        // again in backward: (N-1)/N of the full weights, twice per step.
        if (w.parallel == Parallel::Fsdp || w.parallel == Parallel::Zero3)
            bytes += 2.0 * (n - 1.0) * static_cast<double>(memory.component("weights_bytes"));
        comm_seconds = bytes / link * (1.0 - kCommOverlap);
    }
    perf.step_seconds = compute_seconds + comm_seconds;
    perf.train_tokens_per_s = tokens * n / *perf.step_seconds;
    perf.bound = "compute";
    return perf;
}

}  // namespace gpuadvise
