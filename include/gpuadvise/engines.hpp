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
    // Memory the engine keeps free on each card of this platform (Ollama's
    // MinimumMemory: 457 MiB, 512 MiB on Metal); usable memory is less by it.
    std::uint64_t reserve_bytes = 0;
    std::string_view reserve_source;
    // FP8 checkpoints on cards without an FP8 path: the lowest compute
    // capability that runs them as weight-only FP8 (vLLM's FP8 Marlin, W8A16);
    // 0 = such cards are refused.
    double fp8_weight_only_min_cc = 0;
    std::string_view fp8_weight_only_note;
    std::string_view fp8_weight_only_source;
};

// A default context by the memory of the cards (Ollama picks num_ctx by the
// total VRAM it finds): `tokens` from `min_gib` of memory up.
struct ContextTier {
    double min_gib = 0;
    std::int64_t tokens = 0;
};

// What a framework trains where (mlx-lm on Apple silicon): the methods, the
// platforms, the QLoRA base format it quantises to, the optimizer it uses
// by default, and the caveat shown with its plans.
struct EngineTraining {
    std::span<const std::string_view> methods;  // "lora", "qlora"
    std::span<const SoftwarePlatform> platforms;
    std::string_view qlora_base;  // a data/quants.json id ("mlx-4bit")
    std::string_view optimizer;   // an --optimizer choice ("adamw")
    std::string_view note;
    std::string_view source;
};

// What one flag of a serving command sets (data/engines.json "serve.flags").
enum class ServeRole : std::uint8_t {
    TensorParallel,    // GPUs a tensor-parallel plan splits each layer over
    PipelineParallel,  // stages of a pipeline plan
    Context,           // tokens of one sequence (prompt + generated)
    TotalContext,      // tokens of every slot together (llama-server's -c is shared by -np slots)
    Sequences,         // concurrent sequences (the plan's batch)
    MemoryFraction,    // share of each card the engine reserves
    KvFreeFraction,    // share of the memory left after the weights the KV pool takes
    Dtype,             // compute dtype (bfloat16, float16, float32)
    GpuLayers,         // layers on the GPUs
    HostExpertLayers,  // layers whose routed experts stay in host memory
    LayerSplit,        // a mixed box: layers per card, comma-separated
    RowSplit,          // tensor parallel by rows (a switch)
    KvFp8,             // an FP8 KV cache (a switch)
    KvQuant,           // a quantised KV cache; {} is its type (q8_0, q4_0)
    Fp8Weights,        // an FP8 checkpoint (a switch)
    BnbWeights,        // bitsandbytes weights (a switch)
    MaxTokens,         // tokens generated per request
    Embedding,         // serve an embedding model: pooled vectors, no generation (a switch)
    Rerank,            // serve a reranker: scores of query-document pairs (a switch)
    PoolingBatch       // tokens one micro-batch holds; a pooled sequence must fit in one
};
inline constexpr auto kServeRoles =
    make_enum_table<ServeRole>({{ServeRole::TensorParallel, "tensor-parallel"},
                                {ServeRole::PipelineParallel, "pipeline-parallel"},
                                {ServeRole::Context, "context"},
                                {ServeRole::TotalContext, "total-context"},
                                {ServeRole::Sequences, "sequences"},
                                {ServeRole::MemoryFraction, "memory-fraction"},
                                {ServeRole::KvFreeFraction, "kv-free-fraction"},
                                {ServeRole::Dtype, "dtype"},
                                {ServeRole::GpuLayers, "gpu-layers"},
                                {ServeRole::HostExpertLayers, "host-expert-layers"},
                                {ServeRole::LayerSplit, "layer-split"},
                                {ServeRole::RowSplit, "row-split"},
                                {ServeRole::KvFp8, "kv-fp8"},
                                {ServeRole::KvQuant, "kv-quant"},
                                {ServeRole::Fp8Weights, "fp8-weights"},
                                {ServeRole::BnbWeights, "bnb-weights"},
                                {ServeRole::MaxTokens, "max-tokens"},
                                {ServeRole::Embedding, "embedding"},
                                {ServeRole::Rerank, "rerank"},
                                {ServeRole::PoolingBatch, "pooling-batch"}});

// What a serving command can be pointed at: a Hugging Face repository id, a
// local folder of safetensors weights with its config.json, a GGUF file.
enum class ModelSource : std::uint8_t { Hub, Folder, Gguf };
inline constexpr auto kModelSources = make_enum_table<ModelSource>(
    {{ModelSource::Hub, "hub"}, {ModelSource::Folder, "folder"}, {ModelSource::Gguf, "gguf"}});

