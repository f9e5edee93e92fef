#pragma once
// One change that makes a missed plan fit, as the plan evaluation answered
// it (suggest.hpp finds them). A value type of its own so a Recommendation
// can carry its suggestions without the plan module knowing the search.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/enum_table.hpp"

namespace gpuadvise {

// What a suggestion changes, in the order a user would try them (and the
// order they are listed in).
enum class SuggestionKind : std::uint8_t {
    Batch,       // a smaller batch
    Context,     // a shorter sequence or prompt
    Quant,       // a smaller weight format
    KvCache,     // a quantized KV cache
    Checkpoint,  // activation checkpointing on
    Loss,        // a fused loss (no logits kept)
    Optimizer,   // an 8-bit or paged optimizer
    Method,      // LoRA or QLoRA instead of a larger fine-tune
    Offload,     // part of the model in host memory
    Gpus         // more cards of the same kind
};
inline constexpr auto kSuggestionKinds =
    make_enum_table<SuggestionKind>({{SuggestionKind::Batch, "batch"},
                                     {SuggestionKind::Context, "context"},
                                     {SuggestionKind::Quant, "quant"},
                                     {SuggestionKind::KvCache, "kv-cache"},
                                     {SuggestionKind::Checkpoint, "checkpointing"},
                                     {SuggestionKind::Loss, "loss"},
                                     {SuggestionKind::Optimizer, "optimizer"},
                                     {SuggestionKind::Method, "method"},
                                     {SuggestionKind::Offload, "offload"},
                                     {SuggestionKind::Gpus, "gpus"}});
inline std::string_view to_string(SuggestionKind k) {
    return kSuggestionKinds.name(k);
}

struct Suggestion {
    SuggestionKind kind = SuggestionKind::Batch;
    // The command-line words to add, exactly as typed: {"--batch", "2"}.
    std::vector<std::string> flags;
    // The user's own words the change takes the place of ({"--batch", "8"}):
    // a flag given twice with two values is refused, so these go first.
    std::vector<std::string> replaces;
    // The plan with the change, as the plan evaluation answered it.
    std::uint64_t per_gpu_bytes = 0;
    std::uint64_t usable_bytes = 0;
    bool tight = false;  // fits with less headroom than the estimate's uncertainty
    // The plan's headline rate with the change and the missed plan's, both
    // `rate_metric` ("decode_tokens_per_s", "train_tokens_per_s",
    // "images_per_s"); nullopt where the model gives none.
    std::string_view rate_metric;
    std::optional<double> rate;
    std::optional<double> rate_asked;
    std::string note;  // what the change costs or means, one phrase

    // "--batch 2": the words joined, as a person types them.
    std::string change() const {
        std::string out;
        for (const auto& f : flags) out += (out.empty() ? "" : " ") + f;
        return out;
    }
};

}  // namespace gpuadvise
