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

// The training harness of a row, from the facts its source and notes state
// (--harness; docs/memory-model.md, "Harnesses"), with the loss and AdamW
// step where the row's own version of the harness differs from the profile,
// and what the harness's own log reports for rows whose metric the source
// does not state. First match wins, case-insensitive; a row that names none
// is taken as Hugging Face's Trainer with PEFT.
struct Harness {
    std::string_view column;  // "source", "notes" or "any"
    std::string_view text;
    std::string_view harness;         // --harness
    std::string_view loss;            // "" = the harness's
    std::string_view optimizer_impl;  // "" = the harness's
    // "reserved" when the harness logs torch.cuda.max_memory_reserved.
    std::string_view logged_metric;
};
constexpr std::array<Harness, 17> kHarnesses{{
    // Unsloth's kernels (LLaMA-Factory's "Unsloth+FA2" rows load through
    // Unsloth's FastLanguageModel); HF Trainer's adamw_torch.
    {"notes", "Unsloth", "unsloth", "", "", ""},
    // torchtune with CEWithChunkedOutputLoss (the flag rows from FL-04 on).
    {"notes", "CEWithChunkedOutputLoss", "torchtune", "chunked", "", ""},
    {"notes", "chunked CE", "torchtune", "chunked", "", ""},
    // torchtune's README table of Sep-2024 names the Llama 3.1 recipe configs,
    // whose loss is CEWithChunkedOutputLoss since torchtune PR #1390 (Aug-2024).
    {"source", "table added Sep-2024", "torchtune", "chunked", "", ""},
    // torchtune before the chunked loss: TransformerDecoder ends in
    // self.output(h).float(), an upcast of the whole logits.
    {"source", "pytorch/torchtune", "torchtune", "upcast", "", ""},
    // litgpt's finetune scripts: chunked_cross_entropy, whose rows match ~16
    // bytes per logit (the profile's upcast); torch.optim.AdamW (foreach).
    {"source", "Lightning-AI/litgpt", "litgpt", "", "", ""},
    {"source", "hiyouga/LLaMA-Factory", "llama-factory", "", "", ""},
    // The transformers docs' 2022 runs: the Trainer's default optim then was
    // adamw_hf, transformers' own AdamW, a loop over parameters.
    {"source", "huggingface/transformers", "hf", "", "for-loop", ""},
    {"any", "axolotl", "axolotl", "", "", ""},
    // ms-swift logs memory(GiB) = torch.cuda.max_memory_reserved
    // (utils/torch_utils.py get_max_reserved_memory, trainers/patcher.py).
    {"any", "ms-swift", "ms-swift", "", "", "reserved"},
    {"any", "modelscope/swift", "ms-swift", "", "", "reserved"},
    // Unsloth's notebooks print torch.cuda.max_memory_reserved ("Peak reserved
    // memory").
    {"any", "unslothai/unsloth", "unsloth", "", "", "reserved"},
    {"any", "unsloth", "unsloth", "", "", "reserved"},
    // Qwen-1's finetune.py (QwenLM/Qwen, not Qwen2/2.5/3).
    {"source", "QwenLM/Qwen ", "qwen-finetune", "", "", ""},
    {"source", "QwenLM/Qwen/", "qwen-finetune", "", "", ""},
    {"any", "huggingface/trl", "trl", "", "", ""},
    {"source", "AnswerDotAI/fsdp_qlora", "hf", "", "", ""},
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
// held_*: the narrowest central band [held_tail, 1 - held_tail] (held_tail at
// most kBandNarrowestTail, at least kBandWidestTail) whose held-out coverage
// reaches kBandCoverage, and the coverage it reaches: how much wider the band
// would have to be to hold 80 % of a new source's rows.
inline constexpr double kBandCoverage = 0.80;
inline constexpr double kBandNarrowestTail = 0.25;
inline constexpr double kBandWidestTail = 0.025;
struct BandFit {
    double low = 1, high = 1;
    std::size_t rows = 0;
    double coverage = 0, held_out_coverage = 0;
    double held_tail = 0.10, held_low = 1, held_high = 1, held_tail_coverage = 0;
    double in_low = 1, in_high = 1;  // the in-sample 10-90 band
    std::size_t sources = 0;
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
// An older build of an engine that some rows ran (bench/data/engine_builds.csv):
// its per-layer and per-step costs and llama.cpp's quantised-prefill share
// as that build had them. The CLI models the current build (data/engines.json);
// the replay runs a row of a listed source with its build's numbers.
struct EngineBuild {
    std::string engine, build, rows, source;
    double layer_overhead_s = 0, step_overhead_s = 0, mmq_share = 0;
};
extern std::vector<EngineBuild> g_builds;
// Off while --fit fits a build's numbers on its own rows.
extern bool g_builds_active;
void load_builds(const std::string& dir);
void write_builds(const std::string& dir);
// The build a row ran, if it is an older build of `engine`.
const EngineBuild* build_of(const std::string& row_id, std::string_view engine);
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

// A row's workload and card, or the InputError that refused them (in `why`).
struct ResolvedRow {
    Workload workload;
    const Gpu* gpu = nullptr;
};
std::optional<ResolvedRow> resolve_row(const RowRequest& q, const std::vector<ModelPreset>& presets,
                                       const std::string& gpu, std::string& why);

double quantile(std::vector<double> v, double q);

std::string pct(double x);

// The source of a row: the second part of its id (M-LITGPT-RT-01: LITGPT).
std::string source_of(const std::string& id);

// With `held_out_band` the band written (low, high) is the held-out one: the
// narrowest central band whose leave-one-source-out coverage reaches
// kBandCoverage (the widest searched when none does); else the in-sample 10-90.
BandFit fit_band(const std::vector<std::pair<std::string, double>>& ratios,
                 bool held_out_band = false);
// A band's cells in the reports' tables, after the group's own cells: rows,
// low, high, the width (high / low), both coverages and the band that would
// hold 80 % held out.
inline constexpr std::string_view kBandHeader =
    "rows | low | high | width | coverage | held-out coverage | band for 80 % held out |";
inline constexpr std::string_view kBandRule = "---|---|---|---|---|---|---|";
std::string band_cells(const BandFit& f);

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
