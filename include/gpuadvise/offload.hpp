#pragma once
// Partial offload (--offload): which parts of a model stay in host memory
// when the GPUs cannot hold it all, as llama.cpp places them. The token
// embedding always stays on the host (llama-model.cpp: "there is very
// little benefit to offloading the input layer"); -ngl N puts the last N
// repeating layers on the GPUs and the output layer only when N > layers;
// --cpu-moe / --n-cpu-moe keep the experts of the first layers on the host;
// --fit (auto) keeps a 1 GiB margin per device, moves experts to the host
// first and then whole layers. The rules and their sources are in
// docs/runtimes.md.
#include <cstdint>
#include <optional>
#include <string_view>

#include "gpuadvise/enum_table.hpp"
#include "gpuadvise/fields.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

enum class OffloadKind : std::uint8_t { None, Auto, Layers, Experts };
struct OffloadRequest {
    OffloadKind kind = OffloadKind::None;
    std::int64_t gpu_layers = 0;  // Layers: as llama.cpp's -ngl (layers + 1 = the output too)
    // Experts: the layers whose experts stay on the host, the first ones (as
    // --n-cpu-moe N); 0 = every layer's (as --cpu-moe).
    std::int64_t host_expert_layers = 0;
};
// "auto", "none", "experts" or a layer count, and llama.cpp's own spellings:
// "cpu-moe" / "--cpu-moe", "n-cpu-moe N" / "--n-cpu-moe=N" / "-ncmoe N",
// "-ngl N" / "--n-gpu-layers N"; throws InputError naming `what`.
OffloadRequest parse_offload(std::string_view text, std::string_view what);
// The request of --offload, --cpu-moe and --n-cpu-moe (one of them at most);
// nullopt without any.
std::optional<OffloadRequest> offload_request(const Request& r);

// Where the model ended up.
enum class OffloadMode : std::uint8_t { Gpu, Layers, Experts };
inline constexpr auto kOffloadModes =
    make_enum_table<OffloadMode>({{OffloadMode::Gpu, "gpu"},
                                  {OffloadMode::Layers, "layers"},
                                  {OffloadMode::Experts, "experts"}});

struct OffloadPlan {
    OffloadMode mode = OffloadMode::Gpu;
    std::int64_t gpu_layers = 0;    // repeating layers on the GPUs
    std::int64_t total_layers = 0;  // repeating layers of the model
    bool output_on_gpu = true;
    std::int64_t host_expert_layers = 0;  // layers whose experts stay on the host (first ones)
    std::uint64_t gpu_bytes = 0;          // per GPU
    std::uint64_t host_bytes = 0;         // weights and KV cache in host memory
    // Per decode token: bytes read from the GPUs' memory and from the host's.
    double gpu_read_bytes = 0;
    double host_read_bytes = 0;
    double host_weight_bytes = 0;  // weights on the host (streamed over PCIe for prefill)
    // Per decode token: how often the activations cross PCIe between the GPU
    // and the host (twice per layer whose experts are on the host).
    std::int64_t handoffs = 0;
    // As llama.cpp's -ngl: gpu_layers, plus one when the output layer is on the GPU.
    std::int64_t ngl() const { return gpu_layers + (output_on_gpu ? 1 : 0); }
};

// llama.cpp --fit's default margin per device (common.h fit_params_target).
inline constexpr std::uint64_t kFitMarginBytes = 1024ULL * 1024 * 1024;

// The placement of `w` (whose one-GPU estimate is `whole`) over `gpus` cards
// of `usable` bytes each, for the request. Auto keeps kFitMarginBytes free per
// card and returns Gpu when everything fits. Throws InputError when a layer
// count exceeds the model's layers + 1.
OffloadPlan plan_offload(const Workload& w, const MemoryEstimate& whole, std::uint64_t usable,
                         std::int64_t gpus, OffloadRequest request);

// The per-GPU memory estimate of a placement: `whole` with the weights and
// KV cache cut to the GPU's share (the other components unchanged).
MemoryEstimate offloaded_memory(const MemoryEstimate& whole, const OffloadPlan& plan,
                                std::int64_t gpus);

}  // namespace gpuadvise
