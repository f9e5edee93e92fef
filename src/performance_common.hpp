#pragma once
// What the speed model's files share: performance.cpp (rates, links, the
// language-model estimate), performance_layout.cpp (3D layouts),
// job.cpp (time, energy and cost of a job) and image_performance.cpp.
// Private to the performance module.
#include <algorithm>
#include <optional>

#include "gpuadvise/attainable.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/performance.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise::performance_detail {

// Fraction of gradient communication that data-parallel frameworks hide
// behind the backward pass (bucketed all-reduce overlap).
constexpr double kCommOverlap = 0.5;

// Eager PyTorch has a floor per forward at small batches: launching each
// layer's kernels from Python. NVIDIA DeepLearningExamples' ResNet-50
// inference takes 10.2-13.4 ms per batch of 1 to 8 on a V100 and on a T4
// alike (bench/data/image_measured.csv), about 0.2 ms for each of its 50 layers.
constexpr double kEagerLayerSeconds = 2e-4;

// Bandwidth-bound kernels (element-wise, normalisation, casts, the optimizer
// step, dequantisation) reach an assumed 0.8 of the card's peak bandwidth.
constexpr double kElementwiseShare = 0.8;
// Bytes per second such kernels move on `gpu` (with its platform's share).
double elementwise_bandwidth(const Gpu& gpu);

// The dtype a workload's matmuls run in on a card (TF32 for fp32 where the
// card has it; an FP8 checkpoint's FP8 path) and its attainable rate.
RateDtype matmul_dtype(const Gpu& gpu, const Workload& w);
AttainableRate workload_rate(const Gpu& gpu, const Workload& w);
// The platform's share a rate still needs: 1 where the card, or cards of its
// class, were measured on their own software stack; else the platform's
// assumed efficiency (oneAPI, and classes nobody measured).
double compute_platform_factor(const Gpu& gpu, const AttainableRate& rate);

// The share of a matmul's attainable rate a layer of hidden width `width`
// reaches, width / (width + W), with W fitted by bench/accuracy
// (data/attainable.json "training_width"): the inference prefill's law.
double width_efficiency(double width);
// A training step's: what a layer spends besides its matmuls grows with its
// tokens x width, the matmuls with tokens x width^2, so the loss is
// width / (width + W) with W proportional to the card's ridge point, the
// FLOPs it computes per byte it moves (`rate` FLOP/s over its bandwidth):
// W = training_width_per_ridge x rate / bandwidth (fitted by bench/accuracy,
// data/attainable.json). A card of more FLOPs per byte (an H100, an RTX 4090,
// a power-limited RTX 6000 Ada) needs wider layers to keep its tensor cores busy.
double training_width_efficiency(double width, const Gpu& gpu, double rate);

// A layer's widths, as elements per token: hidden, query, key/value and the
// MLP's intermediate (an MoE layer's routed experts per token plus its
// shared expert), for the element-wise and cast traffic around its matmuls.
struct LayerWidths {
    double hidden = 0, q = 0, kv = 0, ffn = 0;
};
inline LayerWidths layer_widths(const Architecture& a) {
    const auto h = static_cast<double>(a.hidden);
    return {h, a.q_dim() > 0 ? static_cast<double>(a.q_dim()) : h,
            a.kv_dim() > 0 ? static_cast<double>(a.kv_dim()) : h,
            a.is_moe() ? static_cast<double>(a.experts_per_token * a.moe_intermediate +
                                             a.shared_intermediate)
                       : static_cast<double>(a.intermediate)};
}

// One micro-batch of a training workload on one GPU (performance_training.cpp).
struct MicroStep {
    double matmul = 0;  // the matmuls at the attainable rate (FLOP/s `rate`)
    double memory = 0;  // the bandwidth-bound kernels
    double launch = 0;  // eager PyTorch's host time, which overlaps the GPU's
    double seconds() const { return std::max(matmul + memory, launch); }
};
MicroStep training_micro_step(const Workload& w, const MemoryEstimate& memory, const Gpu& gpu,
                              double rate);
// The optimizer step of each GPU's share (1 / shards) of the trainable
// parameters, bandwidth-bound.
double optimizer_step_seconds(const Workload& w, const MemoryEstimate& memory, const Gpu& gpu,
                              double shards);

