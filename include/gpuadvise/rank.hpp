#pragma once
// From a workload to a ranked list of plans (GPU x count x strategy): each
// catalog card is tried with 1, 2, 4 and 8 GPUs, the smallest plan that fits
// is kept (a larger one only when ranking by speed and it is clearly faster),
// rules reject, warn and adjust, and the survivors are ordered by --rank-by.
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/load.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/network.hpp"
#include "gpuadvise/offload.hpp"
#include "gpuadvise/performance.hpp"
#include "gpuadvise/platform.hpp"
#include "gpuadvise/rules.hpp"
#include "gpuadvise/suggestion.hpp"
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

// What --budget was checked against: the whole system, or the cards alone
// because the user owns the computer (--have-host), or assumed to (no plan
// fits once a computer is counted; rank_within_budget).
// What --budget was checked against: the whole system bought, the cards
// alone (--have-host, given or assumed), or a rented job's cost.
enum class BudgetBasis : std::uint8_t { None, System, HaveHost, HaveHostAssumed, RentedJob };
inline constexpr auto kBudgetBases =
    make_enum_table<BudgetBasis>({{BudgetBasis::None, "none"},
                                  {BudgetBasis::System, "system"},
                                  {BudgetBasis::HaveHost, "have-host"},
                                  {BudgetBasis::HaveHostAssumed, "have-host-assumed"},
                                  {BudgetBasis::RentedJob, "rented-job"}});

// The default --min-speed: about reading speed. A silent reader takes 238
// words a minute (Brysbaert 2019, J. Memory and Language 109:104047, the
// meta-analysis of 190 studies), a token is about 3/4 of an English word
// (OpenAI's tokenizer guide), so 238 / 60 / 0.75 = 5.3 tokens a second.
inline constexpr double kReadableTokensPerS = 5.0;
// Offload plans slower than this are not offered by the ranking (and are
// fit's default --min-speed): a model that answers slower than one reads is
// not what a user asking for a local plan means by "runs".

struct RankOptions {
    RankBy rank_by = RankBy::Value;
    std::int64_t max_gpus = 8;
    std::optional<std::int64_t> fixed_gpus;  // --gpus N
    std::optional<Parallel> parallel;        // --parallel given by the user
    std::optional<double> budget_usd;
    std::optional<Vendor> vendor;
    std::optional<Segment> segment;
    Os os = Os::Linux;
    const HostPlatform* platform = nullptr;     // --platform: every plan goes into it
    bool have_host = false;                     // --have-host: the platform costs nothing
    std::optional<std::string> region;          // --region: also the cards sold only there
    OffloadRequest offload;                     // --offload (llama.cpp-style engines)
    std::optional<std::uint64_t> ram_bytes;     // --ram; else the platform's
    std::optional<double> ram_gbps;             // --ram-bandwidth; else the platform's
    const Network* network = nullptr;           // --network: the fabric between nodes
    std::optional<std::int64_t> gpus_per_node;  // --gpus-per-node; else the platform's
    const TaskRequirements* task = nullptr;
    JobOptions job;
    // How many of the ranked plans get their reasons, warnings and rule
    // messages written (the ones that are shown); the rest only decide.
    std::size_t describe_top = SIZE_MAX;
    // Set by rank_within_budget: what the budget was checked against.
    BudgetBasis budget_basis = BudgetBasis::None;
    // compare --keep-order: the plans are in the order the user gave.
    bool keep_order = false;
    // --rent: every card at its median cloud price per GPU-hour (data/cloud_prices.json).
    bool rent = false;
    // Set per card by evaluate_plan: job.cloud_price_per_gpu_hour is that
    // card's median quote (not one price the user gave every card).
    bool rent_from_quotes = false;
};

