#pragma once
// `gpuadvise fit`: the reverse of the main command. For a box of cards,
// which model presets run, each with the best quantization that fits, the
// longest context at it, its speed, and whether it needs offload. The
// quality proxy is documented in docs/runtimes.md: plans fully on the GPU
// first, then by parameters, then by bits per weight (under 3 bits only
// when nothing better fits).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gpuadvise/fields.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/rank.hpp"

namespace gpuadvise {

struct FitOptions {
    // The context every listed model must leave room for: llama.cpp's
    // --fit-ctx floor (common.h fit_params_min_ctx = 4096).
    std::int64_t min_context = 4096;
    std::optional<double> min_speed;  // decode tokens/s
    std::string family;               // a substring of the preset id
    bool by_speed = false;            // --rank-by speed
    bool allow_offload = true;        // --offload none turns it off
};

struct FitRow {
    const ModelPreset* preset = nullptr;
    std::string quant;  // the best that fits ("none" for 16-bit)
    double bits_per_weight = 0;
    Recommendation plan;  // with limits
    Workload workload;    // as planned (quant, context)
};

struct FitResult {
    std::vector<FitRow> rows;           // best first
    std::vector<std::string> left_out;  // "gpt2: trained for 1024 tokens, under --min-context"
};

// `base` holds the user's workload flags (method, engine, batch, context...);
// the model and quant are set per candidate.
FitResult fit_models(const Request& base, const std::vector<ModelPreset>& presets,
                     std::span<const Gpu* const> cards, const RankOptions& options,
                     const FitOptions& fit);

}  // namespace gpuadvise
