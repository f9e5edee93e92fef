#pragma once
// The data files compiled into the binary, and the catalog and presets parsed
// from them (parsed once, on first use).
#include <string_view>
#include <vector>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/model.hpp"

namespace gpuadvise::embedded {

std::string_view gpus_json();
std::string_view models_json();

// The catalog as generated C++ (src/tools/gen_catalog.cpp): validated at
// build time, constructed on first use without parsing.
Catalog build_catalog();
const Catalog& catalog();
const std::vector<ModelPreset>& model_presets();

inline constexpr std::string_view kGpusSource = "embedded data/gpus.json";
inline constexpr std::string_view kModelsSource = "embedded data/models.json";

}  // namespace gpuadvise::embedded
