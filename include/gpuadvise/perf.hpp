#pragma once
// The speed, time and cost model (docs/performance-model.md): decode steps are
// bound by the bytes they read (weights, KV cache) at the engine's share of
// peak bandwidth plus its per-layer overhead; prefill and training are bound
// by FLOPs at a share of dense tensor peak; multi-GPU plans add communication.
// Efficiencies are per engine and fitted on the measured ground truth.
#include <optional>
#include <string>
#include <vector>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

struct EngineProfile {
    Engine engine;
    double bandwidth_efficiency;  // share of peak memory bandwidth a decode step reaches
    double layer_overhead_s;      // fixed cost per layer per step (launches, framework, Python)
    double prefill_efficiency;    // share of dense fp16/bf16 tensor peak in prefill GEMMs
    bool calibrated;              // fitted on bench/data, or assumed from published figures
    std::string evidence;
};
const EngineProfile& engine_profile(Engine e);
const std::vector<EngineProfile>& engine_profiles();

// What a job is, for time and cost (all optional; without them only rates are reported).
struct JobOptions {
    std::optional<double> tokens;          // training tokens, or tokens to generate
    std::optional<double> steps;           // optimizer steps of one micro-batch per GPU
    std::optional<double> epochs;          // with dataset_tokens
    std::optional<double> dataset_tokens;
    double amortize_years = 3.0;           // purchase price spread over this life
    double kwh_price_usd = 0.15;           // energy price
    double utilisation = 0.8;              // share of TDP drawn while the job runs
    std::optional<double> cloud_price_per_gpu_hour;  // rented instead of bought
};

struct Performance {
    std::string bound;  // "memory" | "compute" | "" when the card lacks the figures
    std::optional<double> decode_tokens_per_s;   // aggregate over the batch and the plan's GPUs
    std::optional<double> prefill_tokens_per_s;
    std::optional<double> time_to_first_token_s;
    std::optional<double> train_tokens_per_s;
    std::optional<double> step_seconds;  // one micro-batch per GPU, forward + backward (+ communication)
    std::optional<double> job_hours;
    std::optional<double> job_cost_usd;
    std::optional<double> energy_kwh;
    std::optional<double> usd_per_million_tokens;  // serving: cost per million generated tokens
    std::string cost_basis;                        // "purchase+energy" | "cloud"
    // The headline rate used for ranking: decode tokens/s or training tokens/s.
    std::optional<double> tokens_per_s() const;
};

// Share of the CUDA-calibrated efficiency a software platform reaches: Metal
// is fitted on the Apple rows of bench/data; ROCm, oneAPI and Habana have no
// measured rows there and carry documented assumptions.
double platform_efficiency(const Gpu& gpu);
bool platform_calibrated(const Gpu& gpu);

// Dense tensor throughput at the workload's compute precision, in TFLOPS.
std::optional<double> compute_tflops(const Gpu& gpu, const Workload& workload);

// Training efficiency (model FLOPs utilisation) for a hidden width: small
// matrices keep tensor cores less busy. Fitted on bench/data (see the doc).
double training_mfu(std::int64_t hidden);

// `workload.gpus` cards of `gpu`, with `memory` the per-GPU estimate.
Performance estimate_performance(const Workload& workload, const MemoryEstimate& memory, const Gpu& gpu,
                                 const JobOptions& job = {});

}  // namespace gpuadvise
