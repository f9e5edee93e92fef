#pragma once
// Every --json document (schema 1, docs/json.md and docs/schema/), written
// straight into a string by json::Writer. Tables (report_text.hpp) read the
// same values and the same rounding, so the two cannot disagree. Nothing here
// writes to a stream; the CLI prints the returned text.
#include <optional>
#include <string>
#include <vector>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/fit.hpp"
#include "gpuadvise/json.hpp"
#include "gpuadvise/launch.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/rank.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

inline constexpr int kSchemaVersion = 1;

// Rates as both outputs show them: three significant digits, at most six
// decimals; nullopt for an absent or non-finite value.
std::optional<double> rounded_rate(const std::optional<double>& v);

void write_workload(json::Writer& w, const Workload& workload);
void write_memory(json::Writer& w, const MemoryEstimate& m);
void write_performance(json::Writer& w, const Performance& p);
void write_recommendation(json::Writer& w, const Recommendation& r, std::size_t rank);
void write_gpu(json::Writer& w, const Gpu& g);

// `gpuadvise estimate --json`, optionally with one card's plan.
// `launch` (--emit) adds a "launch" object to the three documents below.
std::string estimate_json(const Workload& w, const MemoryEstimate& m,
                          const Recommendation* plan = nullptr, const Launch* launch = nullptr,
                          bool pretty = true);
// `gpuadvise --json` and `compare --json`; `pick` is the document's own pick
// for a --task (null otherwise).
std::string recommend_json(const Workload& w, const MemoryEstimate& m,
                           const std::vector<Recommendation>& recs, std::size_t top,
                           const RankOptions& options,
                           const std::optional<DocumentPick>& pick = std::nullopt,
                           const Launch* launch = nullptr, bool pretty = true);
// `gpuadvise check --json`.
std::string check_json(const Workload& w, const Recommendation& rec, const Launch* launch = nullptr,
                       bool pretty = true);
// `fit --json` (docs/schema/fit.schema.json).
std::string fit_json(const std::string& label, std::span<const Gpu* const> cards,
                     const FitResult& result, const FitOptions& fit, std::size_t top);
std::string gpus_json(const Catalog& catalog, const std::vector<const Gpu*>& gpus);
std::string gpu_show_json(const Gpu& g);
std::string models_json(const std::vector<ModelPreset>& presets);
std::string rules_json();

}  // namespace gpuadvise
