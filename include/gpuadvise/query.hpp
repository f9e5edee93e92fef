#pragma once
// From a Request to what the commands answer: the ranking, job and host
// options parsed with their origins, shared by the CLI handlers and `batch`
// lines so a field is never wired into one and forgotten in the other.
#include <cstddef>

#include "gpuadvise/fields.hpp"
#include "gpuadvise/performance.hpp"
#include "gpuadvise/rank.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

// --tokens, --steps, --dataset-tokens/--epochs and the prices, validated with
// documented bounds (docs/performance-model.md).
JobOptions job_options(const Request& request);

// Everything ranking needs: job, host OS, task constraints, --gpus/--parallel
// when given, budget and filters.
RankOptions rank_options(const Request& request, const Workload& workload);

// --top (default 10).
std::size_t top_count(const Request& request);

// `gpus`: --vendor, --segment, --min-memory, --min-bandwidth, --supports, --sort.
GpuFilter gpu_filter(const Request& request);

}  // namespace gpuadvise
