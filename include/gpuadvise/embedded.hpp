#pragma once
// The data files compiled into the binary. The catalog and the small tables
// (weight formats, engines, tasks, rule thresholds) are constant C++ data
// generated at build time (src/tools/gen_data.cpp) by the same validating
// parsers a user's file goes through; the model presets are embedded as JSON
// text and parsed on first use.
#include <span>
#include <string_view>
#include <vector>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/engines.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/platform.hpp"
#include "gpuadvise/quant.hpp"
#include "gpuadvise/rules.hpp"
#include "gpuadvise/task.hpp"

namespace gpuadvise::embedded {

std::string_view gpus_json();
std::string_view models_json();
std::string_view quants_json();
std::string_view engines_json();
std::string_view tasks_json();
std::string_view rules_json();
std::string_view platforms_json();
std::string_view error_bands_json();
std::string_view networks_json();
std::string_view energy_json();

// The catalog as generated constant data: no parsing, one copy of an array of views.
Catalog build_catalog();
const Catalog& catalog();
const std::vector<ModelPreset>& model_presets();
std::span<const QuantFormat> quant_formats();
std::span<const Engine> engines();
std::span<const TaskPreset> tasks();
std::span<const RuleData> rule_data();
std::span<const HostPlatform> platforms();

inline constexpr std::string_view kGpusSource = "embedded data/gpus.json";
inline constexpr std::string_view kModelsSource = "embedded data/models.json";

}  // namespace gpuadvise::embedded
