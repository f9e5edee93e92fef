#pragma once
// When a plan does not fit, what to change: the smallest changes that make it
// fit, the question users ask next. Each candidate is the user's command line
// with the change applied, resolved and evaluated again exactly as the
// command would (resolve_workload, rank_options, the plan evaluation and its
// rules), so a suggestion is never guessed: appending its flags (after
// dropping the words it replaces) gives a plan that fits.
//
// The candidates, in the order a user would try them, each searched for its
// smallest sufficient step: a smaller batch (the largest that fits), a shorter
// context (the longest that fits; inference keeps --gen), a smaller weight
// format (the first rung down the plan's engine's ladder that fits), a
// quantized KV cache, activation checkpointing, a fused loss, an 8-bit or
// paged optimizer, LoRA or QLoRA, --offload auto (engines that split layers)
// or diffusers' CPU offload, and more cards of the same kind. When no format
// fits alone, a 4-bit format with offload or with more cards is tried too.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "gpuadvise/calibration.hpp"
#include "gpuadvise/fields.hpp"
#include "gpuadvise/rank.hpp"
#include "gpuadvise/suggestion.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

// The plan the suggestions are for: one box (estimate and check --gpu: more
// cards are --gpus N) or the ranking's closest miss (recommend when nothing
// fits: more cards are --max-gpus N, the sizes ranking tries).
enum class SuggestFor : std::uint8_t { Box, Ranking };

// What every probe is resolved from: the user's flags (with their origins)
// and what the CLI read for the model flags.
struct SuggestInputs {
    const Request& request;
    const ModelInputs& inputs;
    const std::vector<ModelPreset>& presets;
    const Calibration* calibration = nullptr;  // applied to each probe, as to the plan
    SuggestFor where = SuggestFor::Box;
};

// A few lines are read; a long list is not.
inline constexpr std::size_t kMaxSuggestions = 5;
// Shorter contexts than this are not what anyone asks for: not suggested.
inline constexpr std::int64_t kMinSuggestedContext = 256;

// At most kMaxSuggestions changes that make `missed` fit, in SuggestionKind
// order; none that is already set, none that does not fit when evaluated.
// `workload` is the plan's workload and `cards` its cards (for the ranking:
// missed.count cards of missed.gpu). Empty for a plan that fits, a task's
// fixed requirement, or when nothing tried fits. Never throws for a probe
// the model refuses: that probe is simply not a suggestion.
std::vector<Suggestion> suggest_changes(const SuggestInputs& in, const Workload& workload,
                                        std::span<const Gpu* const> cards,
                                        const Recommendation& missed);

}  // namespace gpuadvise
