#pragma once
// Turning results into text: JSON (schema 1, docs/json.md) for scripts and
// tables for people. Both read the same values, so they cannot disagree.
// Nothing here writes; the CLI prints the returned strings.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/rank.hpp"
#include "gpuadvise/rules.hpp"
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

std::string workload_text(const Workload& w);
std::string memory_text(const MemoryEstimate& m, const Workload& w);
std::string recommend_text(const Workload& w, const MemoryEstimate& m, const std::vector<Recommendation>& recs,
                           std::size_t top, const RankOptions& options, std::size_t catalog_size);
std::string gpus_text(const std::vector<const Gpu*>& gpus);
std::string gpu_detail_text(const Gpu& g);
std::string rules_text();

}  // namespace gpuadvise
