#pragma once
// The source document's decision table (§6 of "Best GPUs for AI and Deep
// Learning", the article gpuadvise was built from) as data (data/tasks.json):
// each row names a workload (or, for tasks that are not language models, a
// memory floor) and the constraints the document derives for it, so
// `--task full-13b` reproduces its reasoning with correct specs and shows the
// document's own pick next to ours.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/json.hpp"

namespace gpuadvise {

// Requirements a task adds on top of the memory model.
struct TaskRequirements {
    std::string_view id;
    std::uint64_t min_memory_bytes = 0;
    double min_bandwidth_gbps = 0;
    bool needs_fast_link = false;
    bool needs_av1 = false;
};

struct TaskPreset {
    std::string_view id;
    std::string_view description;
    std::optional<std::string_view> model;  // workload defaults for language-model tasks
    std::optional<std::string_view> method;
    TaskRequirements requirements;
    std::string_view document_pick;    // a catalog id
    std::string_view document_reason;  // the document's words for why
    // Where the floors come from: the document's figures where the fact-check
    // (seed FACTCHECK.md) confirms them, the corrected figure where it does not.
    std::string_view floors_source;
};

std::span<const TaskPreset> task_presets();
std::vector<std::string> task_choices();
// Throws InputError naming `what` with a did-you-mean for unknown names.
const TaskPreset& find_task(std::string_view name, std::string_view what = "--task");

Parsed<TaskPreset> parse_tasks(std::string_view text, std::string_view source);

// The compiled-in decision table (data/tasks.json, generated at build time).
namespace embedded {
std::string_view tasks_json();
std::span<const TaskPreset> tasks();
}  // namespace embedded

}  // namespace gpuadvise
