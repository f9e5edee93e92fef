#pragma once
// A workload: what the user wants to run, normalised. A `Request` (fields.hpp)
// holds the values as given with their origin; `resolve_workload` parses and
// checks them in phases (model, formats, applicability, training, tokens,
// LoRA, GPUs), fills the defaults and records where each default came from,
// so the CLI, `batch` lines and the fuzzers all share one path.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/engines.hpp"
#include "gpuadvise/enum_table.hpp"
#include "gpuadvise/fields.hpp"
#include "gpuadvise/image.hpp"
#include "gpuadvise/layout.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/quant.hpp"
#include "gpuadvise/speculative.hpp"
#include "gpuadvise/task.hpp"

namespace gpuadvise {

enum class Method : std::uint8_t { Inference, Full, Lora, Qlora };
// Fp8 is FP8 training (--precision fp8): the linear layers' matmuls in FP8
// (Transformer Engine on Ada/Hopper, MXFP8 on Blackwell), everything else, and
// the master weights, as in bf16 mixed precision. FP8 inference is --quant fp8.
enum class Precision : std::uint8_t { Fp32, Fp16, Bf16, Fp8 };
enum class MixedPrecision : std::uint8_t { Amp, Pure };
enum class Optimizer : std::uint8_t {
    AdamW,
    AdamW8bit,
    PagedAdamW8bit,
    PagedAdamW32bit,
    Sgd,
    SgdMomentum,
    Adafactor,
    Lion
};
enum class KvDtype : std::uint8_t { Fp32, Fp16, Bf16, Fp8, Int8, Q8_0, Q4_0 };
// Zero1 is ZeRO stage 1 (DeepSpeed) or Megatron's distributed optimizer: the
// optimizer state sharded over data parallel, weights and gradients whole.
enum class Parallel : std::uint8_t { None, Ddp, Zero1, Fsdp, Zero2, Zero3, Tp, Pp };
enum class Estimator : std::uint8_t { Component, Doc };
// Activation checkpointing: none, full (each block's input kept, the block
// recomputed), selective (torchtitan's op policy: some matmul and the attention
// outputs kept too), offload (the blocks' inputs in host memory).
enum class CkptMode : std::uint8_t { None, Full, Selective, Offload };
// How torch.optim runs the step: over lists of tensors (foreach, the default on
// CUDA), one fused kernel, or a Python loop over parameters.
enum class OptimizerImpl : std::uint8_t { Foreach, Fused, ForLoop };
// What the training loss keeps of the logits, by harness (docs/memory-model.md).
enum class Loss : std::uint8_t { Upcast, Bf16, Chunked, Fused };
enum class LoraTarget : std::uint8_t { Q, K, V, O, Gate, Up, Down, LmHead };
// The training harness: the library whose code path a run takes. Its
// defaults (loss, LoRA dropout, double quantisation, checkpointing) and the
// mechanisms of its code path (which tensors stay fp32, what a LoRA layer
// saves for backward) are a HarnessProfile (workload_harness.cpp, each with
// its source; docs/memory-model.md, "Harnesses").
enum class Harness : std::uint8_t {
    Hf,
    Trl,
    Axolotl,
    MsSwift,
    Unsloth,
    Torchtune,
    Litgpt,
    LlamaFactory,
    QwenFinetune
};
// Training with the optimizer (and the parameters) in host memory:
// optimizer is ZeRO-Offload (DeepSpeed offload_optimizer: the fp32 master,
// the optimizer state and the step on the CPU), params also keeps the 16-bit
// parameters there (ZeRO-3 offload_param, the CPU side of ZeRO-Infinity;
// FSDP CPUOffload(offload_params=True), whose gradients go to the host too).
enum class TrainOffload : std::uint8_t { None, Optimizer, Params };
// Where the model came from.
enum class ModelOrigin : std::uint8_t { Size, Preset, HfConfig, Gguf, Safetensors, Task };

inline constexpr auto kMethods = make_enum_table<Method>({{Method::Inference, "inference"},
                                                          {Method::Lora, "lora"},
                                                          {Method::Qlora, "qlora"},
                                                          {Method::Full, "full"}});
inline constexpr auto kPrecisions = make_enum_table<Precision>({{Precision::Fp32, "fp32"},
                                                                {Precision::Fp16, "fp16"},
                                                                {Precision::Bf16, "bf16"},
                                                                {Precision::Fp8, "fp8"}});
inline constexpr auto kMixedPrecisions =
    make_enum_table<MixedPrecision>({{MixedPrecision::Amp, "amp"}, {MixedPrecision::Pure, "pure"}});
inline constexpr auto kOptimizers =
    make_enum_table<Optimizer>({{Optimizer::AdamW, "adamw"},
                                {Optimizer::AdamW8bit, "adamw-8bit"},
                                {Optimizer::PagedAdamW8bit, "paged-adamw-8bit"},
                                {Optimizer::PagedAdamW32bit, "paged-adamw-32bit"},
                                {Optimizer::Sgd, "sgd"},
                                {Optimizer::SgdMomentum, "sgd-momentum"},
                                {Optimizer::Adafactor, "adafactor"},
                                {Optimizer::Lion, "lion"}});
inline constexpr auto kKvDtypes = make_enum_table<KvDtype>({{KvDtype::Fp32, "fp32"},
                                                            {KvDtype::Fp16, "fp16"},
                                                            {KvDtype::Bf16, "bf16"},
                                                            {KvDtype::Fp8, "fp8"},
                                                            {KvDtype::Int8, "int8"},
                                                            {KvDtype::Q8_0, "q8_0"},
                                                            {KvDtype::Q4_0, "q4_0"}});
inline constexpr auto kParallels = make_enum_table<Parallel>({{Parallel::None, "none"},
                                                              {Parallel::Ddp, "ddp"},
                                                              {Parallel::Zero1, "zero1"},
                                                              {Parallel::Fsdp, "fsdp"},
                                                              {Parallel::Zero2, "zero2"},
                                                              {Parallel::Zero3, "zero3"},
                                                              {Parallel::Tp, "tp"},
                                                              {Parallel::Pp, "pp"}});
inline constexpr auto kEstimators =
    make_enum_table<Estimator>({{Estimator::Component, "component"}, {Estimator::Doc, "doc"}});
inline constexpr auto kCkptModes = make_enum_table<CkptMode>({{CkptMode::None, "none"},
                                                              {CkptMode::Full, "full"},
                                                              {CkptMode::Selective, "selective"},
                                                              {CkptMode::Offload, "offload"}});
inline constexpr auto kOptimizerImpls =
    make_enum_table<OptimizerImpl>({{OptimizerImpl::Foreach, "foreach"},
                                    {OptimizerImpl::Fused, "fused"},
                                    {OptimizerImpl::ForLoop, "for-loop"}});
inline constexpr auto kLosses = make_enum_table<Loss>({{Loss::Upcast, "upcast"},
                                                       {Loss::Bf16, "bf16"},
                                                       {Loss::Chunked, "chunked"},
                                                       {Loss::Fused, "fused"}});
inline constexpr auto kLoraTargets = make_enum_table<LoraTarget>({{LoraTarget::Q, "q"},
                                                                  {LoraTarget::K, "k"},
                                                                  {LoraTarget::V, "v"},
                                                                  {LoraTarget::O, "o"},
                                                                  {LoraTarget::Gate, "gate"},
                                                                  {LoraTarget::Up, "up"},
                                                                  {LoraTarget::Down, "down"},
                                                                  {LoraTarget::LmHead, "lm_head"}});
inline constexpr auto kHarnesses =
    make_enum_table<Harness>({{Harness::Hf, "hf"},
                              {Harness::Trl, "trl"},
                              {Harness::Axolotl, "axolotl"},
                              {Harness::MsSwift, "ms-swift"},
                              {Harness::Unsloth, "unsloth"},
                              {Harness::Torchtune, "torchtune"},
                              {Harness::Litgpt, "litgpt"},
                              {Harness::LlamaFactory, "llama-factory"},
                              {Harness::QwenFinetune, "qwen-finetune"}});
inline constexpr auto kTrainOffloads =
    make_enum_table<TrainOffload>({{TrainOffload::None, "none"},
                                   {TrainOffload::Optimizer, "optimizer"},
                                   {TrainOffload::Params, "params"}});
inline constexpr auto kModelOrigins =
    make_enum_table<ModelOrigin>({{ModelOrigin::Size, "size"},
                                  {ModelOrigin::Preset, "preset"},
                                  {ModelOrigin::HfConfig, "hf-config"},
                                  {ModelOrigin::Gguf, "gguf"},
                                  {ModelOrigin::Safetensors, "safetensors"},
                                  {ModelOrigin::Task, "task"}});

inline std::string_view to_string(Method v) {
    return kMethods.name(v);
}
inline std::string_view to_string(Precision v) {
    return kPrecisions.name(v);
}
inline std::string_view to_string(MixedPrecision v) {
    return kMixedPrecisions.name(v);
}
inline std::string_view to_string(Optimizer v) {
    return kOptimizers.name(v);
}
inline std::string_view to_string(KvDtype v) {
    return kKvDtypes.name(v);
}
inline std::string_view to_string(Parallel v) {
    return kParallels.name(v);
}
inline std::string_view to_string(Estimator v) {
    return kEstimators.name(v);
}
inline std::string_view to_string(CkptMode v) {
    return kCkptModes.name(v);
}
inline std::string_view to_string(OptimizerImpl v) {
    return kOptimizerImpls.name(v);
}
inline std::string_view to_string(Loss v) {
    return kLosses.name(v);
}
inline std::string_view to_string(LoraTarget v) {
    return kLoraTargets.name(v);
}
inline std::string_view to_string(Harness v) {
    return kHarnesses.name(v);
}
inline std::string_view to_string(TrainOffload v) {
    return kTrainOffloads.name(v);
}
inline std::string_view to_string(ModelOrigin v) {
    return kModelOrigins.name(v);
}

// The ZeRO stage a data-parallel strategy amounts to: 1 for ZeRO-1 and
// Megatron's distributed optimizer, 2, 3 for ZeRO-3 and FSDP (full shard), 0
// for DDP and the model-splitting strategies.
constexpr int zero_stage(Parallel p) {
    switch (p) {
        case Parallel::Zero1:
            return 1;
        case Parallel::Zero2:
            return 2;
        case Parallel::Zero3:
        case Parallel::Fsdp:
            return 3;
        case Parallel::None:
        case Parallel::Ddp:
        case Parallel::Tp:
        case Parallel::Pp:
            return 0;
    }
    return 0;
}

// What a training harness's code path does, each switch with the code it
// comes from (workload_harness.cpp). The defaults apply where the user gave
// no flag; the mechanisms always apply to that harness.
struct HarnessProfile {
    Harness id = Harness::Hf;
    std::string_view label;  // "Hugging Face Trainer + PEFT"
    // Defaults, where the user gave no flag.
    Loss loss = Loss::Upcast;
    OptimizerImpl optimizer_impl = OptimizerImpl::Foreach;
    double lora_dropout = 0;  // the library's default p
    bool double_quant = false;
    CkptMode ckpt = CkptMode::Full;
    std::optional<CkptMode> ckpt_multi_gpu;  // when several GPUs change it
    bool packing = false;  // fixed-shape batches (padded to the maximum length, or packed)
    std::optional<MixedPrecision> mixed;  // when it is not amp
    // Mechanisms.
    // QLoRA goes through PEFT's prepare_model_for_kbit_training, which turns
    // checkpointing on.
    bool kbit_prepare = false;
    // ... and its fp32 copies of every non-quantized parameter (embeddings,
    // output head, norms) stay fp32 in training.
    bool kbit_fp32 = false;
    // LoRA weights kept in fp32 under 16-bit compute (PEFT's
    // autocast_adapter_dtype); false: in the compute dtype. The second for
    // QLoRA.
    bool adapters_fp32 = true;
    bool qlora_adapters_fp32 = true;
    // Every linear layer is 4-bit, the output head included (Lightning
    // Fabric's BitsandbytesPrecision replaces every nn.Linear).
    bool quantizes_head = false;
    // One linear (and one LoRA input) for q, k and v together (litgpt's qkv).
    bool fused_qkv = false;
    // Unsloth's LoRA autograd functions (LoRA_MLP, LoRA_QKV, LoRA_W) save
    // the block's inputs and the gate/up outputs only.
    bool fused_lora_kernels = false;
    // torch.utils.checkpoint with use_reentrant=True (the original forward
    // records no graph); false: non-reentrant (saved-tensor hooks).
    bool reentrant_ckpt = true;
    // FSDP1 units that mix frozen and trainable parameters in one
    // FlatParameter (use_orig_params=True): gradient memory as if nothing
    // were frozen (torch FSDP's docstring).
    bool fsdp_mixed_flat = false;
    // Grouped-query attention's keys and values repeated to every query
    // head before the attention kernel, which then saves the repeated
    // copies for backward (transformers' repeat_kv before SDPA, litgpt's
    // repeat_interleave, torchtune's expand + flatten); false where the
    // kernel takes the KV heads as they are (FlashAttention-2).
    bool repeats_kv_heads = true;
    // The output head run in chunks of tokens for an adapter model, each
    // chunk's cross-entropy in the compute dtype (litgpt's LoRA GPT:
    // lm_head_chunk_size=128): the chunks' logits and log-softmax stay, the
    // gradient is one chunk's at a time.
    bool chunked_head_for_adapters = false;
    // The training loop keeps the previous step's logits until the next
    // forward returns, and through their grad_fn that step's autograd graph
    // (litgpt's fit(): `logits = model(...)` rebinds them only then; the
    // Hugging Face Trainer's training_step returns loss.detach()). Backward
    // released the graph's saved tensors, not the tensors a custom
    // autograd.Function keeps as ctx attributes (old bitsandbytes' inputs).
    bool keeps_previous_graph = false;
    // DeepSpeed's fp16/bf16 engine: the module cast to 16-bit and run
    // without torch autocast (no fp32 weights or copies on the GPU).
    bool deepspeed_half = false;
    // ... also for LoRA on one GPU (false: that script runs the Trainer's
    // autocast without DeepSpeed).
    bool deepspeed_single_gpu_lora = true;
    // Sets PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True itself.
    bool expandable_segments = false;
    // Gradient accumulation under FSDP skips the reduce-scatter of the
    // micro-steps that accumulate (accelerate's and Fabric's no_sync), so
    // every unit's gradient stays unsharded until the step that syncs (torch
    // FSDP's no_sync docstring: "gradients are accumulated in unsharded
    // form"). torchtune reduce-scatters every micro-step (FSDP2).
    bool fsdp_no_sync = true;
    // The FSDP root unit holds the parameters no block unit wraps (the token
    // embedding, the output head, the final norm): unsharded from forward to
    // the end of backward (torch FSDP1 _post_forward_reshard: "Do not free
    // the root's parameters in the post-forward"; FSDP2 sets the root's
    // reshard_after_forward to False). torchtune shards tok_embeddings and
    // output as units of their own (custom_sharded_layers).
    bool fsdp_root_holds_embeddings = true;
    // The DeepSpeed ZeRO-1/2 config its scripts ship, where it ships one:
    // reduce_bucket_size in elements (0: none shipped, nothing modelled) and
    // the buckets it holds (2 with overlap_comm's double buffers). Every
    // backward allocates them with contiguous_gradients.
    double zero_bucket_elements = 0;
    int zero_buckets = 0;
    std::string_view source;  // where the switches come from
};
const HarnessProfile& harness_profile(Harness h);

inline bool is_training(Method m) {
    return m != Method::Inference;
}
// Bytes per element of a KV cache dtype (q8_0/q4_0: ggml blocks of 32 with an fp16 scale).
double kv_dtype_bytes(KvDtype k);

// A model read from files on disk (GGUF, safetensors, a Hugging Face folder):
// exact parameter count and weight bytes, and the shape when the files give it.
struct ModelFile {
    std::string source;  // the path, for messages (sanitised)
    // What an engine is pointed at, byte for byte as the user gave it: the
    // GGUF file, or the folder holding the safetensors weights.
    std::string path;
    ModelOrigin format = ModelOrigin::Gguf;
    std::optional<Architecture> arch;
    std::uint64_t params = 0;
    std::uint64_t weight_bytes = 0;
    std::string quantization;  // "Q4_K", "BF16", ...
    std::string name = {};     // the model's own name (GGUF general.name), "" when absent
};

// What the CLI read from files for the model flags (the core does no I/O).
struct ModelInputs {
    std::optional<std::string> hf_config_text;
    std::string hf_config_source = "config.json";
    std::optional<ModelFile> model_file;
};

struct Model {
    std::string name;     // as given: "8B", "llama-3.1-8b", "config.json", a file, or a task id
    std::string hf_repo;  // a preset's Hugging Face repository ("" otherwise)
    std::string path;     // a model file's path, byte for byte (ModelFile::path); "" otherwise
    ModelOrigin origin = ModelOrigin::Size;
    Architecture arch;
    std::uint64_t params = 0;                   // total parameters
    std::uint64_t active_params = 0;            // per token (differs for MoE)
    std::optional<std::uint64_t> weight_bytes;  // exact, from a model file
    std::string file_quantization;
    const ImageModel* image = nullptr;  // an image generation or vision preset
};

// What an image or vision workload adds: the picture's size, the denoising
// steps, diffusers' offload and VAE tiling, and for video the streams.
struct ImageSettings {
    std::int64_t width = 0, height = 0;
    std::int64_t steps = 0;  // denoising steps per image (diffusion)
    // Video generation: the frames of each clip (0: an image, not a clip).
    std::int64_t frames = 0;
    CpuOffload offload = CpuOffload::None;
    // --cpu-offload was given: a ranking keeps it on every card instead of
    // offloading where the whole pipeline does not fit (rank.cpp).
    bool offload_given = false;
    ImageSetup setup = ImageSetup::Diffusers;  // --image-setup
    // Vision: activations in channels-last (NHWC) layout, which cuDNN's
    // tensor-core convolutions take without transposes (--channels-last).
    bool channels_last = false;
    bool vae_tiling = false;
    std::int64_t streams = 0;  // video: concurrent streams (0: not a video workload)
    double fps = 0;            // video: frames per second of each stream
    Codec codec = Codec::Av1;  // video: the codec the output is encoded in
};

// The images of each request (inference) or training sequence of a
// vision-language model (--images, --image-size): how many, their size, and
// what the model's preprocessing makes of one (model.hpp ImageTokens). Their
// tokens are part of `prompt` and `seq`; `count` 0: a text-only workload.
struct PromptImages {
    std::int64_t count = 0;
    std::int64_t width = 0, height = 0;  // as given (or the model's native size)
    bool size_assumed = false;           // --image-size not given
    ImageTokens each;
    // Tokens all of them add to the language model's sequence.
    std::int64_t tokens() const { return count * each.tokens; }
    // Mllama: keys and values each cross-attention layer keeps for them.
    std::int64_t cross_tokens() const { return count * each.cross_tokens; }
    bool any() const { return count > 0; }
};

// Serving sized by its load (docs/ranking.md, "Serving sized by its load"):
// --users (or --rps by Little's law) is the batch of concurrent sessions, and
// the latency targets are what the `latency` rule holds each plan to.
struct ServingLoad {
    bool given = false;                           // --users or --rps: the batch is the load
    std::optional<double> rps = std::nullopt;     // --rps: requests a second (converted to users)
    std::optional<double> ttft_s = std::nullopt;  // --ttft: the first token within this
    // --tpot or --tok-s-per-user: each session decodes at least this fast.
    std::optional<double> min_user_tokens_per_s = std::nullopt;
    // "--tpot 50ms": the words of the speed target, for the rule's message.
    std::string speed_target{};
    std::string ttft_target{};  // "--ttft 2s"
    bool has_targets() const { return ttft_s.has_value() || min_user_tokens_per_s.has_value(); }
};

// Speculative decoding (--draft): what drafts, how many tokens a step, and
// the acceptance rate the speed rests on, each with where it came from
// (docs/performance-model.md, "Speculative decoding").
struct Speculation {
    DraftKind kind = DraftKind::Model;
    // The draft as a model of its own: a preset or a size, or for MTP the
    // checkpoint's MTP layers (one decoder layer each, with the copies of the
    // embedding and head the checkpoint stores and eh_proj).
    Model draft;
    std::string given;             // as typed: "llama-3.2-1b", "1B", "mtp"
    std::int64_t tokens = 0;       // K: tokens drafted per step
    std::string tokens_basis;      // "--draft-tokens", "llama.cpp's --draft-max default", ...
    bool tokens_assumed = false;   // no engine default: data/speculative.json's assumption
    double acceptance = 0;         // alpha: the per-token acceptance rate
    std::string acceptance_basis;  // "--draft-acceptance" or the data row's pair and source
    bool acceptance_given = false;
    // MTP: the layers' weights are already in the target's weights (GLM-4.5
    // counts them); DeepSeek-V3's count leaves them out, so the draft adds them.
    bool weights_in_target = false;
    bool mtp() const { return kind == DraftKind::Mtp; }
};

struct Workload {
    Model model;
    Method method = Method::Inference;
    Precision precision = Precision::Bf16;
    Quant quant;
    bool double_quant = false;
    MixedPrecision mixed = MixedPrecision::Amp;
    Optimizer optimizer = Optimizer::AdamW;
    bool optimizer_in_backward = false;
    OptimizerImpl optimizer_impl = OptimizerImpl::Foreach;  // torch.optim's AdamW step
    std::int64_t batch = 1;
    // training: tokens per sequence; inference: the context the KV cache holds, prompt +
    // generated, or an engine's larger default context (Ollama's num_ctx) it allocates
    std::int64_t seq = 0;
    std::int64_t prompt = 0;  // inference only
    std::int64_t gen = 0;     // inference only
    bool grad_ckpt = false;   // any checkpointing: ckpt_mode != None
    CkptMode ckpt_mode = CkptMode::None;
    std::int64_t grad_accum = 1;    // micro-batches per optimizer step
    bool grad_accum_given = false;  // --grad-accum or --global-batch said it
    // --global-batch: sequences per optimizer step over the plan (sets grad_accum per layout).
    std::optional<std::int64_t> global_batch;
    Loss loss = Loss::Upcast;       // what the loss keeps of the logits (--loss, --chunked-loss)
    Harness harness = Harness::Hf;  // the training harness (--harness)
    bool harness_given = false;
    double lora_dropout = 0;  // LoRA dropout p (--lora-dropout, else the harness's)
    // bitsandbytes before 0.43.2 keeps each 4-bit layer's input for backward
    // (MatMul4Bit's ctx.tensors); --bitsandbytes VERSION.
    bool bnb_keeps_input = false;
    TrainOffload train_offload = TrainOffload::None;  // --train-offload
    // PyTorch's allocator with expandable segments (--expandable-segments).
    bool expandable_segments = false;
    // torch.utils.checkpoint's use_reentrant (--ckpt-reentrant, else the
    // harness's): false runs saved-tensor hooks, which tensors a custom
    // autograd function keeps as ctx attributes escape.
    bool reentrant_ckpt = true;
    // Every batch has the same shape (packed, or padded to a fixed length);
    // false: padded to each batch's longest sample, the Hugging Face default.
    bool packing = false;
    // The element-wise kernels around the matmuls fused (torch.compile,
    // Transformer Engine, Triton kernels); false: eager PyTorch ops.
    bool fused_kernels = false;
    bool flash_attn = true;
    std::int64_t lora_rank = 0;
    std::vector<LoraTarget> lora_targets;
    KvDtype kv_dtype = KvDtype::Bf16;
    std::int64_t gpus = 1;
    Parallel parallel = Parallel::None;  // with a layout: how data parallel shards its state
    // Training split beyond data parallel (tensor, pipeline, context, expert
    // parallel); all ones unless a plan chose one or the user fixed it.
    Layout layout;
    LayoutRequest layout_request;  // the sizes the user fixed (--tp, --pp, --cp, --ep, --vpp)
    Estimator estimator = Estimator::Component;
    const Engine* engine = nullptr;  // inference only
    bool engine_given = false;       // chosen by the user rather than by default
    // A memory need given directly instead of modelled (non-LLM task presets
    // such as the document's SDXL row): the requirement is this many bytes.
    std::optional<std::uint64_t> fixed_bytes;
    const TaskPreset* task = nullptr;
    ImageSettings image;  // image and vision workloads only
    PromptImages images;  // a vision-language model's images per sequence (--images)
    ServingLoad load{};   // --users, --rps and the latency targets (inference only)
    // --draft: speculative decoding (language-model inference only).
    std::optional<Speculation> speculation = std::nullopt;
    // The user's measured runs (calibrate), applied where the key matches;
    // null when there is no calibration file. Owned by the caller.
    const struct Calibration* calibration = nullptr;
    // What the user gave rather than the defaults filled (apply_card_defaults
    // changes only defaults).
    bool precision_given = false;
    bool quant_given = false;
    bool optimizer_given = false;
    // --seq or --context: the context is the user's, not an engine's default
    // (--prompt and --gen say what a request holds, not what the engine
    // allocates).
    bool context_given = false;
    // "batch=4 (document §4 QLoRA recipe)": every value the user did not give.
    std::vector<std::string> assumed;
    // Accepted combinations worth a second look ("--gpus 1 ignores --parallel tp").
    std::vector<std::string> warnings;

