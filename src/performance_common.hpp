#pragma once
// What the speed model's files share: performance.cpp (rates, links, the
// language-model estimate), performance_layout.cpp (3D layouts),
// job.cpp (time, energy and cost of a job) and image_performance.cpp.
// Private to the performance module.
#include <optional>

#include "gpuadvise/memory.hpp"
#include "gpuadvise/performance.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise::performance_detail {

// Fraction of gradient communication that data-parallel frameworks hide
// behind the backward pass (bucketed all-reduce overlap).
constexpr double kCommOverlap = 0.5;

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
