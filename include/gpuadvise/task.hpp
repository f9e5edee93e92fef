#pragma once
// The source document's decision table (§6) as task presets: each row names
// a workload (or, for non-LLM tasks, a memory floor) and the constraints the
// document derives for it, so `--task full-13b` reproduces its reasoning with
// correct specs.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/rules.hpp"

namespace gpuadvise {

struct TaskPreset {
    std::string id;
    std::string description;
    std::optional<std::string> model;   // workload defaults for LLM tasks
    std::optional<std::string> method;
    TaskRequirements requirements;
    std::string document_pick;  // the card the document recommends, for comparison
};

const std::vector<TaskPreset>& task_presets();
const std::vector<std::string>& task_choices();
// Throws InputError with a did-you-mean for unknown names.
const TaskPreset& find_task(std::string_view name);

}  // namespace gpuadvise
