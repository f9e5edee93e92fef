#include "gpuadvise/task.hpp"

#include "gpuadvise/names.hpp"

namespace gpuadvise {

const std::vector<TaskPreset>& task_presets() {
    // Document §6: minimum memory (GB = 10^9), bandwidth floor, NVLink need, AV1.
    static const std::vector<TaskPreset> presets{
        {"sdxl", "local Stable Diffusion XL image generation", std::nullopt, std::nullopt,
         {"sdxl", 12'000'000'000ULL, 400, false, false}, "RTX 4070 Ti 12 GB"},
        {"qlora-7b", "QLoRA fine-tune of a 7B model", "7B", "qlora", {"qlora-7b", 16'000'000'000ULL, 600, false, false},
         "RTX 4090 24 GB"},
        {"full-13b", "full fine-tune of a 13B model", "13B", "full", {"full-13b", 40'000'000'000ULL, 1500, true, false},
         "A100 40 GB PCIe"},
        {"serve-70b", "API serving of a 70B model", "70B", "inference", {"serve-70b", 80'000'000'000ULL, 3500, true, false},
         "H100 80 GB SXM5"},
        {"video", "real-time AI video (AV1 encode)", std::nullopt, std::nullopt, {"video", 16'000'000'000ULL, 100, false, true},
         "Intel Data Center GPU Flex 170"},
    };
    return presets;
}

const std::vector<std::string>& task_choices() {
    static const std::vector<std::string> ids = [] {
        std::vector<std::string> out;
        for (const auto& t : task_presets()) out.push_back(t.id);
        return out;
    }();
    return ids;
}

const TaskPreset& find_task(std::string_view name) {
    const std::string id = parse_choice(name, "--task", task_choices());
    for (const auto& t : task_presets())
        if (t.id == id) return t;
    return task_presets().front();
}

}  // namespace gpuadvise
