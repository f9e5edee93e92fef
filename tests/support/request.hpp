#pragma once
// Building requests in tests the way the CLI does: each value with its flag
// as origin, so error messages read as a user would see them.
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "gpuadvise/fields.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise::test {

using Values = std::initializer_list<std::pair<Field, std::string>>;

inline Request request(Values values) {
    Request r;
    for (const auto& [f, v] : values) r.set(f, v, std::string(spec(f).flag));
    return r;
}

inline Workload workload(Values values, const std::vector<ModelPreset>& presets = {},
                         const ModelInputs& inputs = {}) {
    return resolve_workload(request(values), inputs, presets);
}

}  // namespace gpuadvise::test