// The largest context (at the plan's batch) and the largest batch (at its
// context) whose memory still fits the plan's cards, found by integer
// bisection on the memory model itself (exact: the model is monotone in
// both). Inference keeps --gen and grows the prompt; training grows the
// sequence. The context is capped at the model's trained length when the
// model says it, and at kMaxLimitTokens otherwise.
inline constexpr std::int64_t kMaxLimitTokens = 1LL << 24;  // 16.7M tokens
inline constexpr std::int64_t kMaxLimitBatch = 1LL << 20;
// Each limit holds the other dimension at the plan's own value, which the
// struct names so a sentence never mixes two contexts.
struct Limits {
    std::int64_t max_context_tokens = 0;  // 0: not even the smallest context fits
    std::int64_t at_batch = 0;            // ... at this batch (the plan's)
    std::int64_t max_batch = 0;
    std::int64_t at_context_tokens = 0;    // ... at this context (the plan's)
    bool context_capped_by_model = false;  // the model's trained length, not memory, binds
};
// One card of a mixed box and what it holds.
struct Placement {
    const Gpu* gpu = nullptr;
    std::int64_t layers = 0;  // layer split; 0 when every card holds an equal shard
    double share = 0;         // of the model (layers / total layers, or 1 / cards)
    std::uint64_t bytes = 0;  // what it must hold
    std::uint64_t usable_bytes = 0;
};

// One layout a training plan beyond one node was tried with (the best few
// are kept, best first, to say why the plan's layout won).
struct LayoutChoice {
    Layout layout;
    Parallel sharding = Parallel::Zero1;  // how data parallel shards the state
    std::int64_t micro_batches = 1;       // per optimizer step (--grad-accum)
    std::uint64_t per_gpu_bytes = 0;
    double tokens_per_s_per_gpu = 0;
    bool fits = false;
    bool tight = false;  // fits, but not at the high end of the memory estimate's range
};

// Where a fitting plan stands before its score is compared (docs/ranking.md):
// plans with every figure the ranking key needs, on time, come first; a job
// longer than its deadline's soft limit (a year) next; plans whose speed or
// price is unknown after those; then the misses.
enum class Standing : std::uint8_t { Ranked, Late, Unknown, Miss };
inline constexpr auto kStandings = make_enum_table<Standing>({{Standing::Ranked, "ranked"},
                                                              {Standing::Late, "late"},
                                                              {Standing::Unknown, "unknown"},
                                                              {Standing::Miss, "miss"}});
inline std::string_view to_string(Standing v) {
    return kStandings.name(v);
}

struct Recommendation {
    const Gpu* gpu = nullptr;
    std::int64_t count = 1;
    Parallel strategy = Parallel::None;
    // Training: how the model is split (all ones but dp for data parallel)
    // and the micro-batches of one optimizer step.
    Layout layout;
    std::int64_t micro_batches = 1;
    std::int64_t micro_batch = 0;       // sequences per micro-batch (0: not a training plan)
    std::int64_t seq = 0;               // tokens per sequence of a training plan
    std::vector<LayoutChoice> layouts;  // the layouts compared, best first (multi-node training)
    MemoryEstimate memory;
    Performance performance;
    std::uint64_t usable_bytes = 0;  // per GPU
    bool fits = false;
    // Fits, but with less headroom than the estimate's uncertainty (the
    // thin-headroom rule); its value is discounted by fit_chance, not sunk.
    bool tight = false;
    // The chance the plan's memory fits, read from the estimate's error band
    // (1 without a band; 0 for a miss): value, cost and power scores are
    // multiplied by it, so a cheap tight plan keeps its place with its warning.
    double fit_chance = 0;
    Standing standing = Standing::Miss;
    // Why a fitting plan is not Ranked ("its price is unknown", "takes 640
    // days"); empty otherwise.
    std::string standing_why;
    std::int64_t headroom_bytes = 0;  // usable - needed, per GPU (negative when it does not fit)
    double price_usd = 0;             // the plan's cards; 0 when a price is unknown
    const HostPlatform* platform = nullptr;  // what the cards go into (per node); null: nothing
    std::int64_t nodes = 1;                  // servers of `platform` joined by `network`
    const Network* network = nullptr;        // the fabric, for plans beyond one server
    double platform_usd = 0;  // 0 with --have-host or when the platform's price is unknown
    double total_usd = 0;     // cards + platform; 0 when a card's price is unknown
    // The plan rented by the hour (data/cloud_prices.json's median per GPU
    // times the count); 0 when no provider's price is known. With --rent it
    // is what the plan costs and nothing is bought (total_usd 0).
    double rent_usd_per_hour = 0;
    // Serving on a board bought whole (an 8-GPU HGX for a 1-GPU plan): the
    // copies of the plan the board runs, which the value counts; else 1.
    std::int64_t replicas = 1;
    // Bought plans with a rental price: the months of round-the-clock use
    // after which buying (the system, plus its power) costs less than
    // renting; null when renting never costs more than the power alone.
    std::optional<double> buy_beats_rent_months;
    const Engine* engine = nullptr;  // inference: the engine the plan runs
    Topology topology;
    // --offload: where the model is (mode gpu when it all fits); `memory` is
    // then the GPU's share.
    std::optional<OffloadPlan> offload;
    // A ranked diffusion plan that runs with diffusers' CPU offload the
    // workload did not ask for, because the whole pipeline does not fit the
    // card (rank.cpp, pipeline_offload_plan); nullopt otherwise.
    std::optional<CpuOffload> cpu_offload;
    // estimate/check/fit with a card: plan_limits, filled by the caller.
    std::optional<Limits> limits;
    // A described serving plan of a language model: its sessions and what
    // each gets (complete_plan), and its curve over the batch (plan_curve,
    // filled by the caller for the shown plans only); nullopt otherwise.
    std::optional<LoadResult> load = std::nullopt;
    std::optional<std::vector<CurvePoint>> curve = std::nullopt;
    // A shown plan that misses: the changes that make it fit (suggest.hpp),
    // filled by the caller; nullopt when none were looked for.
    std::optional<std::vector<Suggestion>> suggestions;
    // A box of different cards (--gpu a,b): each card's part. `gpu` is then
    // the card that bounds the plan and `memory` its share.
    std::vector<Placement> placement;
    double score = 0;
    double score_factor = 1;  // the product of the score rules that fired
    std::vector<RuleHit> fired;
    std::vector<std::string> reasons;   // why it ranks where it does
    std::vector<std::string> warnings;  // warn rules and workload warnings
    std::vector<std::string> tips;
};

