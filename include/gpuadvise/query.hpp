#pragma once
// From a Request to what the commands answer: the ranking, job and host
// options parsed with their origins, shared by the CLI handlers and `batch`
// lines so a field is never wired into one and forgotten in the other.
#include <cstddef>
#include <deque>
#include <string>
#include <vector>

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

// The box --gpu names: one card --gpus times (with --vram's memory when
// given: a laptop or cut-down variant, a copy kept in `made`), or a list of
// cards ("rtx-3090,rtx-3060-12gb"), or `detected` (the CLI's `--gpu local`:
// the first --gpus of them when --gpus is given). Sets `w.gpus` (and the
// default multi-GPU strategy) to the box; FP8 training on a card without an
// FP8 path is refused here, with the reason.
std::vector<const Gpu*> box_cards(const Catalog& catalog, const Request& request, Workload& w,
                                  std::deque<Gpu>& made,
                                  const std::vector<std::string>* detected = nullptr);

// The plan on the box: evaluate_box, or with --max-gpus and no --gpus the
// smallest count of the one card (1, 2, 4, ... up to --max-gpus, the counts
// ranking tries) whose plan fits, else the largest tried; `w` and `cards`
// are set to that count. Its limits (plan_limits) are filled in.
Recommendation plan_box(const Request& request, Workload& w, std::vector<const Gpu*>& cards,
                        const RankOptions& options);

// `gpus`: --vendor, --segment, --min-memory, --min-bandwidth, --supports, --sort.
GpuFilter gpu_filter(const Request& request);

}  // namespace gpuadvise
