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
    // Batch and sequence from the input's last byte, extremes included, so the
    // sums reach the 1 EiB bound and the tokens-in-flight limit.
    static constexpr std::array<const char*, 4> kBatches{"1", "4", "4096", "1000000"};
    static constexpr std::array<const char*, 4> kSeqs{"512", "8192", "1000000", "100000000"};
    const unsigned last = size > 0 ? data[size - 1] : 0U;
    request.set(Field::Batch, kBatches[last % 4U], "--batch");
    request.set(Field::Seq, kSeqs[(last / 4U) % 4U], "--seq");
    ModelInputs inputs;
    inputs.hf_config_text = std::string(text);
    static const std::vector<ModelPreset> no_presets;
    accepts([&] {
        const Workload w = resolve_workload(request, inputs, no_presets);
        const MemoryEstimate m = estimate(w);
        // Independent arithmetic: a long double holds every uint64_t exactly,
        // so a sum that wrapped in the estimator cannot also wrap here.
        long double sum = 0;
        for (const std::uint64_t bytes : m.bytes) sum += static_cast<long double>(bytes);
        if (sum != static_cast<long double>(m.per_gpu_bytes))
            finding("memory components add up to " + std::to_string(static_cast<double>(sum)) +
                    ", per_gpu_bytes is " + std::to_string(m.per_gpu_bytes));
        if (static_cast<double>(m.per_gpu_bytes) > kMaxEstimateBytes)
            finding("an estimate above the 1 EiB bound was returned instead of rejected");
        if (m.allocated_bytes > m.per_gpu_bytes) finding("allocated_bytes exceeds per_gpu_bytes");
        if (static_cast<long double>(m.total_bytes) <
            static_cast<long double>(m.per_gpu_bytes) * static_cast<long double>(w.gpus) * 0.999L)
            finding("total_bytes is less than per_gpu_bytes times the GPUs");
    });
    return 0;
}
