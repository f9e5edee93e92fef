#pragma once
// A serving plan's JSON `load` and `curve` (docs/json.md, "Fields added in
// 0.5.0"): null unless the plan is a shown one serving a language model.
#include "gpuadvise/json.hpp"
#include "gpuadvise/rank.hpp"

namespace gpuadvise {

void write_load(json::Writer& j, const Recommendation& r);

}  // namespace gpuadvise
