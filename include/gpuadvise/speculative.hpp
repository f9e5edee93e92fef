#pragma once
// Speculative decoding as data and arithmetic (data/speculative.json;
// docs/performance-model.md, "Speculative decoding"). A draft (a smaller model
// of the same tokenizer, or the checkpoint's own multi-token-prediction
// layers) proposes K tokens one after another; the target verifies them, and
// the position after them, in one pass. With a per-token acceptance rate
// alpha a step yields (1 - alpha^(K+1)) / (1 - alpha) tokens on average
// (Leviathan, Kalman and Matias 2023, "Fast Inference from Transformers via
// Speculative Decoding", eq. 1). Alpha cannot be read from the models: the
// data holds published measurements with their sources, and the user may give
// one. Only the arithmetic lives here; what a step costs is the speed model's.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/enum_table.hpp"

namespace gpuadvise {

// What drafts the tokens: a separate model (vLLM's draft_model, llama.cpp's
// -md), or the target checkpoint's own multi-token-prediction layers
// (DeepSeek-V3's MTP module, GLM-4.5's nextn layer: vLLM's deepseek_mtp).
enum class DraftKind : std::uint8_t { Model, Mtp };
inline constexpr auto kDraftKinds =
    make_enum_table<DraftKind>({{DraftKind::Model, "draft-model"}, {DraftKind::Mtp, "mtp"}});

// One published acceptance rate: the pair it was measured on and its source.
struct AcceptanceRow {
    DraftKind method = DraftKind::Model;
    std::string target;
    std::optional<double> target_params;
    std::string draft;
    std::optional<double> draft_params;  // null for MTP layers
    double alpha = 0;
    std::string sampling;
    std::string cite;  // the short citation shown with the estimate
    std::string source;
};

// What one engine runs and how many tokens it drafts by default.
struct EngineSpeculation {
    std::string engine;  // an id of data/engines.json
    bool draft_model = false;
    bool mtp = false;
    // Tokens drafted per step when the user gives none; nullopt: the engine
    // has no default of its own.
    std::optional<std::int64_t> draft_tokens;
    // An MTP checkpoint drafts as many tokens as it has MTP layers (vLLM's
    // n_predict = num_nextn_predict_layers).
    bool mtp_tokens_from_checkpoint = false;
    std::string source;
};

struct SpeculativeData {
    std::vector<AcceptanceRow> acceptance;
    std::vector<EngineSpeculation> engines;
    std::int64_t assumed_draft_tokens = 0;
    std::string assumed_draft_tokens_source;

    // nullptr when the engine runs no speculative decoding gpuadvise models.
    const EngineSpeculation* engine(std::string_view id) const;
};

// Throws InputError naming `source` and the JSON path on a bad file.
SpeculativeData parse_speculative(std::string_view text, std::string_view source);
const SpeculativeData& speculative_data();  // the embedded data/speculative.json

// The bounds of --draft-tokens: engines cap the drafted tokens far below this
// (llama.cpp's default is 16); more is a typo, and alpha^(K+1) is then 0.
inline constexpr std::int64_t kMaxDraftTokens = 64;

// Leviathan et al. 2023, eq. 1: the expected tokens one step of K drafted
// tokens yields at acceptance rate alpha, (1 - alpha^(K+1)) / (1 - alpha);
// K + 1 at alpha = 1, 1 at alpha = 0. alpha is clamped to [0, 1].
double expected_tokens_per_step(double alpha, std::int64_t draft_tokens);

// The typical acceptance rate of a pair: for MTP the MTP row; for a draft
// model the draft-model row whose target/draft size ratio is nearest (on a
// log scale) to `target_params / draft_params`. nullptr when the data has no
// row of that kind.
const AcceptanceRow* typical_acceptance(const SpeculativeData& data, DraftKind kind,
                                        double target_params, double draft_params);

// One step of speculative decoding on a batch of `batch` sequences: the
// draft's `draft_tokens` sequential decode steps of `draft_step_s` each, then
// the target's verification pass of `verify_s` over K + 1 positions per
// sequence. Tokens a second over the batch; 0 when a time is not positive.
double speculative_tokens_per_s(double batch, std::int64_t draft_tokens, double alpha,
                                double draft_step_s, double verify_s);

// The compiled-in speculative decoding data (data/speculative.json).
namespace embedded {
std::string_view speculative_json();
}  // namespace embedded

}  // namespace gpuadvise