    bool trains() const { return !fixed_bytes && is_training(method); }
    bool is_fixed() const { return fixed_bytes.has_value(); }
    bool is_image() const { return model.image != nullptr; }
    bool is_diffusion() const { return model.image && model.image->diffusion; }
    // A video diffusion model's clips (--frames): seconds per clip, not images.
    bool generates_video() const { return is_diffusion() && image.frames > 0; }
    // A language model, modelled (not a task floor, not an image model).
    bool is_language() const { return !is_fixed() && !is_image(); }
    // An embedding or reranker model: one forward per sequence, pooled or
    // scored; no KV cache, no decode (workload_embedding.cpp).
    bool embeds() const { return is_language() && model.arch.pools(); }
    bool uses_lora() const { return method == Method::Lora || method == Method::Qlora; }
    bool targets(LoraTarget t) const;
    const HarnessProfile& profile() const { return harness_profile(harness); }
};

// Parses and checks every workload field of `request`; throws InputError
// naming the field's origin. `inputs` holds what the CLI read from files.
Workload resolve_workload(const Request& request, const ModelInputs& inputs,
                          const std::vector<ModelPreset>& presets);

std::string lora_targets_text(const Workload& w);

// An embedding or reranker workload's sequences in one forward: the whole
// batch, or on an engine that runs micro-batches (llama.cpp's n_ubatch) the
// whole sequences one holds, at least one (workload_embedding.cpp).
std::int64_t pooled_sequences_at_once(const Workload& w);

// The defaults that depend on the cards a plan runs on, applied to its
// workload: an image or vision model, and llama.cpp, computes in fp16 on
// cards without bf16 (P40, V100, T4), an engine with a default context by memory (Ollama's num_ctx
// by total VRAM) gets it, and a framework that trains on the cards' platform (mlx-lm on Apple
// silicon) trains the plan, with its QLoRA base format and optimizer. Only values the user did not
// give change, each recorded in `assumed` when `record` (a plan that is only ranked needs the
// values, not the sentences). Returns whether anything changed. The ranking applies it to each
// plan; `fit` and the commands with --gpu to their box.
bool apply_card_defaults(Workload& w, std::span<const Gpu* const> cards, bool record = true);
bool apply_card_defaults(Workload& w, const Gpu& gpu, std::int64_t count, bool record = true);
// Whether two workloads agree on every value apply_card_defaults and a plan's
// engine may set (engine, precision, context, weight format, optimizer): two
// plans of one workload that agree share their memory estimates.
bool same_card_defaults(const Workload& a, const Workload& b);

// The strategy of a multi-GPU workload the user did not choose one for:
// sharding for training, tensor parallel for inference.
Parallel default_parallel(const Workload& w);

}  // namespace gpuadvise
