// Fuzzes the Hugging Face config.json parser (--hf-config) and what follows it:
// parse_hf_config, count_params, then the same text through resolve_workload
// and the memory estimate, as the CLI does. The method is chosen from the
// input's length so one corpus covers inference and the training methods.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_common.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/workload.hpp"

using namespace gpuadvise;
using fuzz::accepts;
using fuzz::finding;

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
    const std::string_view text = fuzz::as_text(data, size);
    Architecture arch;
    if (!accepts([&] { arch = parse_hf_config(text, "config.json"); })) return 0;

    const ParamCounts c = count_params(arch);
    // validate_architecture promises that a shape implying over 1e15
    // parameters is rejected; allow its approximation a factor of 10.
    if (c.total() > 10'000'000'000'000'000ULL)
        finding("an accepted config.json counts " + std::to_string(c.total()) +
                " parameters (over 1e16)");
    if (c.active() > c.total())
        finding("active parameters " + std::to_string(c.active()) + " exceed the total " +
                std::to_string(c.total()));

    static constexpr std::array<const char*, 4> kMethods{"inference", "lora", "qlora", "full"};
    Request request;
    request.set(Field::HfConfig, "config.json", "--hf-config");
    request.set(Field::Method, kMethods[size % kMethods.size()], "--method");
    ModelInputs inputs;
    inputs.hf_config_text = std::string(text);
    static const std::vector<ModelPreset> no_presets;
    accepts([&] {
        const Workload w = resolve_workload(request, inputs, no_presets);
        const MemoryEstimate m = estimate(w);
        std::uint64_t sum = 0;
        for (const std::uint64_t bytes : m.bytes) sum += bytes;
        if (sum != m.per_gpu_bytes)
            finding("memory components add up to " + std::to_string(sum) + ", per_gpu_bytes is " +
                    std::to_string(m.per_gpu_bytes));
    });
    return 0;
}
