#pragma once
// A workload: what the user wants to run, normalised. `WorkloadRequest` holds
// the raw values as typed (every field optional), `resolve_workload` parses and
// checks them, fills the defaults and records where each default came from, so
// that the CLI, `batch` lines and the fuzzers all share one path.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/model.hpp"

namespace gpuadvise {

enum class Method { Inference, Full, Lora, Qlora };
enum class Precision { Fp32, Fp16, Bf16 };
enum class Quant { None, Int8, Int4, Nf4, Fp4, GptqInt4, GptqInt8, AwqInt4, Fp8, Q4_0, Q4_K_M, Q5_K_M, Q6_K, Q8_0 };
// Inference engines differ in kernels and per-step overhead (perf.cpp).
enum class Engine { Vllm, TensorrtLlm, LlamaCpp, Exllamav2, Autoawq, Pytorch, Transformers, Litgpt };
enum class MixedPrecision { Amp, Pure };
enum class Optimizer { AdamW, AdamW8bit, PagedAdamW8bit, PagedAdamW32bit, Sgd, SgdMomentum, Adafactor, Lion };
enum class KvDtype { Fp32, Fp16, Bf16, Fp8, Int8 };
enum class Parallel { None, Ddp, Fsdp, Zero2, Zero3, Tp, Pp };
enum class Estimator { Component, Doc };

std::string to_string(Method);
std::string to_string(Precision);
std::string to_string(Quant);
std::string to_string(MixedPrecision);
std::string to_string(Optimizer);
std::string to_string(KvDtype);
std::string to_string(Parallel);
std::string to_string(Estimator);
std::string to_string(Engine);
const std::vector<std::string>& engine_choices();
// GGUF block formats quantise every tensor, embeddings included.
bool is_gguf(Quant q);

// Choices as spelled on the command line, for --help, completions and errors.
const std::vector<std::string>& method_choices();
const std::vector<std::string>& precision_choices();
const std::vector<std::string>& quant_choices();
const std::vector<std::string>& optimizer_choices();
const std::vector<std::string>& parallel_choices();

bool is_training(Method m);

// LoRA target modules of a decoder block.
enum class LoraTarget { Q, K, V, O, Gate, Up, Down, LmHead };
std::string to_string(LoraTarget);

// A model read from files on disk (GGUF, safetensors, a Hugging Face folder):
// exact parameter count and weight bytes, and the shape when the files give it.
struct ModelFile {
    std::string source;  // the path, for messages
    std::string format;  // "gguf" | "safetensors"
    std::optional<Architecture> arch;
    std::uint64_t params = 0;
    std::uint64_t weight_bytes = 0;
    std::string quantization;  // "Q4_K", "BF16", ...
};

struct Model {
    std::string name;    // as given: "8B", "llama-3.1-8b", "config.json", a file, or a task id
    std::string origin;  // "size" | "preset" | "hf-config" | "gguf" | "safetensors" | "task"
    Architecture arch;
    std::uint64_t params = 0;         // total parameters
    std::uint64_t active_params = 0;  // per token (differs for MoE)
    std::optional<std::uint64_t> weight_bytes;  // exact, from a model file
    std::string file_quantization;
};

struct Workload {
    Model model;
    Method method = Method::Inference;
    Precision precision = Precision::Bf16;
    Quant quant = Quant::None;
    bool double_quant = false;
    MixedPrecision mixed = MixedPrecision::Amp;
    Optimizer optimizer = Optimizer::AdamW;
    bool optimizer_in_backward = false;
    std::int64_t batch = 1;
    std::int64_t seq = 0;     // training: tokens per sequence; inference: prompt + generated
    std::int64_t prompt = 0;  // inference only
    std::int64_t gen = 0;     // inference only
    bool grad_ckpt = false;
    bool chunked_loss = false;  // cross-entropy over chunks of the logits (torchtune, litgpt)
    bool flash_attn = true;
    std::int64_t lora_rank = 0;
    std::vector<LoraTarget> lora_targets;
    KvDtype kv_dtype = KvDtype::Bf16;
    std::int64_t gpus = 1;
    Parallel parallel = Parallel::None;
    Estimator estimator = Estimator::Component;
    Engine engine = Engine::Vllm;  // inference only
    // A memory need given directly instead of modelled (non-LLM task presets
    // such as the document's SDXL row): the requirement is this many bytes.
    std::optional<std::uint64_t> fixed_bytes;
    // "batch=4 (document §4 QLoRA recipe)": every value the user did not give.
    std::vector<std::string> assumed;
    // Accepted combinations worth a second look ("--gpus 1 ignores --parallel tp").
    std::vector<std::string> warnings;

    bool trains() const { return !fixed_bytes && is_training(method); }
    bool is_fixed() const { return fixed_bytes.has_value(); }
    bool uses_lora() const { return method == Method::Lora || method == Method::Qlora; }
};

struct WorkloadRequest {
    std::optional<std::string> model;          // size or preset name
    std::optional<std::string> hf_config_text; // contents of --hf-config
    std::string hf_config_source = "config.json";
    std::optional<ModelFile> model_file;  // --gguf, --safetensors, --model-dir
    std::optional<std::string> method, precision, quant, mixed, optimizer, kv_dtype, parallel, estimator, engine;
    std::optional<std::string> batch, seq, prompt, gen, lora_rank, lora_targets, gpus;
    std::optional<bool> grad_ckpt, flash_attn, double_quant, optimizer_in_backward, chunked_loss;
    // A requirement given directly (task presets without a model); no other
    // workload flag may then be given.
    std::optional<std::uint64_t> fixed_bytes;
    std::string fixed_label;
};

// Parses and checks every field; throws InputError naming the flag.
Workload resolve_workload(const WorkloadRequest& request, const std::vector<ModelPreset>& presets);

}  // namespace gpuadvise
