#pragma once
// `gpuadvise batch`: one JSON object per line in, one JSON result per line
// out, for capacity planners sweeping thousands of workloads. A line's keys
// are the keys of the field table (the long flags without dashes: "model",
// "method", "lora_rank", ...); "gpu" checks one card, "top" ranks the catalog.
// A bad line yields an error object with its line number and the run goes on.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/model.hpp"

namespace gpuadvise {

struct BatchLineResult {
    std::string json;  // one line, no trailing newline
    bool ok = true;
};

BatchLineResult run_batch_line(std::string_view line, std::size_t line_number,
                               const Catalog& catalog, const std::vector<ModelPreset>& presets);

// The keys a batch line may use, in table order (for errors and docs).
std::vector<std::string> batch_keys();

}  // namespace gpuadvise