// Expected distinct experts `tokens` tokens route to, each to `per_token` of
// `experts`: E (1 - (1 - k/E)^B).
double distinct_experts(double experts, double per_token, double tokens);
// The parameters a token's matmuls multiply, scaled to the model's published
// active count: the body (the active weights less the token embedding, which
// is a gather) and the output head, which a forward runs only for the tokens
// it samples (the prompt's last token in a prefill, every token in decode).
struct MatmulParams {
    double body = 0, head = 0;
};
MatmulParams matmul_params(const Workload& w);
// The share of the weights a step of `tokens` tokens reads: all of a dense
// model; of an MoE model the dense part and the distinct experts' share.
double weights_read_share(const Architecture& a, double tokens);
// The matmul path an engine's prefill and batched decode run on a card
// (llama.cpp's int8 MMQ or FP16-accumulate cuBLAS on CUDA; else the
// workload's dtype) and its attainable rate.
AttainableRate engine_rate(const Workload& w, const Engine& e, const Gpu& gpu);
// A forward's matmul rate in FLOP/s on `path`: the rate at the engine's
// prefill share (its Metal share on Apple parts where it has one); nullopt
// when the card's peak is unknown.
std::optional<double> forward_rate(const AttainableRate& path, const Gpu& gpu, const Engine& e);
// The share of the engine's bandwidth profile a decode reaches on the
// card's software platform (platform_efficiency; MLX's profile is its own).
double decode_platform_share(const Gpu& gpu, const Engine& e);
// Bytes per second a decode step streams weights and the KV cache at: the
// engine's share of the card's bandwidth on its platform, at most the
// card's SMs times what the engine's kernels keep in flight per SM
// (Engine::stream_gbps_per_sm) on CUDA cards whose SM count is known.
double stream_bandwidth(const Gpu& gpu, const Engine& e);
// A vision-language model's images of one step (--images): the FLOPs of
// encoding every image of the batch, and for Llama 3.2 Vision the attention
// of the prompt's tokens to the images' tokens in the cross-attention layers
// (performance_inference.cpp); 0 without images.
double image_step_flops(const Workload& w);
// Seconds that encoding takes on a card at `rate` FLOP/s, `speedup` cards
// sharing it (tensor parallel), reading the tower's share of `weight_bytes`
// at `bandwidth` bytes/s at least once (once per image when the engine
// encodes one at a time).
double image_encode_seconds(const Workload& w, double weight_bytes, double rate, double speedup,
                            double bandwidth);

// Engines that launch every kernel of a forward from Python (Hugging Face
// transformers, litgpt, AutoAWQ): their host time overlaps the GPU's.
bool eager(const Engine& e);
// A forward's host time: the engine's launches per layer and its cost per
// forward, and Hugging Face's per-expert Python loop and FP8 linears where
// they apply.
double host_seconds(const Workload& w, const Gpu& gpu);

// An embedding or reranker model's forward over the plan's batch
// (embedding_performance.cpp); returns embedded tokens per hour (for the
// serving cost, per million tokens embedded).
double embedding_inference(Performance& perf, const Workload& w, const MemoryEstimate& memory,
                           const Gpu& gpu);

// A language model's decode and prefill on the plan (performance_inference.cpp);
// returns generated tokens per hour (for the serving cost).
double language_inference(Performance& perf, const Workload& w, const MemoryEstimate& memory,
                          const Gpu& gpu, const PlanLinks& links);

// Seconds to move `bytes` per rank through an all-reduce over `ranks` on
// `k` (the alpha-beta ring model; an all-gather or a reduce-scatter is half).
double all_reduce_seconds(const PlanLinks& k, double ranks, double bytes);

// A layout that splits the model (tensor, context, pipeline, expert
// parallel), timed as Megatron-LM runs it (docs/performance-model.md, "3D
// layouts"). Ranks are ordered tp, cp, ep-in-dp, dp, pp from the fastest
// varying, so a group crosses the fabric when its span (stride x size) is
// more than a node. `one_gpu_compute` is the compute of one micro-batch of the
// whole model on one GPU (with the FP8 and dequantization adjustments, which
// scale with the share each GPU computes).
struct LayoutStep {
    double micro_seconds = 0;  // one micro-batch through the most loaded stage
    double step_seconds = 0;   // the optimizer step: micro-batches, bubble, data-parallel sync
    double tokens = 0;         // tokens of one step over the whole plan
};

LayoutStep layout_step(const Workload& w, const MemoryEstimate& memory, const Gpu& gpu,
                       double one_gpu_compute, const PlanLinks& links, const Network* network,
                       std::int64_t per_node, const HostPlatform* host);

// Time, energy and cost of a job from the plan's rate (job.cpp); clears
// rates that are not finite.
void finish_job(Performance& perf, const Workload& w, const JobOptions& job,
                std::optional<double> price_usd, double tdp_watts, double tokens_per_hour,
                double host_watts = 0, double fabric_watts = 0);

// An image or vision workload's speed on one card (image_performance.cpp).
void image_performance(Performance& perf, const Workload& w, const Gpu& gpu,
                       const PlanLinks& links);

}  // namespace gpuadvise::performance_detail
