#pragma once
// What the accuracy reports share (accuracy_common.cpp): reading a row of the
// measured ground truth into a request the CLI would make, samples, quantiles
// and the error bands the reports fit.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "csv.hpp"
#include "gpuadvise/attainable.hpp"
#include "gpuadvise/calibrate.hpp"
#include "gpuadvise/calibration.hpp"
#include "gpuadvise/embedded.hpp"
#include "gpuadvise/engines.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/network.hpp"
#include "gpuadvise/offload.hpp"
#include "gpuadvise/performance.hpp"
#include "gpuadvise/query.hpp"
#include "gpuadvise/rank.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"
#include "gpuadvise/workload.hpp"

using namespace gpuadvise;
using bench::Row;
using Json = nlohmann::json;

namespace accuracy {

// The training harness of a row, from the facts its source and notes state:
// the loss it runs (docs/memory-model.md, "The loss") and how its AdamW steps
// (--optimizer-impl). First match wins; a row that names none is taken as
// Hugging Face's Trainer with torch's AdamW.
struct Harness {
    std::string_view column;  // "source" or "notes"
    std::string_view text;
    std::string_view loss;
    std::string_view optimizer_impl;
};
constexpr std::array<Harness, 8> kHarnesses{{
    // Unsloth's kernels (LLaMA-Factory's "Unsloth+FA2" rows): fused loss; HF
    // Trainer's adamw_torch.
    {"notes", "Unsloth", "fused", "foreach"},
    // torchtune with CEWithChunkedOutputLoss (the flag rows from FL-04 on). Its
    // recipe configs pass fused: True to torch.optim.AdamW.
    {"notes", "CEWithChunkedOutputLoss", "chunked", "fused"},
    {"notes", "chunked CE", "chunked", "fused"},
    // torchtune's README table of Sep-2024 names the Llama 3.1 recipe configs,
    // whose loss is CEWithChunkedOutputLoss since torchtune PR #1390 (Aug-2024).
    {"source", "table added Sep-2024", "chunked", "fused"},
    // litgpt's finetune scripts call chunked_cross_entropy on lm_head chunks of
    // 128 tokens without .float(), yet its rows with large vocabularies
    // (Gemma, Llama 3, phi) match ~16 bytes per logit, not 2 (chunked) or 6
    // (bf16): the loop keeps the logit chunks alive through backward and the
    // sliced last chunk gets a full 16-bit gradient. Mapped to upcast, the
    // loss whose bytes it shows (docs/memory-model.md says so). Its optimizer
    // is torch.optim.AdamW from the config's class_path, no foreach/fused set.
    {"source", "Lightning-AI/litgpt", "upcast", "foreach"},
    // torchtune before the chunked loss: TransformerDecoder ends in
    // self.output(h).float(), an upcast of the whole logits.
    {"source", "pytorch/torchtune", "upcast", "fused"},
    // LLaMA-Factory runs HF Trainer: ForCausalLMLoss upcasts; optim adamw_torch.
    {"source", "hiyouga/LLaMA-Factory", "upcast", "foreach"},
    // The transformers docs' 2022 runs: the Trainer's default optim then was
    // adamw_hf, transformers' own AdamW, a loop over parameters.
    {"source", "huggingface/", "upcast", "for-loop"},
}};

// A request built the way the CLI builds one: each value with the row as its
// origin, so a rejected row says which column was not representable.
struct RowRequest {
    Request fields;
    ModelInputs inputs;
    void set(Field f, std::string value) { fields.set(f, std::move(value), "bench row"); }
    void reset(Field f) { fields.clear(f); }
};

struct Replay {
    std::optional<RowRequest> request;
    std::string skip;
};

struct Sample {
    std::string id, method, inputs;
    double measured = 0, component = 0, doc = 0, weights_only = 0;
    Workload workload;  // for the calibration replay
    MemoryMetric metric = MemoryMetric::Allocated;
    bool per_gpu = true;
    double err(double estimate) const { return (estimate - measured) / measured; }
};

// One group's band (measured / estimate at p10 and p90) and how many of its
// rows fall inside: in sample, and leave-one-source-out (each row judged by
// the band of the other sources' rows, as rows from an unseen source would be).
struct BandFit {
    double low = 1, high = 1;
    std::size_t rows = 0;
    double coverage = 0, held_out_coverage = 0;
};

struct BandRow {
    std::string quantity, group;
    BandFit fit;
};
// Filled by the reports, written by --bands.
extern std::vector<BandRow> g_bands;

// A replayed row as rates (times inverted): what the summary by group, the
// pairs of cards and the examples read. Filled by the speed, cluster
// and image reports.
struct RateSample {
    std::string id, group;
    double measured = 0, estimated = 0;
    double ratio() const { return estimated / measured; }
};
extern std::vector<RateSample> g_rates;

// A coefficient of the speed model with the rows it was fitted on: written
// into data/attainable.json ("fit") with --attainable.
struct FitResult {
    double value = 0;
    std::int64_t rows = 0;
    std::string what;
};
extern std::map<std::string, FitResult> g_fitted;
// Engine profiles under fit or fitted (--fit): the replay runs these instead
// of the embedded ones; --engines writes them into data/engines.json.
extern std::map<std::string, Engine> g_engine_override;
extern std::map<std::string, std::string> g_engine_evidence;
// The groups the targets are stated for (docs/accuracy.md, "Speed by group").
inline constexpr std::array<std::string_view, 7> kSpeedGroups{
    "decode", "prefill", "generate", "train (1-8 GPUs)", "multi-node", "diffusion", "vision"};

std::string read_file(const std::string& path);

bool starts_with(const std::string& s, std::string_view p);

// The row's model as a config.json: the preset's real config when the row
// names a preset with the same shape, else one written from the row's
// architecture columns. litgpt materialises an untied lm_head for tied
// checkpoints (ground-truth README), so its rows are replayed untied.
std::optional<std::string> model_config(const Row& r, const Json& models_json,
                                        const std::vector<ModelPreset>& presets, std::string* why);

const Harness& harness_of(const Row& r);

Replay replay_request(const Row& r, const Json& models_json,
                      const std::vector<ModelPreset>& presets);

double quantile(std::vector<double> v, double q);

std::string pct(double x);

// The source of a row: the second part of its id (M-LITGPT-RT-01: LITGPT).
std::string source_of(const std::string& id);

BandFit fit_band(const std::vector<std::pair<std::string, double>>& ratios);

double metric_bytes(const MemoryEstimate& m, MemoryMetric metric);

// One throughput row replayed (accuracy_speed.cpp).
struct SpeedSample {
    std::string id, phase, engine, inputs;
    double measured = 0, estimated = 0;
    std::int64_t gpus = 1;
    bool time = false;  // seconds per step: a time, not a rate
    double ratio() const { return estimated / measured; }
};
std::optional<SpeedSample> replay_speed(const Row& r, const Json& models_json,
                                        const std::vector<ModelPreset>& presets, std::string* why);
// The throughput rows: throughput_visible.csv, then throughput_measured.csv.
std::vector<Row> throughput_rows(const std::string& dir, std::size_t* visible = nullptr);

}  // namespace accuracy