// One flag: its arguments, where "{}" stands for the value (none: a switch).
struct ServeFlag {
    ServeRole role = ServeRole::Context;
    std::span<const std::string_view> args;
};

// How `--emit` starts the engine as a server: the program, how it takes the
// model, what it loads, where the program runs, and each flag's spelling.
struct ServeTemplate {
    std::span<const std::string_view> program;  // {"vllm", "serve"}
    std::string_view model_flag;                // "" = the model is the first argument
    std::span<const ModelSource> loads;
    // The platforms the program runs on; empty = every backend of the engine.
    std::span<const SoftwarePlatform> platforms;
    std::span<const ServeFlag> flags;
    // Ollama: the model is imported with a Modelfile, not passed as an argument.
    bool modelfile = false;
    std::string_view source;

    const ServeFlag* flag(ServeRole role) const;
    bool loads_from(ModelSource s) const;
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
    // How --emit starts it (serving engines); `serve_with` names the engine
    // whose template it uses instead (LM Studio runs llama.cpp's server).
    std::optional<ServeTemplate> serve;
    std::string_view serve_with;
    // `fit`: the weight formats tried best first ("default" = the workload's
    // own: the checkpoint's format, QLoRA's base), the rung offload is tried
    // from when none fits, and why. Checked against data/quants.json when the
    // program is built.
    std::span<const std::string_view> fit_ladder;
    std::string_view fit_offload_from;
    std::string_view fit_ladder_source;
    // The context it serves when none is given, by the box's memory (largest
    // tier first); empty: the workload's default.
    std::span<const ContextTier> default_context;
    std::string_view default_context_source;
    std::optional<EngineTraining> training;
    std::string_view formats_source;  // where `formats` comes from, when not `source`
    // Host cost of one forward beyond its layers' (the scheduler, the
    // sampler, the generate loop's Python), per decode step and per prefill
    // chunk (docs/performance-model.md, "Engines").
    double step_overhead_s = 0;
    // What its decode kernels (matrix-vector products over the weights, the
    // attention over the KV cache) stream per streaming multiprocessor on
    // CUDA cards, in GB/s: a kernel keeps only so many bytes in flight per
    // SM, so a card of few SMs and much bandwidth (A100, H100, H20) reaches
    // less of its bandwidth at small batches than its datasheet says;
    // nullopt: not measured, no such limit applied.
    std::optional<double> stream_gbps_per_sm;
    // The prompt tokens one prefill call takes (llama.cpp's n_batch), split
    // into prefill_chunk-token micro-batches that a layer split pipelines
    // over its GPUs; 0: not such an engine.
    std::int64_t prefill_batch = 0;
    std::string_view prefill_batch_source;
    // Its prefill share on Apple's Metal, over the datasheet peak, where it
    // has its own kernels there (llama.cpp); nullopt: prefill_efficiency.
    std::optional<double> metal_prefill_efficiency;
    // Its per-layer cost on Metal, where its kernels are encoded into
    // command buffers instead of CUDA graphs; nullopt: layer_overhead_s.
    std::optional<double> metal_layer_overhead_s;
    // The weight format it downloads for a model named without one (Ollama's
    // library tags point at Q4_K_M files); empty: the checkpoint's own.
    std::string_view default_quant;
    std::string_view default_quant_source;
    // The per-layer cost on a card's platform.
    double layer_cost(SoftwarePlatform p) const {
        return p == SoftwarePlatform::Metal && metal_layer_overhead_s ? *metal_layer_overhead_s
                                                                      : layer_overhead_s;
    }

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

// Every fit_ladder rung and QLoRA base names a format of `formats` (with its
// parameter in range) of a family the engine loads, and fit_offload_from is a
// rung; throws InputError naming `source`, the engine and the rung. The
// generator runs it, so an unknown format fails the build.
void check_engine_formats(std::span<const Engine> rows, std::span<const QuantFormat> formats,
                          std::string_view source);

// The memory `engine` keeps free on `gpu` (its backend's reserve); 0 without one.
std::uint64_t engine_reserve_bytes(const Engine* engine, const Gpu& gpu);
// Whether `engine` runs FP8 weights on `gpu` only as weight-only FP8 (no FP8
// tensor path on the card, and the backend's weight-only kernel covers it).
bool fp8_weight_only(const Engine& engine, const Gpu& gpu);
// The training of `engine` on `gpu` for `method` ("lora"); nullptr when it
// does not train it there.
const EngineTraining* engine_training(const Engine& engine, const Gpu& gpu,
                                      std::string_view method);

// The compiled-in engines (data/engines.json, generated at build time).
namespace embedded {
std::string_view engines_json();
std::span<const Engine> engines();
}  // namespace embedded

}  // namespace gpuadvise