// The memory estimates the plans of one workload share. The memory model
// reads the workload alone, and a plan changes only its count, sharding,
// layout and micro-batches, so every card whose plan keeps the rest of the
// workload as it was needs the same estimates: a 64-GPU training ranking made
// 25,000 of them for 218 cards, most of them repeats. Holds the one-GPU
// estimate (it decides between data parallel and sharding) and each
// multi-GPU one asked for, keyed by those plan fields. For one ranking's
// workload: `of` must be given `base` changed in those fields only. Cards
// that change more (another engine, a card default: same_card_defaults)
// share the estimates of their variant of the workload.
class SharedEstimates {
  public:
    // `base` must outlive this; it is read when single() is first asked for.
    explicit SharedEstimates(const Workload& base);
    ~SharedEstimates();
    SharedEstimates(const SharedEstimates&) = delete;
    SharedEstimates& operator=(const SharedEstimates&) = delete;
    const MemoryEstimate& single();
    const MemoryEstimate& of(const Workload& plan);
    // The estimates for `plan`'s card defaults: these when they are the
    // base's, else those of the first plan that set the same ones.
    SharedEstimates& variant(const Workload& plan);

  private:
    struct Variant;
    // gpus, parallel, tp, pp, cp, ep, vpp, dp, grad_accum
    using Key = std::array<std::int64_t, 9>;
    const Workload* base_;
    const MemoryEstimate* single_ = nullptr;  // in plans_
    std::map<Key, MemoryEstimate> plans_;
    std::vector<std::unique_ptr<Variant>> variants_;
};

// How much of a plan to work out. Texts: everything, with the reasons,
// warnings and rule messages a shown plan prints. Numbers: every figure and
// rule decision, no texts. Verdict: what orders plans and answers "does it
// fit": a plan whose memory does not fit its cards stops there (fits false,
// its headroom), since the memory-fit rule refuses it whatever its speed,
// price or other rules say; most plans a ranking or a limit's search tries
// are such misses.
enum class Detail : std::uint8_t { Verdict, Numbers, Texts };

// Evaluates one plan (used by rank, check and compare). `shared` holds the
// estimates of `base` the caller's other plans made (null: each is computed).
Recommendation evaluate_plan(const Workload& base, const Gpu& gpu, std::int64_t count,
                             const RankOptions& options, SharedEstimates* shared = nullptr,
                             Detail detail = Detail::Texts);

