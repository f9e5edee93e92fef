#pragma once
// A missed plan's suggestions (suggest.hpp) for people and for scripts: the
// "to fit" block of estimate --gpu, check and recommend, and the JSON
// `suggestions` array of a recommendation object (docs/json.md).
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/json.hpp"
#include "gpuadvise/suggestion.hpp"
#include "gpuadvise/table.hpp"

namespace gpuadvise {

// The array's items, as docs/schema's `suggestion`.
void write_suggestions(json::Writer& j, const std::vector<Suggestion>& suggestions);

// "To fit on `label`" and one row per change (change, per GPU, fit, speed,
// note); with none, one line that says nothing tried fits. "" for CSV, whose
// output is one table.
std::string suggestions_text(const std::vector<Suggestion>& suggestions, std::string_view label,
                             Format format, const Style& style);

}  // namespace gpuadvise
