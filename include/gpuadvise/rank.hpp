#pragma once
// From a workload to a ranked list of plans (GPU x count x strategy): each
// catalog card is tried with 1, 2, 4 and 8 GPUs, the smallest plan that fits
// is kept (a larger one only when ranking by speed and it is faster), rules
// reject, warn and adjust, and the survivors are ordered by --rank-by.
#include <optional>
#include <string>
#include <vector>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/perf.hpp"
#include "gpuadvise/rules.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

enum class RankBy { Value, Speed, Cost, Power, Memory };
std::string to_string(RankBy);
const std::vector<std::string>& rank_by_choices();
RankBy parse_rank_by(const std::string& text);

struct RankOptions {
    RankBy rank_by = RankBy::Value;
    std::int64_t max_gpus = 8;
    std::optional<std::int64_t> fixed_gpus;  // --gpus N
    std::optional<Parallel> parallel;        // --parallel given by the user
    std::optional<double> budget_usd;
    std::optional<std::string> vendor;
    std::optional<std::string> segment;
    Os os = Os::Linux;
    std::optional<TaskRequirements> task;
    JobOptions job;
};

struct Recommendation {
    const Gpu* gpu = nullptr;
    std::int64_t count = 1;
    Parallel strategy = Parallel::None;
    MemoryEstimate memory;
    Performance performance;
    std::uint64_t usable_bytes = 0;  // per GPU
    bool fits = false;
    std::int64_t headroom_bytes = 0;  // usable - needed, per GPU (negative when it does not fit)
    double score = 0;
    std::vector<RuleHit> fired;
    std::vector<std::string> reasons;   // why it ranks where it does
    std::vector<std::string> warnings;  // warn rules and workload warnings
    std::vector<std::string> tips;
};

// Evaluates one plan (used by rank, check and compare). `single` is the
// one-GPU estimate of `base` when the caller has it (it decides between data
// parallel and sharding); it is computed when null.
Recommendation evaluate_plan(const Workload& base, const Gpu& gpu, std::int64_t count, const RankOptions& options,
                             const MemoryEstimate* single = nullptr);

// Every card's best plan, fitting ones first in score order, ties broken by id.
std::vector<Recommendation> rank(const Workload& workload, const Catalog& catalog, const RankOptions& options);

}  // namespace gpuadvise
