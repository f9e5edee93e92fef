#pragma once
// `gpuadvise fit`: the reverse of the main command. For a box of cards,
// which models run (the presets, or the user's own files), each with the best
// quantization that fits, the longest context at it, its speed, and whether
// it needs offload. A preset (or a --hf-config shape) walks its engine's
// fit_ladder (data/engines.json); the user's GGUF files of one model are the
// rungs themselves. The quality proxy is documented in docs/runtimes.md:
// plans fully on the GPU first, under 3.5 bits per weight next, offloaded
// last; within each, parameters counted up for newer releases
// (data/models.json quality_proxy), then bits per weight.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gpuadvise/fields.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/rank.hpp"

namespace gpuadvise {

// The default --min-speed is kReadableTokensPerS (rank.hpp): about reading speed.

struct FitOptions {
    // The context every listed model must leave room for: llama.cpp's
    // --fit-ctx floor (common.h fit_params_min_ctx = 4096).
    std::int64_t min_context = 4096;
    double min_speed = kReadableTokensPerS;  // decode tokens/s
    // --min-speed given: a plan whose speed is unknown does not pass it (the
    // default lets it through).
    bool min_speed_given = false;
    std::string family;         // a substring of the preset id
    bool by_speed = false;      // --rank-by speed
    bool allow_offload = true;  // --offload none turns it off
};

// One model to fit: a preset, a shape (--hf-config), or the user's files
// (--gguf, --model-dir, a --models-dir group of GGUFs of one model).
struct FitModel {
    std::string id;                       // the preset id, or the name shown
    const ModelPreset* preset = nullptr;  // a preset: walks the engine's ladder
    ModelInputs shape;                    // --hf-config: walks the ladder too
    // The model's files, one rung each: GGUFs of one model at several
    // quantizations, tried most bits first; empty for a preset or a shape.
    std::vector<ModelFile> files;
    std::string released;  // "2024-07"; "" when not known
    std::string generation;
};

struct FitRow {
    std::string model;  // FitModel::id
    const ModelPreset* preset = nullptr;
    std::string file;   // the file that fits, as shown; "" for a preset
    std::string quant;  // the best that fits ("none" for 16-bit; a file's ggml type)
    double bits_per_weight = 0;
    std::string released;  // "" unknown
    double quality = 0;    // the proxy: log2(params) + months newer / halving
    Recommendation plan;   // with limits
    Workload workload;     // as planned (quant, context)
};

struct FitResult {
    std::vector<FitRow> rows;           // best first
    std::vector<std::string> left_out;  // "gpt2: trained for 1024 tokens, under --min-context"
    std::string what = "presets";       // what the rows are: presets, files, models
    std::string ranking;                // how the rows are ordered, one sentence
};

// The presets fit tries (language decoders; those whose id holds `family`
// when it is not empty).
std::vector<FitModel> preset_models(const std::vector<ModelPreset>& presets,
                                    std::string_view family);

// `base` holds the user's workload flags (method, engine, batch, context...);
// the model and quant are set per candidate. `presets` resolves preset ids.
FitResult fit_models(const Request& base, std::span<const FitModel> models,
                     const std::vector<ModelPreset>& presets, std::span<const Gpu* const> cards,
                     const RankOptions& options, const FitOptions& fit, const QualityProxy& proxy);

}  // namespace gpuadvise
