#include "gpuadvise/perf.hpp"

#include <algorithm>
#include <cmath>

namespace gpuadvise {
namespace {

// Fraction of gradient communication that data-parallel frameworks hide
// behind the backward pass (bucketed all-reduce overlap).
constexpr double kCommOverlap = 0.5;
// Width-dependent MFU: kMaxMfu * h / (h + kMfuWidth), fitted on the 133
// training rows of bench/data (litgpt, torchtune, HF Trainer, NVIDIA NGC).
constexpr double kMaxMfu = 0.88;
constexpr double kMfuWidth = 1600.0;
// QLoRA dequantises every 4-bit weight in forward and backward: fitted time
// factor on the nf4 training rows (the model was 13 % fast without it).
constexpr double kDequantTimeFactor = 1.15;

double per_direction_link_gbps(const Gpu& g) {
    if (g.interconnect_type != "none" && g.interconnect_gbps) return *g.interconnect_gbps / 2.0;
    return g.pcie_gbps().value_or(16.0);
}

}  // namespace

const std::vector<EngineProfile>& engine_profiles() {
    // Calibrated rows: least median |log error| over the engine's rows of
    // bench/data/throughput_visible.csv (the accuracy report prints the fit's
    // errors). Uncalibrated rows carry assumed values, said so in the output.
    static const std::vector<EngineProfile> profiles{
        {Engine::LlamaCpp, 0.94, 0.11e-3, 0.56, true, "fitted on 200 llama-bench decode and 178 prefill rows"},
        {Engine::Autoawq, 0.78, 0.06e-3, 0.24, true, "fitted on 32 AutoAWQ decode and 24 prefill rows"},
        {Engine::Transformers, 0.9, 0.92e-3, 0.5, true,
         "per-layer cost fitted on 4 transformers generate rows (bandwidth share fixed at 0.9)"},
        {Engine::Litgpt, 0.9, 1.5e-3, 0.5, true, "per-layer cost fitted on 17 litgpt generate rows (bandwidth share fixed at 0.9)"},
        {Engine::Vllm, 0.8, 0.03e-3, 0.6, false, "assumed: CUDA-graph decode near the bandwidth roofline"},
        {Engine::TensorrtLlm, 0.85, 0.02e-3, 0.65, false, "assumed: fused kernels, CUDA graphs"},
        {Engine::Exllamav2, 0.8, 0.05e-3, 0.5, false, "assumed: quantised GEMV kernels like AutoAWQ's"},
        {Engine::Pytorch, 0.85, 0.02e-3, 0.55, false, "assumed: torch.compile'd decode loop (gpt-fast)"},
    };
    return profiles;
}

const EngineProfile& engine_profile(Engine e) {
    for (const auto& p : engine_profiles())
        if (p.engine == e) return p;
    return engine_profiles().front();
}

double platform_efficiency(const Gpu& gpu) {
    if (gpu.software_platform == "metal" || gpu.vendor == "apple") return 0.5;  // 40 llama.cpp rows on M1/M2/M3
    if (gpu.software_platform == "rocm") return 0.7;     // assumed
    if (gpu.software_platform == "oneapi") return 0.5;   // assumed
    if (gpu.software_platform == "habana") return 0.6;   // assumed
    return 1.0;
}

bool platform_calibrated(const Gpu& gpu) {
    return gpu.software_platform == "cuda" || gpu.software_platform == "metal" || gpu.vendor == "apple";
}

double training_mfu(std::int64_t hidden) {
    const double h = static_cast<double>(std::max<std::int64_t>(hidden, 1));
    return kMaxMfu * h / (h + kMfuWidth);
}

std::optional<double> Performance::tokens_per_s() const {
    return train_tokens_per_s ? train_tokens_per_s : decode_tokens_per_s;
}

std::optional<double> compute_tflops(const Gpu& gpu, const Workload& w) {
    if (w.quant == Quant::Fp8 && gpu.tflops.fp8) return gpu.tflops.fp8;
    switch (w.precision) {
        case Precision::Bf16: return gpu.tflops.bf16 ? gpu.tflops.bf16 : gpu.tflops.fp16;
        case Precision::Fp16: return gpu.tflops.fp16;
        // fp32 matmuls run as TF32 on cards that have it: NVIDIA's NGC
        // containers enable it by default and Lightning/HF recommend it
        // (torch.set_float32_matmul_precision("high")); document §2.3.
        case Precision::Fp32: return gpu.tflops.tf32 ? gpu.tflops.tf32 : gpu.tflops.fp32;
    }
    return std::nullopt;
}

Performance estimate_performance(const Workload& w, const MemoryEstimate& memory, const Gpu& gpu, const JobOptions& job) {
    Performance perf;
    if (w.is_fixed()) return perf;  // no model to time
    const auto tflops = compute_tflops(gpu, w);
    const Architecture& a = w.model.arch;
    const double n = static_cast<double>(w.gpus);
    const double active = static_cast<double>(w.model.active_params);
    const double total = static_cast<double>(std::max<std::uint64_t>(w.model.params, 1));
    const double b = static_cast<double>(w.batch);
    const double layers = static_cast<double>(a.total_layers());
    const double h = static_cast<double>(a.hidden);
    double tokens_per_hour = 0;  // for serving cost

    if (!w.trains()) {
        const EngineProfile& e = engine_profile(w.engine);
        const double platform = platform_efficiency(gpu);
        const double bw = gpu.memory_bandwidth_gbps * 1e9 * e.bandwidth_efficiency * platform;
        // Decode: every step reads this GPU's share of the active weights and
        // the KV cache (half full on average over the generation).
        const double weights = static_cast<double>(memory.component("weights_bytes")) * (active / total);
        const double kv = static_cast<double>(memory.component("kv_cache_bytes"));
        const double avg_ctx = static_cast<double>(w.prompt) + static_cast<double>(w.gen) / 2.0;
        const double kv_read = kv * (w.seq > 0 ? avg_ctx / static_cast<double>(w.seq) : 1.0);
        const double memory_time = (weights + kv_read) / bw;
        double compute_time = 0;
        if (tflops) compute_time = 2.0 * active * b / n / (*tflops * 1e12 * e.prefill_efficiency * platform);
        // Pipeline stages run one after another; tensor-parallel shards at once.
        const double stages = w.parallel == Parallel::Pp ? n : 1.0;
        const double layer_cost = layers * e.layer_overhead_s;
        // Tensor parallel: two all-reduces of the layer's activations per layer
        // and step, each paying a launch latency (about 10 us over NVLink,
        // 20 us over PCIe, NCCL measurements) plus the bytes over the link.
        double tp_comm = 0;
        if (w.parallel == Parallel::Tp && w.gpus > 1) {
            const double latency = gpu.interconnect_type != "none" ? 10e-6 : 20e-6;
            const double bytes = 2.0 * (n - 1.0) / n * b * h * 2.0;
            tp_comm = 2.0 * layers * (latency + bytes / (per_direction_link_gbps(gpu) * 1e9));
        }
        const double step = std::max(memory_time, compute_time) * stages + layer_cost + tp_comm;
        perf.bound = compute_time > memory_time ? "compute" : "memory";
        perf.decode_tokens_per_s = b / step;
        tokens_per_hour = *perf.decode_tokens_per_s * 3600.0;
        if (tflops) {
            const double prompt = static_cast<double>(w.prompt);
            // 2 FLOPs per active weight per token, plus causal attention
            // (QK^T and AV over half the prompt on average).
            const double flops = (2.0 * active * prompt + 2.0 * layers * prompt * prompt * h) * b;
            const double speedup = w.parallel == Parallel::Tp ? n : 1.0;
            const double seconds =
                flops / (*tflops * 1e12 * e.prefill_efficiency * platform * speedup) + layers * e.layer_overhead_s;
            perf.prefill_tokens_per_s = prompt * b / seconds;
            perf.time_to_first_token_s = seconds;
        }
    } else if (tflops) {
        // Training FLOPs per token: forward 2P, backward 4P for trained
        // weights; frozen weights (LoRA) skip the weight-gradient half of
        // backward; checkpointing recomputes the forward; attention adds
        // 12 L h s (forward and backward).
        const double s = static_cast<double>(w.seq);
        double per_token = (w.method == Method::Full ? 6.0 : 4.0) * active + 12.0 * layers * h * s;
        if (w.grad_ckpt) per_token += 2.0 * active + 4.0 * layers * h * s;
        const double flops_rate = *tflops * 1e12 * training_mfu(a.hidden) * platform_efficiency(gpu);
        const double tokens = b * s;
        double compute_seconds = tokens * per_token / flops_rate;
        if (w.quant != Quant::None) compute_seconds *= kDequantTimeFactor;
        double comm_seconds = 0;
        if (w.gpus > 1) {
            const double link = per_direction_link_gbps(gpu) * 1e9;
            // Ring all-reduce (or reduce-scatter + all-gather) moves 2(N-1)/N
            // of the 16-bit gradients per GPU each step.
            double bytes = 2.0 * (n - 1.0) / n * static_cast<double>(memory.trainable_params) * 2.0;
            // Sharded plans also all-gather every layer's weights in forward
            // and again in backward.
            if (w.parallel == Parallel::Fsdp || w.parallel == Parallel::Zero3)
                bytes += 2.0 * (n - 1.0) * static_cast<double>(memory.component("weights_bytes"));
            comm_seconds = bytes / link * (1.0 - kCommOverlap);
            if (w.parallel == Parallel::Pp) compute_seconds *= 1.0 + (n - 1.0) / 8.0;  // pipeline bubble, 8 micro-batches
        }
        perf.step_seconds = compute_seconds + comm_seconds;
        perf.train_tokens_per_s = tokens * n / *perf.step_seconds;
        perf.bound = "compute";
    }

    // Time and cost of a job.
    const auto rate = perf.tokens_per_s();
    if (!rate || !(*rate > 0)) return perf;
    std::optional<double> job_tokens = job.tokens;
    if (!job_tokens && job.steps && w.trains()) job_tokens = *job.steps * b * static_cast<double>(w.seq) * n;
    if (!job_tokens && job.epochs && job.dataset_tokens) job_tokens = *job.epochs * *job.dataset_tokens;
    if (!job_tokens && job.dataset_tokens) job_tokens = *job.dataset_tokens;
    const double watts = gpu.tdp_watts.value_or(0.0) * n * job.utilisation;
    double hourly = 0;
    if (job.cloud_price_per_gpu_hour) {
        hourly = *job.cloud_price_per_gpu_hour * n;
        perf.cost_basis = "cloud";
    } else if (gpu.price) {
        hourly = gpu.price->usd * n / (job.amortize_years * 365.0 * 24.0) + watts / 1000.0 * job.kwh_price_usd;
        perf.cost_basis = "purchase+energy";
    }
    if (!w.trains() && hourly > 0 && tokens_per_hour > 0) perf.usd_per_million_tokens = hourly / tokens_per_hour * 1e6;
    if (job_tokens) {
        perf.job_hours = *job_tokens / *rate / 3600.0;
        if (watts > 0) perf.energy_kwh = watts / 1000.0 * *perf.job_hours;
        if (hourly > 0) perf.job_cost_usd = hourly * *perf.job_hours;
    }
    return perf;
}

}  // namespace gpuadvise
