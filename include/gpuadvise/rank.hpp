#pragma once
// From a workload to a ranked list of plans (GPU x count x strategy): each
// catalog card is tried with 1, 2, 4 and 8 GPUs, the smallest plan that fits
// is kept (a larger one only when ranking by speed and it is clearly faster),
// rules reject, warn and adjust, and the survivors are ordered by --rank-by.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/performance.hpp"
#include "gpuadvise/platform.hpp"
#include "gpuadvise/rules.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

enum class RankBy : std::uint8_t { Value, Speed, Cost, Power, Memory };
inline constexpr auto kRankBy = make_enum_table<RankBy>({{RankBy::Value, "value"},
                                                         {RankBy::Speed, "speed"},
                                                         {RankBy::Cost, "cost"},
                                                         {RankBy::Power, "power"},
                                                         {RankBy::Memory, "memory"}});
inline std::string_view to_string(RankBy v) {
    return kRankBy.name(v);
}
std::vector<std::string> rank_by_choices();

struct RankOptions {
    RankBy rank_by = RankBy::Value;
    std::int64_t max_gpus = 8;
    std::optional<std::int64_t> fixed_gpus;  // --gpus N
    std::optional<Parallel> parallel;        // --parallel given by the user
    std::optional<double> budget_usd;
    std::optional<Vendor> vendor;
    std::optional<Segment> segment;
    Os os = Os::Linux;
    const HostPlatform* platform = nullptr;  // --platform: every plan goes into it
    bool have_host = false;                  // --have-host: the platform costs nothing
    std::optional<std::string> region;       // --region: also the cards sold only there
    const TaskRequirements* task = nullptr;
    JobOptions job;
    // How many of the ranked plans get their reasons, warnings and rule
    // messages written (the ones that are shown); the rest only decide.
    std::size_t describe_top = SIZE_MAX;
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
    double price_usd = 0;             // the plan's cards; 0 when a price is unknown
    const HostPlatform* platform = nullptr;  // what the cards go into; null: nothing holds them
    double platform_usd = 0;         // 0 with --have-host or when the platform's price is unknown
    double total_usd = 0;            // cards + platform; 0 when a card's price is unknown
    const Engine* engine = nullptr;  // inference: the engine the plan runs
    double score = 0;
    double score_factor = 1;  // the product of the score rules that fired
    std::vector<RuleHit> fired;
    std::vector<std::string> reasons;   // why it ranks where it does
    std::vector<std::string> warnings;  // warn rules and workload warnings
    std::vector<std::string> tips;
};

// Evaluates one plan (used by rank, check and compare). `single` is the
// one-GPU estimate of `base` when the caller has it (it decides between data
// parallel and sharding); it is computed when null. `describe` writes the
// reasons and rule messages.
Recommendation evaluate_plan(const Workload& base, const Gpu& gpu, std::int64_t count,
                             const RankOptions& options, const MemoryEstimate* single = nullptr,
                             bool describe = true);

// The source document's own pick for a --task (data/tasks.json), set beside
// ours: where it ranks and, described, why.
struct DocumentPick {
    const Gpu* gpu = nullptr;
    std::string_view reason;          // the document's reason for it
    std::optional<std::size_t> rank;  // 1-based place in our ranking; null when filtered out
    Recommendation plan;              // its plan, with reasons and rule messages
};
std::optional<DocumentPick> document_pick(const Workload& workload, const Catalog& catalog,
                                          const std::vector<Recommendation>& ranked,
                                          const RankOptions& options);

// Every card's best plan, fitting ones first in score order, ties broken by id.
std::vector<Recommendation> rank(const Workload& workload, const Catalog& catalog,
                                 const RankOptions& options);

}  // namespace gpuadvise
