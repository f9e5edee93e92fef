#pragma once
// Turning results into text: JSON (schema 1, docs/json.md) for scripts and
// tables for people. Both read the same values, so they cannot disagree.
// Nothing here writes; the CLI prints the returned strings.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/rank.hpp"
#include "gpuadvise/rules.hpp"
#include "gpuadvise/table.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

inline constexpr int kSchemaVersion = 1;

nlohmann::ordered_json workload_json(const Workload& w);
nlohmann::ordered_json memory_json(const MemoryEstimate& m);
nlohmann::ordered_json performance_json(const Performance& p);
nlohmann::ordered_json recommendation_json(const Recommendation& r, std::size_t rank);
nlohmann::ordered_json gpu_json(const Gpu& g);

// `gpuadvise --json` and `gpuadvise estimate --json`.
nlohmann::ordered_json recommend_json(const Workload& w, const MemoryEstimate& m, const std::vector<Recommendation>& recs,
                                      std::size_t top, const RankOptions& options);
nlohmann::ordered_json estimate_json(const Workload& w, const MemoryEstimate& m);

// Shared by JSON and tables so both print the same numbers.
std::optional<double> rounded_rate(const std::optional<double>& v);
std::string lora_targets_text(const Workload& w);

// Tables (rendered by table.hpp as aligned text, CSV or Markdown).
Table recommendations_table(const Workload& w, const std::vector<Recommendation>& recs, std::size_t top);
Table memory_table(const MemoryEstimate& m);
Table gpus_table(const std::vector<const Gpu*>& gpus);
Table gpu_detail_table(const Gpu& g);
Table models_table(const std::vector<ModelPreset>& presets);
Table rules_table();
Table performance_table(const Performance& p);

// Whole reports for people: text (aligned tables, headings) or Markdown.
// CSV output is the main table alone (a header row and one row per item).
std::string workload_text(const Workload& w);
std::string memory_text(const MemoryEstimate& m, const Workload& w, Format format, const Style& style);
std::string recommend_text(const Workload& w, const MemoryEstimate& m, const std::vector<Recommendation>& recs,
                           std::size_t top, const RankOptions& options, std::size_t catalog_size, Format format,
                           const Style& style);

}  // namespace gpuadvise