// The most cards one --gpu list may name (more than any platform holds).
inline constexpr std::int64_t kMaxBoxGpus = 64;

// A plan on one box of the given cards (--gpu a,b,c or the detected cards).
// Cards of one kind are evaluate_plan; different cards split the layers in
// proportion to each card's free memory when the engine splits layers
// (llama.cpp's default --tensor-split), and give every card an equal shard
// otherwise (tensor parallel, DDP/FSDP), bounded by the smallest and the
// slowest card.
// Detail as evaluate_plan's (probes: limits and fit's ladder ask for less
// than Texts).
Recommendation evaluate_box(const Workload& base, std::span<const Gpu* const> cards,
                            const RankOptions& options, Detail detail = Detail::Texts);
std::optional<Limits> plan_limits(const Workload& base, const Recommendation& rec,
                                  std::span<const Gpu* const> cards, const RankOptions& options);
// A serving plan's memory and speed over the batch: 1, 2, 4, ... up to the
// largest batch whose verdict (memory and every reject rule, the latency
// targets included) is a fit, which is the last point; a single missing point
// when batch 1 misses. Nullopt unless it serves a language model on the GPU.
// It also adds the reason "holds N users at C tokens, R tok/s each".
void add_plan_curve(Recommendation& rec, const Workload& base, std::span<const Gpu* const> cards,
                    const RankOptions& options);

// The plan's split in layout terms: a training plan's layout (dp the count
// for data parallel alone); inference tensor parallel as tp, pipeline
// stages as pp; one card all ones.
Layout plan_layout(const Recommendation& rec);
// ZeRO stage of a training plan's data-parallel sharding: 0 DDP, 1 ZeRO-1 or
// Megatron's distributed optimizer, 2, 3 for ZeRO-3 and FSDP; nullopt for
// inference and one GPU.
std::optional<int> zero_stage(const Recommendation& rec);
// "tp8 pp2 dp4 (zero1), 16 micro-batches": a layout choice in words.
std::string layout_choice_label(const LayoutChoice& c);

// "rtx-3090 + rtx-3060-12gb" or "2 x rtx-3090".
std::string plan_label(const Recommendation& rec);

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

// Host memory and its bandwidth for a plan: the flags, else the platform's.
std::optional<std::uint64_t> host_ram_bytes(const RankOptions& options,
                                            const HostPlatform* platform);
std::optional<double> host_ram_gbps(const RankOptions& options, const HostPlatform* platform);

// "yes", "tight" or "no".
std::string_view fit_word(const Recommendation& rec);

// One card's plan with its texts, as a ranking makes it: evaluate_plan, and
// where a one-card plan misses, the plans a ranking falls back to (part of
// the model in host memory for llama.cpp-style engines, diffusers' CPU
// offload for a diffusion pipeline). `compare` asks this of each card.
Recommendation plan_on_card(const Workload& w, const Gpu& gpu, std::int64_t count,
                            const RankOptions& options);

// The ranking's order (docs/ranking.md): fitting plans before misses; among
// fitting plans Ranked, then Late (the sooner first), then Unknown (the
// faster, then the cheaper); Ranked ones by score; misses that hold the
// model before those that do not. A strict weak order, so `compare` sorts
// with it too.
bool ranks_before(const Recommendation& a, const Recommendation& b);

// Every card's best plan, in ranks_before's order: for a job, the smallest
// plan that finishes within a year (or --deadline); for local engines, a card
// whose GPU-only plans miss is tried with part of the model in host memory.
std::vector<Recommendation> rank(const Workload& workload, const Catalog& catalog,
                                 const RankOptions& options);

// rank() with --budget as people mean it: what they spend. When no plan fits
// the budget once a computer is counted but some fit with the computer the
// user has, the answer is those, ranked with --have-host and said so
// (`options.budget_basis` HaveHostAssumed).
struct Ranking {
    std::vector<Recommendation> plans;
    RankOptions options;  // as ranked
};
Ranking rank_within_budget(const Workload& workload, const Catalog& catalog, RankOptions options);

}  // namespace gpuadvise
