#pragma once
// Inference engines and training frameworks as data (data/engines.json): the
// speed profile fitted on bench/data (or assumed, and said so), how the engine
// spreads a model over several GPUs, how it sizes its memory, which software
// platforms it runs on and which weight formats it loads. Adding an engine is
// adding a row; code asks about traits, never about an engine's name.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/json.hpp"
#include "gpuadvise/quant.hpp"

namespace gpuadvise {

// How an engine uses several GPUs: tensor parallel (each layer split across
// the GPUs, two all-reduces per layer: vLLM, TensorRT-LLM) or layers split
// into consecutive stages (llama.cpp's default --split-mode layer, HF
// device_map="auto"): the stages run one after another, so decode is not faster.
enum class MultiGpu : std::uint8_t { Tensor, Layers };
inline constexpr auto kMultiGpu =
    make_enum_table<MultiGpu>({{MultiGpu::Tensor, "tensor"}, {MultiGpu::Layers, "layers"}});

// How the engine claims memory at start-up (the runtime's own policy,
// engines.md documents each): what it needs (PyTorch caching allocator), a
// fraction of the card reserved up front (vLLM's gpu_memory_utilization), or
// llama.cpp's weights + KV cache + compute buffers (Ollama adds its reserve).
enum class MemoryPolicy : std::uint8_t { Allocator, Reserve, LlamaCpp };
inline constexpr auto kMemoryPolicies =
    make_enum_table<MemoryPolicy>({{MemoryPolicy::Allocator, "allocator"},
                                   {MemoryPolicy::Reserve, "reserve"},
                                   {MemoryPolicy::LlamaCpp, "llama.cpp"}});

enum class Support : std::uint8_t { Yes, Partial, Preview, No };
inline constexpr auto kSupport = make_enum_table<Support>({{Support::Yes, "yes"},
                                                           {Support::Partial, "partial"},
                                                           {Support::Preview, "preview"},
                                                           {Support::No, "no"}});

// One software platform an engine runs on.
struct EngineBackend {
    SoftwarePlatform platform = SoftwarePlatform::Cuda;
    Support support = Support::Yes;
    // CUDA: lowest compute capability (7.0 = Volta); 0 = any.
    double min_compute_capability = 0;
    // ROCm: the gfx targets it supports (empty = any the platform supports).
    std::span<const std::string_view> gfx;
    std::string_view note;  // the caveat shown with partial or preview support
    // The weight-format families it loads on this platform when fewer than the
    // engine's own (vLLM on ROCm: no AWQ, GPTQ or bitsandbytes); empty = all.
    std::span<const QuantFamily> formats;
    std::string_view source;
};

struct Engine {
    std::string_view id;
    std::string_view name;
    std::span<const std::string_view> aliases;
    bool inference = true;  // false: a training framework only
    // A library other software loads (bitsandbytes): checked for the cards a
    // workload needs it on, never chosen with --engine.
    bool library = false;
    double bandwidth_efficiency = 0.8;  // share of peak memory bandwidth a decode step reaches
    double layer_overhead_s = 0;      // fixed cost per layer per step (launches, framework, Python)
    double prefill_efficiency = 0.5;  // share of dense 16-bit tensor peak in prefill GEMMs
    bool calibrated = false;          // fitted on bench/data, or assumed (said so in the output)
    std::string_view evidence;
    MultiGpu multi_gpu = MultiGpu::Tensor;
    MemoryPolicy memory = MemoryPolicy::Allocator;
    std::span<const EngineBackend> backends;
    std::span<const QuantFamily> formats;  // weight-format families it loads
    std::span<const std::string_view> kv_dtypes;
    std::string_view source;
    // Prompt tokens one prefill step processes at most (llama.cpp's n_ubatch):
    // the activation peak is that chunk's, not the whole prompt's. 0: the
    // whole prompt at once (transformers), or not known.
    std::int64_t prefill_chunk = 0;
    std::string_view prefill_chunk_source;

    const EngineBackend* backend(SoftwarePlatform p) const;
    bool loads(QuantFamily f) const;
    // Whether it loads `f` on the platform `p` (the backend's own list).
    bool loads(QuantFamily f, SoftwarePlatform p) const;
};

std::span<const Engine> engines();
// Parses "vllm", "llama.cpp", "LM Studio"; throws InputError naming `what`.
const Engine& parse_engine(std::string_view text, std::string_view what);
const Engine* find_engine(std::string_view id);
std::vector<std::string> engine_choices();

// Whether `engine` can run on `gpu`; the reason when it cannot, or the caveat
// when it runs with one (partial or preview support).
struct EngineFit {
    bool runs = true;
    std::string reason;  // why not, or the caveat
};
// `describe` false: only `runs` is filled (ranking decides without texts).
EngineFit engine_fit(const Engine& engine, const Gpu& gpu, bool describe = true);
// The same for an engine loading weights of family `f`.
EngineFit engine_fit(const Engine& engine, const Gpu& gpu, QuantFamily f, bool describe = true);

Parsed<Engine> parse_engines(std::string_view text, std::string_view source);

}  // namespace gpuadvise
