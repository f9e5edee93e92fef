#pragma once
// The rule engine: one registry of declarative rules (id, kind, what it checks,
// message with the numbers). Adding a rule is adding one entry in rules.cpp;
// `gpuadvise rules` lists them.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/perf.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

enum class RuleKind { Reject, Warn, Tip, Score };
std::string to_string(RuleKind);

enum class Os { Linux, Windows, Wsl };
std::optional<Os> parse_os(const std::string& text);
// Memory the OS keeps from the GPU: Windows reserves 1-2 GB for the display
// (document §2.1; we take 1.5 GiB), WSL shares the Windows driver's reservation.
std::uint64_t os_reserved_bytes(Os os);

// Requirements a task preset adds on top of the memory model (document §6).
struct TaskRequirements {
    std::string id;
    std::uint64_t min_memory_bytes = 0;
    double min_bandwidth_gbps = 0;
    bool needs_nvlink = false;
    bool needs_av1 = false;
};

// Everything a rule may look at for one plan.
struct PlanContext {
    const Workload& workload;
    const Gpu& gpu;
    const MemoryEstimate& memory;
    const Performance& performance;
    std::uint64_t usable_bytes;  // card memory minus OS reservation (per GPU)
    std::optional<TaskRequirements> task;
    std::optional<double> budget_usd;
};

struct Rule {
    std::string id;
    RuleKind kind;
    std::string description;
    // Returns the message (with numbers) when the rule fires.
    std::function<std::optional<std::string>(const PlanContext&)> check;
    double score_factor = 1.0;  // for Score rules: multiplies the plan's score
};

struct RuleHit {
    std::string id;
    RuleKind kind;
    std::string message;
    double score_factor = 1.0;
};

const std::vector<Rule>& rule_registry();
std::vector<RuleHit> evaluate_rules(const PlanContext& context);

// Usable memory of one card under an OS: Apple's unified memory lets the GPU
// wire about 75 % by default (Metal's recommendedMaxWorkingSetSize).
std::uint64_t usable_memory(const Gpu& gpu, Os os);

}  // namespace gpuadvise
