#pragma once
// The rule engine: one registry of rules (id, kind, what it checks, the
// message with its numbers). The logic is code; the numbers it compares
// against are data (data/rules.json, each with its source), listed by
// `gpuadvise rules`. Adding a rule is one registry entry plus its data row;
// tests/unit/rules_test.cpp requires a case where it fires and one where it
// stays quiet for every id.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/offload.hpp"
#include "gpuadvise/performance.hpp"
#include "gpuadvise/platform.hpp"
#include "gpuadvise/task.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

enum class RuleKind : std::uint8_t { Reject, Warn, Tip, Score };
inline constexpr auto kRuleKinds = make_enum_table<RuleKind>({{RuleKind::Reject, "reject"},
                                                              {RuleKind::Warn, "warn"},
                                                              {RuleKind::Tip, "tip"},
                                                              {RuleKind::Score, "score"}});
inline std::string_view to_string(RuleKind v) {
    return kRuleKinds.name(v);
}

struct Threshold {
    std::string_view name;
    double value = 0;
    std::string_view source;
};
struct RuleMessage {
    SoftwarePlatform platform = SoftwarePlatform::Cuda;
    std::string_view text;
};
// A rule's row of data/rules.json.
struct RuleData {
    std::string_view id;
    std::span<const Threshold> thresholds;
    std::span<const RuleMessage> messages;
    // The threshold named `name`; a rule asking for one its row lacks is a bug
    // the build-time check reports.
    double get(std::string_view name) const;
    bool has(std::string_view name) const;
};

// Software a plan needs on its cards: the inference engine, or the training
// framework and the libraries the workload loads (bitsandbytes), each with the
// weight family it must load there.
struct SoftwareNeed {
    const Engine* engine = nullptr;
    QuantFamily family = QuantFamily::None;
};

// Everything a rule may look at for one plan.
struct PlanContext {
    const Workload& workload;
    const Gpu& gpu;
    const MemoryEstimate& memory;
    const Performance& performance;
    std::uint64_t usable_bytes;  // card memory minus OS reservation (per GPU)
    const TaskRequirements* task = nullptr;
    std::optional<double> budget_usd;
    double plan_price_usd = 0;  // 0 = unknown
    // false while ranking: rules only decide; the messages of the plans that
    // are shown are formatted in a second pass.
    bool describe = true;
    const HostPlatform* platform = nullptr;         // null: no platform holds the plan's cards
    const HostPlatform* forced_platform = nullptr;  // --platform
    std::span<const SoftwareNeed> software;
    const OffloadPlan* offload = nullptr;     // --offload placed part of the model on the host
    std::optional<std::uint64_t> host_ram;    // host memory, when known
    const Performance* full_speed = nullptr;  // the speed with everything on the GPU (offload)
    bool have_host = false;                   // --have-host: the platform costs nothing
    std::int64_t nodes = 1;                   // servers of the platform joined by a fabric
    std::optional<double> deadline_hours =
        std::nullopt;   // --deadline: the job must finish within it
    Os os = Os::Linux;  // --os
};

struct Rule {
    std::string_view id;
    RuleKind kind;
    std::string_view description;
    // The message (with numbers) when the rule fires; an empty message when
    // it fires and context.describe is false.
    std::optional<std::string> (*check)(const PlanContext&, const RuleData&);
};

struct RuleHit {
    std::string_view id;
    RuleKind kind;
    std::string message;
    double score_factor = 1.0;
};

const std::vector<Rule>& rule_registry();
const RuleData& rule_data(std::string_view id);
std::vector<RuleHit> evaluate_rules(const PlanContext& context);

Parsed<RuleData> parse_rule_data(std::string_view text, std::string_view source);

// The compiled-in rule thresholds (data/rules.json, generated at build time).
namespace embedded {
std::string_view rules_json();
std::span<const RuleData> rule_data();
}  // namespace embedded

}  // namespace gpuadvise
