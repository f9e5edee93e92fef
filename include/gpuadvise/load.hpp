#pragma once
// Serving sized by its load (docs/ranking.md): what a serving plan gives each
// of its concurrent sessions, checked against the latency targets, and the
// shapes of the JSON `load` and `curve` of a plan. The `latency` rule and the
// report read the same check, so a plan that fits always meets its targets.
#include <cstdint>
#include <optional>

#include "gpuadvise/performance.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

// One serving plan at its batch against the workload's load.
struct LoadCheck {
    // The plan's decode rate is the total over its batch; each session gets
    // an equal share of the steps (continuous batching decodes them together).
    std::optional<double> per_user_tokens_per_s = std::nullopt;
    // The prefill of the whole batch's prompts: the first token of the last
    // session admitted at once (the worst case of a full batch).
    std::optional<double> ttft_s = std::nullopt;
    bool meets_speed = true;  // no target, an unknown rate, or at least the target
    bool meets_ttft = true;
    bool meets() const { return meets_speed && meets_ttft; }
};
// Nullopt when the workload is not serving a language model. `default_speed`:
// the per-session rate held to when the load gives none (the latency rule's
// reading speed under --users).
std::optional<LoadCheck> check_load(const Workload& w, const Performance& p,
                                    std::optional<double> default_speed = std::nullopt);

// JSON `load` of a serving plan: the sessions, their context and what each gets.
struct LoadResult {
    std::int64_t users = 0;
    std::int64_t context_tokens = 0;
    std::optional<double> ttft_s = std::nullopt;
    std::optional<double> tpot_s = std::nullopt;  // seconds per output token of one session
    std::optional<double> per_user_tokens_per_s = std::nullopt;
    bool meets = false;  // fits, and meets every target given
};
LoadResult load_result(const Workload& w, const Performance& p, bool fits);

// One point of a serving plan's curve over the batch.
struct CurvePoint {
    std::int64_t batch = 0;
    std::uint64_t per_gpu_bytes = 0;
    bool fits = false;  // the plan's verdict at this batch: memory and every reject rule
    std::optional<double> decode_tokens_per_s = std::nullopt;
    std::optional<double> per_user_tokens_per_s = std::nullopt;
    std::optional<double> ttft_s = std::nullopt;
};

}  // namespace gpuadvise
