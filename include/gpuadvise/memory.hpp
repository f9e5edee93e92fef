#pragma once
// The memory one GPU needs for a workload, as typed components that add up.
// Two estimators: `component` (the model of docs/memory-model.md, validated
// against measured peaks by bench/accuracy) and `doc` (the source document's
// rule of thumb, §2.1, kept as a reference). Both fill the same components
// (zero where one does not apply), so the JSON has one shape.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuadvise/calibration.hpp"
#include "gpuadvise/units.hpp"  // kMaxEstimateBytes, the bound of every estimate
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

// Component bytes. `runtime` is outside the framework's allocations (CUDA
// context, the caching allocator's pool beyond the allocated peak); the rest
// is what torch.cuda.max_memory_allocated would report at the peak. `pool` is
// the allocator's part of `runtime` (not a component of its own): allocated +
// pool is torch.cuda.max_memory_reserved.
// `requirement` is a task preset's fixed memory floor, for tasks that are not
// modelled.
struct Components {
    double weights = 0, adapters = 0, gradients = 0, optimizer = 0, activations = 0, logits = 0,
           kv_cache = 0, workspace = 0, requirement = 0, runtime = 0;
    // Speculative decoding (--draft): the draft's weights and KV cache, and
    // the target's KV for the positions a step verifies beyond the context.
    double draft = 0;
    // Image generation pipelines: `weights` is the denoiser (UNet or DiT).
    double text_encoders = 0, vae = 0;
    double pool = 0;
    // Wholly free segments the allocator keeps cached on a card with room
    // (in max_memory_reserved, not in `runtime`: an out-of-memory retry
    // releases them, so they are not part of what must fit).
    double cached = 0;
    // Host memory a training offload keeps (--train-offload), for the whole
    // plan: not a GPU component.
    double host = 0;
    double host_weights = 0;  // the parameters' part of `host` (--train-offload params)
};

// The components in JSON and table order, each with its JSON key.
struct ComponentName {
    double Components::*member;
    std::string_view key;    // "weights_bytes"
    std::string_view label;  // "weights"
};
inline constexpr std::array<ComponentName, 13> kComponentNames{{
    {&Components::weights, "weights_bytes", "weights"},
    {&Components::text_encoders, "text_encoders_bytes", "text encoders"},
    {&Components::vae, "vae_bytes", "vae"},
    {&Components::adapters, "adapters_bytes", "adapters"},
    {&Components::gradients, "gradients_bytes", "gradients"},
    {&Components::optimizer, "optimizer_bytes", "optimizer"},
    {&Components::activations, "activations_bytes", "activations"},
    {&Components::logits, "logits_bytes", "logits"},
    {&Components::kv_cache, "kv_cache_bytes", "kv cache"},
    {&Components::draft, "draft_bytes", "draft"},
    {&Components::workspace, "workspace_bytes", "workspace"},
    {&Components::requirement, "requirement_bytes", "requirement"},
    {&Components::runtime, "runtime_bytes", "runtime"},
}};

enum class EstimatorUsed : std::uint8_t { Component, Doc, Task };
inline constexpr auto kEstimatorsUsed =
    make_enum_table<EstimatorUsed>({{EstimatorUsed::Component, "component"},
                                    {EstimatorUsed::Doc, "doc"},
                                    {EstimatorUsed::Task, "task"}});

struct MemoryEstimate {
    std::array<std::uint64_t, kComponentNames.size()>
        bytes{};                        // per component, kComponentNames order
    std::uint64_t allocated_bytes = 0;  // framework peak, without runtime overhead
    // The caching allocator's pool at its peak (torch.cuda.max_memory_reserved
    // on a card with room): allocated plus the blocks it keeps cached.
    std::uint64_t reserved_bytes = 0;
    // Of reserved, the wholly free segments an out-of-memory retry releases
    // (release_cached_blocks): per_gpu (what must fit) leaves them out, so
    // per_gpu = reserved - releasable + the CUDA context.
    std::uint64_t releasable_bytes = 0;
    std::uint64_t per_gpu_bytes = 0;  // what must fit on one card (the components' sum)
    std::uint64_t total_bytes = 0;    // all GPUs of the plan together
    std::uint64_t trainable_params = 0;
    // Paged optimizer state (bitsandbytes paged optimizers) lives in CUDA
    // unified memory: it pages out to the host under pressure, so it is not
    // part of what must fit, nor of what the allocator reports.
    std::uint64_t paged_optimizer_bytes = 0;
    // Host memory the plan's training offload needs (--train-offload): the
    // optimizer state, master weights and gradients, and with params the
    // parameters, of every GPU together.
    std::uint64_t host_bytes = 0;
    std::uint64_t host_weight_bytes = 0;  // the parameters among them (streamed every step)
    EstimatorUsed estimator = EstimatorUsed::Component;
    // measured / estimate at the 10th and 90th percentile of this method's
    // validation rows (data/error_bands.json); nullopt for the document's rule
    // of thumb and task requirements, which are not validated that way.
    std::optional<std::pair<double, double>> band;
    std::vector<std::string> notes;  // what the estimate leaves out or assumes
    // The user's calibration that scaled this estimate (gpuadvise calibrate).
    std::optional<CalibrationMatch> calibrated;

    std::uint64_t get(double Components::*member) const;
};

// What speculative decoding (--draft) adds to a plan, for the whole model
// before a multi-GPU split (docs/memory-model.md, "Speculative decoding"):
// the draft's weights in the plan's weight format (a model file's bits per
// weight for a GGUF target), its KV cache at the same context and batch,
// and the target's KV cache for the K positions a step verifies past the
// context. An MTP draft's weights are 0 where the target's count already
// holds them (GLM-4.5); `read_weights` is what one draft step reads either
// way (an MTP layer with its head).
struct DraftMemory {
    double weights = 0;
    double read_weights = 0;
    double kv_cache = 0;
    double lookahead_kv = 0;
    double total() const { return weights + kv_cache + lookahead_kv; }
};
// Zero without a draft.
DraftMemory draft_memory(const Workload& workload);

// Bytes per weight for a storage format, scales included.
double weight_bytes_per_param(const Quant& quant, Precision precision, bool double_quant);

// Throws InputError when the estimate exceeds kMaxEstimateBytes.
MemoryEstimate estimate_memory(const Workload& workload);
MemoryEstimate estimate_memory_doc(const Workload& workload);
// Dispatches on workload.estimator (and fixed task requirements).
MemoryEstimate estimate(const Workload& workload);

// The error band group of a workload beyond its method: the inference
// engine ("inference:transformers") or the training harness
// ("qlora:ms-swift"); "" without one. bench/accuracy fits a band for a group
// whose rows come from at least two sources; estimate() uses it where it
// exists, else the method's.
std::string memory_band_group(const Workload& workload);

// The raw components before they are rounded into an estimate (for the
// limits solver and the tests).
Components component_bytes(const Workload& workload, double* trainable, double* paged);

}  // namespace gpuadvise
