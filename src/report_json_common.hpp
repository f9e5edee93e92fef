#pragma once
// What the JSON writers of documents (report_json.cpp) and of plans
// (report_json_plan.cpp) share.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/calibration.hpp"
#include "gpuadvise/json.hpp"
#include "gpuadvise/offload.hpp"

namespace gpuadvise {

// `key` and a JSON array of the strings.
void write_strings(json::Writer& w, std::string_view key, const std::vector<std::string>& list);
// "calibrated" (memory) or "calibrated_from" (performance): the record a
// measured run made, or null.
void write_calibrated(json::Writer& j, const std::optional<CalibrationMatch>& c, bool memory);
// "offload": an offloaded plan's placement, or null.
void write_offload(json::Writer& j, const OffloadPlan* o);

}  // namespace gpuadvise
