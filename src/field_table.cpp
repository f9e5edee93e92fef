// The field table: every option the program takes, once. Flags, batch keys,
// settings, --help, completions, the man page and the README's flag table
// are read from it. It sits at the top of the core, beside the modules whose
// choices it lists; the vocabulary (fields.hpp: Field, FieldSpec, Request)
// stays at the bottom, so any module may take a Request.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <stdexcept>

#include "gpuadvise/calibration.hpp"
#include "gpuadvise/catalog.hpp"
#include "gpuadvise/engines.hpp"
#include "gpuadvise/fields.hpp"
#include "gpuadvise/launch.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/network.hpp"
#include "gpuadvise/platform.hpp"
#include "gpuadvise/quant.hpp"
#include "gpuadvise/rank.hpp"
#include "gpuadvise/table.hpp"
#include "gpuadvise/task.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {
namespace {

template <const auto& Table>
std::vector<std::string> choices_of() {
    return Table.choices();
}

// The markets of the catalog's region-restricted cards.
std::vector<std::string> region_choices() {
    std::vector<std::string> out;
    for (const Gpu& g : embedded::catalog().gpus)
        if (g.region && std::find(out.begin(), out.end(), *g.region) == out.end())
            out.emplace_back(*g.region);
    return out;
}

// --draft: the word mtp, then the language presets (a size is accepted too).
std::vector<std::string> draft_choices() {
    std::vector<std::string> out{"mtp"};
    for (const ModelPreset& p : embedded::model_presets())
        if (!p.image) out.emplace_back(p.id);
    return out;
}

std::vector<std::string> gpu_choices() {
    std::vector<std::string> ids;
    for (const Gpu& g : embedded::catalog().gpus) ids.emplace_back(g.id);
    return ids;
}

// The table. Order is the order of --help and of the man page.
const std::vector<FieldSpec>& table() {
    static const std::vector<FieldSpec> t{
        // --- the model --------------------------------------------------------
        {Field::Model, "--model", "-m", "model", FieldKind::Value, kModelGroup, "NAME|SIZE",
         "Model: a size (8B, 1.5B, 350M) or a preset (llama-3.1-8b; 'gpuadvise models' lists them)",
         "", Applies::Always},
        {Field::HfConfig, "--hf-config", "", "hf_config", FieldKind::Value, kModelGroup, "FILE",
         "Hugging Face config.json of the model ('-' reads stdin)", "", Applies::Always, false,
         true},
        {Field::Gguf, "--gguf", "", "gguf", FieldKind::Value, kModelGroup, "FILE",
         "A GGUF model file: shape, exact parameters and weight bytes from its header", "",
         Applies::Always, false, true},
        {Field::Safetensors, "--safetensors", "", "safetensors", FieldKind::Value, kModelGroup,
         "FILE",
         "A .safetensors file or model.safetensors.index.json: exact parameters and bytes (add "
         "--hf-config for the shape)",
         "", Applies::Always, false, true},
        {Field::ModelDir, "--model-dir", "", "model_dir", FieldKind::Value, kModelGroup, "DIR",
         "A Hugging Face model folder (config.json + safetensors)", "", Applies::Always, false,
         true},
        {Field::Task, "--task", "", "task", FieldKind::Value, kModelGroup, "TASK",
         "A row of the source document's decision table: sets the model, method and the row's "
         "constraints",
         "", Applies::Always, false, false, task_choices},
        {Field::Gpu, "--gpu", "", "gpu", FieldKind::Value, kGpuGroup, "GPU",
         "The card to answer for: an id, alias or name ('gpuadvise gpus' lists them; 'local' for "
         "this machine's)",
         "", Applies::Always, false, false, gpu_choices},
        // --- the workload -------------------------------------------------------
        {Field::Method, "--method", "", "method", FieldKind::Value, kWorkloadGroup, "METHOD",
         "What to do with the model", "inference", Applies::Model, false, false,
         choices_of<kMethods>},
        {Field::Precision, "--precision", "", "precision", FieldKind::Value, kWorkloadGroup,
         "DTYPE",
         "Compute dtype; fp8 is FP8 training (Transformer Engine on Ada/Hopper, MXFP8 on "
         "Blackwell), FP8 serving is --quant fp8",
         "bf16; fp16 for qlora, the compute dtype of the document's §4 recipe", Applies::Model,
         false, false, choices_of<kPrecisions>},
        {Field::Quant, "--quant", "", "quant", FieldKind::Value, kWorkloadGroup, "FORMAT",
         "Weight format; parametric ones take a number: exl2:4.65 (bits), gptq-int4:32 (group)",
         "none; nf4 for qlora (document §4)", Applies::Model, false, false, quant_choices},
        {Field::DoubleQuant, "--double-quant", "", "double_quant", FieldKind::Toggle,
         kWorkloadGroup, "", "Double quantisation of nf4/fp4 scales", "on for qlora (document §4)",
         Applies::Model},
        {Field::Bitsandbytes, "--bitsandbytes", "", "bitsandbytes", FieldKind::Value,
         kWorkloadGroup, "VERSION",
         "The bitsandbytes release of a 4-bit QLoRA run: before 0.43.2 each 4-bit layer keeps "
         "its input for backward",
         "a current release (0.43.2 or later)", Applies::Training},
        {Field::MixedPrecision, "--mixed-precision", "", "mixed_precision", FieldKind::Value,
         kWorkloadGroup, "MODE",
         "amp: fp32 master weights with 16-bit compute; pure: everything 16-bit",
         "amp for training, pure for inference", Applies::Model, false, false,
         choices_of<kMixedPrecisions>},
        {Field::Optimizer, "--optimizer", "", "optimizer", FieldKind::Value, kWorkloadGroup,
         "OPTIMIZER", "Training optimizer", "adamw; paged-adamw-32bit for qlora (document §4)",
         Applies::Training, false, false, choices_of<kOptimizers>},
        {Field::OptimizerInBackward, "--optimizer-in-backward", "", "optimizer_in_backward",
         FieldKind::Switch, kWorkloadGroup, "",
         "Fuse the optimizer step into backward (no full gradient buffer)", "off",
         Applies::Training},
        {Field::OptimizerImpl, "--optimizer-impl", "", "optimizer_impl", FieldKind::Value,
         kWorkloadGroup, "IMPL",
         "How torch.optim's AdamW steps: foreach allocates a temporary of one state's size "
         "during step(); fused and for-loop do not",
         "foreach (torch.optim's default on CUDA)", Applies::Training, false, false,
         choices_of<kOptimizerImpls>},
        {Field::KvDtype, "--kv-dtype", "", "kv_dtype", FieldKind::Value, kWorkloadGroup, "DTYPE",
         "KV cache dtype (q8_0/q4_0: llama.cpp)", "the compute precision", Applies::Inference,
         false, false, choices_of<kKvDtypes>, "one forward per sequence keeps no KV cache"},
        {Field::Batch, "--batch", "", "batch", FieldKind::Value, kWorkloadGroup, "N",
         "Micro-batch per GPU (training) or concurrent sequences (inference)",
         "4 for training (document §4: batch 4 x grad-accum 8); 1 for inference", Applies::Model},
        {Field::Seq, "--seq", "", "seq", FieldKind::Value, kWorkloadGroup, "N",
         "Tokens per sequence (training) or context = prompt + gen (inference)",
         "512 for training; 4096 for inference", Applies::Model},
        {Field::Prompt, "--prompt", "", "prompt", FieldKind::Value, kWorkloadGroup, "N",
         "Prompt tokens", "--seq minus --gen", Applies::Inference, false, false, nullptr,
         "use --seq for the tokens of each sequence"},
        {Field::Gen, "--gen", "", "gen", FieldKind::Value, kWorkloadGroup, "N", "Generated tokens",
         "min(512, seq/4)", Applies::Inference, false, false, nullptr,
         "nothing is generated; --seq is the tokens of each sequence"},
        {Field::Images, "--images", "", "images", FieldKind::Value, kWorkloadGroup, "N",
         "Images in each request (inference) or sequence (training) of a vision-language model: "
         "their tokens join the prompt, the vision encoder runs on them",
         "none (text only)", Applies::Model, false, false, nullptr, "the model reads text only"},
        {Field::ImageSize, "--image-size", "", "image_size", FieldKind::Value, kWorkloadGroup,
         "WxH",
         "Size of each of the --images in pixels, e.g. 1280x720 (a single number is a square)",
         "the model's native input (its vision_config image_size)", Applies::Model, false, false,
         nullptr, "the model reads text only"},
        {Field::Users, "--users", "", "users", FieldKind::Value, kWorkloadGroup, "N",
         "Concurrent sessions to serve: the batch each plan runs at (instead of --batch)", "",
         Applies::Inference, false, false, nullptr, "use --batch for the sequences run at once"},
        {Field::Rps, "--rps", "", "rps", FieldKind::Value, kWorkloadGroup, "R",
         "Requests a second to serve: sessions = R x (--ttft + --gen x --tpot), the time a "
         "request that meets the targets takes (Little's law); needs --tpot or --tok-s-per-user",
         "", Applies::Inference, false, false, nullptr,
         "use --batch for the sequences run at once"},
        {Field::Context, "--context", "", "context", FieldKind::Value, kWorkloadGroup, "TOKENS",
         "Tokens per session (prompt + generated): the KV cache each one holds (as --seq)", "4096",
         Applies::Inference},
        {Field::Ttft, "--ttft", "", "ttft", FieldKind::Value, kWorkloadGroup, "TIME",
         "Time to first token target (2s, 500ms): plans whose prefill of the batch takes longer "
         "do not fit",
         "none", Applies::Inference, false, false, nullptr,
         "there is no first token; the JSON's batch_seconds is a batch's latency"},
        {Field::Tpot, "--tpot", "", "tpot", FieldKind::Value, kWorkloadGroup, "TIME",
         "Time per output token target for each session (50ms): plans slower per session do "
         "not fit",
         "none", Applies::Inference, false, false, nullptr,
         "nothing is decoded; the speed is sequences a second"},
        {Field::TokSPerUser, "--tok-s-per-user", "", "tok_s_per_user", FieldKind::Value,
         kWorkloadGroup, "TOK/S",
         "The same target as a rate: each session decodes at least this fast (20)", "none",
         Applies::Inference, false, false, nullptr,
         "nothing is decoded; the speed is sequences a second"},
        {Field::GradCkpt, "--grad-ckpt", "", "grad_ckpt", FieldKind::Toggle, kWorkloadGroup, "",
         "Gradient (activation) checkpointing",
         "on for training (document §2.1 example and §4 recipe)", Applies::Training},
        {Field::CkptMode, "--ckpt-mode", "", "ckpt_mode", FieldKind::Value, kWorkloadGroup, "MODE",
         "Checkpointing variant: full (each block recomputed), selective (torchtitan's op policy "
         "keeps matmul and attention outputs), offload (block inputs in host memory: torchtune, "
         "Unsloth) or none; --grad-ckpt is full, --no-grad-ckpt none",
         "full (as --grad-ckpt)", Applies::Training, false, false, choices_of<kCkptModes>},
        {Field::CkptReentrant, "--ckpt-reentrant", "", "ckpt_reentrant", FieldKind::Toggle,
         kWorkloadGroup, "",
         "Gradient checkpointing through torch.utils.checkpoint with use_reentrant=True (the "
         "checkpointed forward records no graph); off: non-reentrant (saved-tensor hooks), whose "
         "stored layers still hold what a custom autograd function keeps as ctx attributes "
         "(bitsandbytes before 0.43.2: each 4-bit layer's input)",
         "the harness's: off for trl, axolotl and torchtune, on otherwise", Applies::Training},
        {Field::GradAccum, "--grad-accum", "", "grad_accum", FieldKind::Value, kWorkloadGroup, "N",
         "Micro-batches per optimizer step (gradient accumulation): a step is N micro-steps", "1",
         Applies::Training},
        {Field::FlashAttn, "--flash-attn", "", "flash_attn", FieldKind::Toggle, kWorkloadGroup, "",
         "Fused attention (FlashAttention/SDPA); off materialises the score matrix", "on",
         Applies::Model},
        {Field::Loss, "--loss", "", "loss", FieldKind::Value, kWorkloadGroup, "KIND",
         "What the loss keeps per logit: upcast (HF Trainer's fp32 copy, ~16 B), bf16 (in the "
         "compute dtype, ~6 B), chunked (torchtune, litgpt: the 16-bit logits), fused "
         "(Liger/Unsloth linear-cross-entropy: none)",
         "upcast (Hugging Face's ForCausalLMLoss)", Applies::Training, false, false,
         choices_of<kLosses>},
        {Field::ChunkedLoss, "--chunked-loss", "", "chunked_loss", FieldKind::Switch,
         kWorkloadGroup, "", "The same as --loss chunked (torchtune CEWithChunkedOutputLoss)",
         "off", Applies::Training},
        {Field::Packing, "--packing", "", "packing", FieldKind::Toggle, kWorkloadGroup, "",
         "Fixed-shape batches (packed, or padded to one fixed length); off: each batch is padded "
         "to its longest sample, and the allocator keeps blocks of earlier shapes",
         "off (Hugging Face collators pad each batch to its longest sample)", Applies::Training},
        {Field::FusedKernels, "--fused-kernels", "", "fused_kernels", FieldKind::Toggle,
         kWorkloadGroup, "",
         "The element-wise work around the matmuls in fused kernels (torch.compile, Transformer "
         "Engine, Unsloth's or Liger's Triton kernels); off: eager PyTorch ops, one kernel each "
         "(RMSNorm's fp32 upcast, rotary, SwiGLU, LoRA's scaling and sum)",
         "off with --harness (on for unsloth); on for full training without one (a pretraining "
         "framework)",
         Applies::Training},
        {Field::ExpandableSegments, "--expandable-segments", "", "expandable_segments",
         FieldKind::Toggle, kWorkloadGroup, "",
         "PyTorch's allocator with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: segments "
         "grow in place, so a step's freed blocks are not stranded",
         "off (torch's default); on for --harness torchtune, which sets it", Applies::Training},
        {Field::Harness, "--harness", "", "harness", FieldKind::Value, kWorkloadGroup, "HARNESS",
         "The training library: its defaults (loss, LoRA dropout, checkpointing, double "
         "quantisation) and what its code path keeps (fp32 upcasts, LoRA inputs, fused kernels)",
         "hf (Transformers Trainer + PEFT) with the document's defaults", Applies::Training, false,
         false, choices_of<kHarnesses>},
        {Field::LoraRank, "--lora-rank", "", "lora_rank", FieldKind::Value, kWorkloadGroup, "R",
         "LoRA rank", "64 (document §4)", Applies::Lora},
        {Field::LoraTargets, "--lora-targets", "", "lora_targets", FieldKind::Value, kWorkloadGroup,
         "LIST", "LoRA modules: q,v | all-linear | a list of q,k,v,o,gate,up,down,mlp,lm_head",
         "q,v (document §4)", Applies::Lora},
        {Field::LoraDropout, "--lora-dropout", "", "lora_dropout", FieldKind::Value, kWorkloadGroup,
         "P",
         "LoRA dropout: above 0 every adapter keeps its own dropped copy of its input and a "
         "mask for backward",
         "the harness's (0 for PEFT, torchtune, Unsloth; 0.05 for litgpt, ms-swift)",
         Applies::Lora},
        {Field::Gpus, "--gpus", "", "gpus", FieldKind::Value, kWorkloadGroup, "N",
         "GPUs in the plan", "1 for estimate and check; 1, 2, 4, 8 tried when ranking",
         Applies::Model},
        {Field::Parallel, "--parallel", "", "parallel", FieldKind::Value, kWorkloadGroup,
         "STRATEGY", "Multi-GPU strategy", "fsdp for training, tp for inference", Applies::Model,
         false, false, choices_of<kParallels>},
        {Field::TrainOffload, "--train-offload", "", "train_offload", FieldKind::Value,
         kWorkloadGroup, "WHAT",
         "Training with host memory: optimizer (ZeRO-Offload: fp32 master, state and step on "
         "the CPU; zero1/zero2/zero3), params (also the 16-bit parameters: ZeRO-3 offload_param, "
         "FSDP cpu_offload; zero3 or fsdp); priced as PCIe traffic per step",
         "none", Applies::Training, false, false, choices_of<kTrainOffloads>},
        {Field::Tp, "--tp", "", "tp", FieldKind::Value, kWorkloadGroup, "N",
         "Training beyond data parallel: tensor-parallel size (inside a node's NVLink domain; "
         "divides the attention and KV heads)",
         "searched on multi-node plans (1 otherwise)", Applies::Training},
        {Field::Pp, "--pp", "", "pp", FieldKind::Value, kWorkloadGroup, "N",
         "Pipeline-parallel stages (1F1B schedule; bubble (pp-1)/(micro-batches x vpp))",
         "searched on multi-node plans (1 otherwise)", Applies::Training},
        {Field::Cp, "--cp", "", "cp", FieldKind::Value, kWorkloadGroup, "N",
         "Context-parallel size: each sequence split over N GPUs (ring attention)",
         "searched for sequences of 16K tokens or more (1 otherwise)", Applies::Training},
        {Field::Ep, "--ep", "", "ep", FieldKind::Value, kWorkloadGroup, "N",
         "Expert-parallel size: an MoE model's routed experts split over N data-parallel ranks",
         "searched for MoE models on multi-node plans (1 otherwise)", Applies::Training},
        {Field::Vpp, "--vpp", "", "vpp", FieldKind::Value, kWorkloadGroup, "N",
         "Interleaved pipeline: model chunks per pipeline stage (divides the bubble by N)",
         "searched: 1, 2 or 4 where the layers divide", Applies::Training},
        {Field::GlobalBatch, "--global-batch", "", "global_batch", FieldKind::Value, kWorkloadGroup,
         "SEQS",
         "Sequences per optimizer step over the whole plan (Megatron's --global-batch-size): "
         "sets the micro-batches per step as global / (dp x batch)",
         "--grad-accum; pipelines: 4 micro-batches per stage", Applies::Training},
        {Field::Engine, "--engine", "", "engine", FieldKind::Value, kWorkloadGroup, "ENGINE",
         "Inference engine", "vllm; llama.cpp for GGUF formats", Applies::Inference, false, false,
         engine_choices},
        {Field::Draft, "--draft", "", "draft", FieldKind::Value, kWorkloadGroup, "MODEL",
         "Speculative decoding: the draft model that proposes tokens for the target to verify (a "
         "preset sharing its tokenizer, llama-3.2-1b, or a size, 1B), or mtp for the "
         "checkpoint's own multi-token-prediction layers (DeepSeek-V3/R1, GLM-4.5)",
         "none", Applies::Inference, false, false, draft_choices,
         "speculative decoding applies to generation"},
        {Field::DraftTokens, "--draft-tokens", "", "draft_tokens", FieldKind::Value, kWorkloadGroup,
         "K",
         "Speculative decoding: tokens the draft proposes per step (vLLM num_speculative_tokens, "
         "llama.cpp --draft-max)",
         "the engine's (llama.cpp 16, vLLM MTP: the checkpoint's MTP layers), else 5, assumed "
         "(data/speculative.json)",
         Applies::Inference, false, false, nullptr, "speculative decoding applies to generation"},
        {Field::DraftAcceptance, "--draft-acceptance", "", "draft_acceptance", FieldKind::Value,
         kWorkloadGroup, "P",
         "Speculative decoding: the share of drafted tokens the target accepts (0 to 1); the "
         "speed with a draft is an estimate that rests on it",
         "a published rate (data/speculative.json): the nearest size ratio of Leviathan et al. "
         "2023 (0.61-0.75), 0.85 for MTP (DeepSeek-V3 report)",
         Applies::Inference, false, false, nullptr, "speculative decoding applies to generation"},
        {Field::Estimator, "--estimator", "", "estimator", FieldKind::Value, kWorkloadGroup, "NAME",
         "component (the validated model) or doc (the source document's rule, §2.1)", "component",
         Applies::Model, false, false, choices_of<kEstimators>},
        // --- image generation, vision and video --------------------------------------
        {Field::Resolution, "--resolution", "", "resolution", FieldKind::Value, kWorkloadGroup,
         "WxH", "Image size in pixels, e.g. 1024x1024 (a single number is a square)",
         "the model's default (1024 for SDXL and FLUX, 224 for ResNet)", Applies::Image},
        {Field::Frames, "--frames", "", "frames", FieldKind::Value, kWorkloadGroup, "N",
         "Video generation: frames of each clip (1 + a multiple of the model's temporal "
         "compression, e.g. 81 for Wan)",
         "the model's default (81 for Wan 2.1)", Applies::Diffusion},
        {Field::CpuOffload, "--cpu-offload", "", "cpu_offload", FieldKind::Value, kWorkloadGroup,
         "MODE",
         "diffusers offload: model (one component on the GPU at a time) or sequential (one "
         "layer)",
         "none", Applies::Diffusion, false, false, choices_of<kCpuOffloads>},
        {Field::ImageSetup, "--image-setup", "", "image_setup", FieldKind::Value, kWorkloadGroup,
         "SETUP",
         "Software the pipeline runs in: diffusers (its pipelines' defaults) or comfyui (models "
         "loaded when needed and moved out when another needs the memory, 20 steps, the VAE in "
         "bf16)",
         "diffusers", Applies::Diffusion, false, false, choices_of<kImageSetups>},
        {Field::VaeTiling, "--vae-tiling", "", "vae_tiling", FieldKind::Switch, kWorkloadGroup, "",
         "Decode the image in tiles, one image at a time (diffusers enable_vae_tiling)", "off",
         Applies::Diffusion},
        {Field::ChannelsLast, "--channels-last", "", "channels_last", FieldKind::Toggle,
         kWorkloadGroup, "",
         "Vision: activations in channels-last (NHWC) layout, as NVIDIA DeepLearningExamples' "
         "AMP recipes run them",
         "on for AMP training (DeepLearningExamples' configs.yml), else off", Applies::Image},
        {Field::Streams, "--streams", "", "streams", FieldKind::Value, kWorkloadGroup, "N",
         "Video: concurrent streams, each decoded, run through the model and encoded",
         "1 for --task video", Applies::Image},
        {Field::Fps, "--fps", "", "fps", FieldKind::Value, kWorkloadGroup, "N",
         "Video: frames per second of each stream", "30", Applies::Image},
        {Field::Codec, "--codec", "", "codec", FieldKind::Value, kWorkloadGroup, "CODEC",
         "Video: the codec each stream is encoded in", "av1 (the source document's video row)",
         Applies::Image, false, false, choices_of<kCodecs>},
        // --- calibration from the user's own runs -------------------------------------
        {Field::Calibration, "--calibration", "", "calibration", FieldKind::Value, kWorkloadGroup,
         "FILE",
         "Calibration file of measured runs ('gpuadvise calibrate' appends to it): estimates of "
         "workloads like them are corrected",
         "calibration.jsonl in the config folder, when it exists", Applies::Always, true, true},
        {Field::MeasuredMemory, "--measured-memory", "", "measured_memory", FieldKind::Value,
         kCalibrateGroup, "SIZE", "calibrate: the peak your run measured, e.g. 16.4GiB", "",
         Applies::Always},
        {Field::Metric, "--metric", "", "metric", FieldKind::Value, kCalibrateGroup, "METRIC",
         "calibrate: what the peak counts (torch max_memory_allocated / max_memory_reserved, or "
         "nvidia-smi)",
         "allocated", Applies::Always, false, false, choices_of<kMemoryMetrics>},
        {Field::MeasuredSpeed, "--measured-speed", "", "measured_speed", FieldKind::Value,
         kCalibrateGroup, "RATE",
         "calibrate: the speed your run measured: 2.1s/step, 35tok/s, "
         "0.5img/s or 12s/img",
         "", Applies::Always},
        {Field::FromLog, "--from-log", "", "from_log", FieldKind::Value, kCalibrateGroup, "FILE",
         "calibrate: read the peak from a log (torch memory_summary, torchtune memory stats, "
         "nvidia-smi CSV, llama.cpp buffer sizes)",
         "", Applies::Always, false, true},
        // --- the job --------------------------------------------------------------
        {Field::Tokens, "--tokens", "", "tokens", FieldKind::Value, kJobGroup, "N",
         "Job size: training tokens (or tokens to generate), e.g. 2B", "", Applies::Model},
        {Field::Chinchilla, "--chinchilla", "", "chinchilla", FieldKind::Switch, kJobGroup, "",
         "Job size: 20 training tokens per parameter, the compute-optimal size of Hoffmann et al. "
         "2022 (instead of --tokens)",
         "off", Applies::Training},
        {Field::Steps, "--steps", "", "steps", FieldKind::Value, kJobGroup, "N",
         "Job size: optimizer steps of one micro-batch per GPU; for image generation the "
         "denoising steps per image",
         "the pipeline's default for image generation", Applies::Model},
        {Field::Epochs, "--epochs", "", "epochs", FieldKind::Value, kJobGroup, "E",
         "Job size: passes over --dataset-tokens", "", Applies::Training},
        {Field::DatasetTokens, "--dataset-tokens", "", "dataset_tokens", FieldKind::Value,
         kJobGroup, "N", "Tokens in the training set, e.g. 50M", "", Applies::Training},
        {Field::AmortizeYears, "--amortize-years", "", "amortize_years", FieldKind::Value,
         kJobGroup, "Y", "Purchase price spread over this many years", "3", Applies::Model, true},
        {Field::KwhPrice, "--kwh-price", "", "kwh_price", FieldKind::Value, kJobGroup, "USD",
         "Energy price per kWh", "0.15", Applies::Model, true},
        {Field::Pue, "--pue", "", "pue", FieldKind::Value, kJobGroup, "X",
         "Power usage effectiveness of the facility (total over IT power, 1.0 to 3.0): scales the "
         "job's energy and its energy cost",
         "1.56 (Uptime Institute's 2024 survey average; data/energy.json)", Applies::Model, true},
        {Field::CloudPrice, "--cloud-price-per-gpu-hour", "", "cloud_price_per_gpu_hour",
         FieldKind::Value, kJobGroup, "USD",
         "Rent instead of buy: one price per GPU-hour for every card (as --rent, at this price)",
         "", Applies::Model, true},
        {Field::Rent, "--rent", "", "rent", FieldKind::Switch, kJobGroup, "",
         "Rent instead of buy: each card at the median on-demand price of "
         "data/cloud_prices.json, host included; value is tokens per dollar of rent, a job costs "
         "its GPU-hours and --budget is the job's rental cost",
         "off (buy)", Applies::Always, true},
        {Field::Platform, "--platform", "", "platform", FieldKind::Value, kJobGroup, "PLATFORM",
         "The host every plan goes into (data/platforms.json); a plan it cannot hold does not fit",
         "the smallest that holds the plan's cards", Applies::Always, true, false,
         platform_choices},
        {Field::HaveHost, "--have-host", "", "have_host", FieldKind::Switch, kJobGroup, "",
         "You own the host already: only the GPUs count in price, value and cost", "off",
         Applies::Always, true},
        // --- the host ---------------------------------------------------------------
        {Field::Os, "--os", "", "os", FieldKind::Value, kHostGroup, "OS",
         "Operating system: Windows reserves ~1.5 GiB for the display", "linux", Applies::Always,
         true, false, choices_of<kOses>},
        {Field::Offload, "--offload", "", "offload", FieldKind::Value, kHostGroup, "MODE",
         "Keep part of the model in host memory (llama.cpp-style engines): auto (as llama.cpp's "
         "--fit: MoE experts first, then whole layers), none, experts (as --cpu-moe) or N "
         "layers on the GPU (as -ngl)",
         "none (fit: auto)", Applies::Inference, true},
        {Field::CpuMoe, "--cpu-moe", "", "cpu_moe", FieldKind::Switch, kHostGroup, "",
         "As llama.cpp's --cpu-moe: every MoE layer's experts in host memory (--offload experts)",
         "off", Applies::Inference},
        {Field::NCpuMoe, "--n-cpu-moe", "", "n_cpu_moe", FieldKind::Value, kHostGroup, "N",
         "As llama.cpp's --n-cpu-moe N: the experts of the first N MoE layers in host memory", "",
         Applies::Inference},
        {Field::Ram, "--ram", "", "ram", FieldKind::Value, kHostGroup, "SIZE",
         "Host memory for offloaded weights", "the platform's (data/platforms.json)",
         Applies::Model, true},
        {Field::RamBandwidth, "--ram-bandwidth", "", "ram_bandwidth", FieldKind::Value, kHostGroup,
         "GB/s", "Host memory bandwidth, which bounds offloaded layers",
         "the platform's peak (channels x data rate)", Applies::Model, true},
        {Field::Vram, "--vram", "", "vram", FieldKind::Value, kFitGroup, "SIZE",
         "The card's memory: with --gpu, instead of the catalog's (a laptop variant); alone, a "
         "card of that size with unknown speed",
         "", Applies::Always},
        {Field::Network, "--network", "", "network", FieldKind::Value, kHostGroup, "FABRIC",
         "The fabric between nodes of a plan beyond one server (data/networks.json)",
         "ib-ndr (assumed, said so in the plan)", Applies::Always, true, false, network_choices},
        {Field::GpusPerNode, "--gpus-per-node", "", "gpus_per_node", FieldKind::Value, kHostGroup,
         "N", "GPUs per node of a plan beyond one server (at most what the platform holds)",
         "the server platform's (8 for HGX and OAM boards)", Applies::Always},
        // --- ranking ------------------------------------------------------------------
        {Field::Top, "--top", "", "top", FieldKind::Value, kRankGroup, "N",
         "How many plans to show", "10", Applies::Always, true},
        {Field::RankBy, "--rank-by", "", "rank_by", FieldKind::Value, kRankGroup, "KEY",
         "value (tokens/s per dollar of the whole system), speed, cost (of the job), power or "
         "memory (headroom)",
         "value", Applies::Always, true, false, rank_by_choices},
        {Field::MaxGpus, "--max-gpus", "", "max_gpus", FieldKind::Value, kRankGroup, "N",
         "Largest plan to try (1, 2, 4, 8, ... up to N)", "8", Applies::Always},
        {Field::Budget, "--budget", "", "budget", FieldKind::Value, kRankGroup, "USD",
         "What you will spend: plans whose system costs more do not fit; when none fits once "
         "a computer is counted, the cards alone (--have-host assumed, said so)",
         "", Applies::Always},
        {Field::Deadline, "--deadline", "", "deadline", FieldKind::Value, kRankGroup, "TIME",
         "A job (--tokens, --steps, ...) must finish within this: 30d, 720h, 6w; plans that "
         "finish later do not fit and the rest rank by cost",
         "none: a job longer than the long-job rule's max_days (120, data/rules.json) ranks "
         "after every plan that finishes within it",
         Applies::Training},
        {Field::Vendor, "--vendor", "", "vendor", FieldKind::Value, kRankGroup, "VENDOR",
         "Only this vendor's cards", "", Applies::Always, false, false, choices_of<kVendors>},
        {Field::Segment, "--segment", "", "segment", FieldKind::Value, kRankGroup, "SEGMENT",
         "Only this market segment", "", Applies::Always, false, false, choices_of<kSegments>},
        {Field::Region, "--region", "", "region", FieldKind::Value, kRankGroup, "REGION",
         "Also rank the cards sold only in this market (cn: H20 and the other China SKUs)",
         "none: region-restricted cards are left out", Applies::Always, true, false,
         region_choices},
        {Field::Explain, "--explain", "", "explain", FieldKind::Switch, kRankGroup, "",
         "Print every rule that fired for each shown plan", "off", Applies::Always},
        {Field::Emit, "--emit", "", "emit", FieldKind::Value, kRankGroup, "TOOL",
         "Print the launch command or config for the top plan: auto (the plan's engine; axolotl "
         "or accelerate for training) or a tool",
         "", Applies::Always, false, false, choices_of<kLaunchKinds>},
        {Field::KeepOrder, "--keep-order", "", "keep_order", FieldKind::Switch, kCompareGroup, "",
         "compare: keep the cards in the order given instead of ranking them by --rank-by", "off",
         Applies::Always},
        {Field::Plot, "--plot", "", "plot", FieldKind::Switch, kRankGroup, "",
         "Draw system price (log scale) against speed after the table: the value frontier, the "
         "shown plans numbered (--ascii: ASCII characters)",
         "off", Applies::Always},
        // --- listing the catalog ----------------------------------------------------------
        {Field::MinMemory, "--min-memory", "", "min_memory", FieldKind::Value, kFilterGroup, "SIZE",
         "Only cards with at least this much memory (48GB, 80GiB)", "", Applies::Always},
        {Field::MinBandwidth, "--min-bandwidth", "", "min_bandwidth", FieldKind::Value,
         kFilterGroup, "RATE", "Only cards with at least this memory bandwidth (1TB/s, 900GB/s)",
         "", Applies::Always},
        {Field::Supports, "--supports", "", "supports", FieldKind::Value, kFilterGroup, "FEATURE",
         "Only cards with this feature (fast-link: NVLink, Infinity Fabric, Xe Link or Gaudi's "
         "RoCE)",
         "", Applies::Always, false, false, supports_choices},
        {Field::Sort, "--sort", "", "sort", FieldKind::Value, kFilterGroup, "KEY", "Sort order",
         "id", Applies::Always, false, false, sort_choices},
        // --- output and data -----------------------------------------------------------
        {Field::MinContext, "--min-context", "", "min_context", FieldKind::Value, kFitGroup,
         "TOKENS", "Only models whose best fitting quantization leaves at least this context",
         "4096 (llama.cpp's --fit-ctx floor); --seq, --prompt or --gen instead set the context",
         Applies::Always},
        {Field::MinSpeed, "--min-speed", "", "min_speed", FieldKind::Value, kFitGroup, "TOK/S",
         "Only models that decode at least this fast (a rung that fits but is slower gives way to "
         "one of fewer bits)",
         "5 tok/s, about reading speed (238 words a minute, Brysbaert 2019, at 3/4 word per "
         "token)",
         Applies::Always},
        {Field::Family, "--family", "", "family", FieldKind::Value, kFitGroup, "NAME",
         "Only models whose name contains this (llama, qwen, gemma, mistral, phi, ...)", "",
         Applies::Always},
        {Field::ModelsDir, "--models-dir", "", "models_dir", FieldKind::Value, kFitGroup, "DIR",
         "fit your own GGUF files: every .gguf in DIR and its folders (LM Studio's models "
         "folder, a downloads folder); for each model, its best file that fits",
         "", Applies::Always, false, true},
        {Field::Format, "--format", "", "format", FieldKind::Value, kOutputGroup, "FORMAT",
         "Output format (html: one self-contained page with the chart, memory bars and table, "
         "for the commands that rank)",
         "table", Applies::Always, true, false, choices_of<kFormats>},
        {Field::Color, "--color", "", "color", FieldKind::Value, kOutputGroup, "WHEN",
         "Colour: auto (a terminal, unless NO_COLOR is set), always or never", "auto",
         Applies::Always, true, false, choices_of<kColorModes>},
        {Field::Ascii, "--ascii", "", "ascii", FieldKind::Switch, kOutputGroup, "",
         "Draw the memory bars and --plot with ASCII characters instead of Unicode", "off",
         Applies::Always, true},
        {Field::Wide, "--wide", "", "wide", FieldKind::Switch, kOutputGroup, "",
         "Print tables whole: no column dropped or cut to fit the terminal (COLUMNS or its "
         "width)",
         "off", Applies::Always, true},
        {Field::Json, "--json", "", "json", FieldKind::Switch, kOutputGroup, "",
         "Print one JSON object (schema 1)", "off", Applies::Always},
        {Field::Verbose, "--verbose", "-v", "verbose", FieldKind::Count, kOutputGroup, "",
         "Log what was loaded and assumed to stderr (-vv for more)", "quiet", Applies::Always},
        {Field::Catalog, "--catalog", "", "catalog", FieldKind::Value, kCatalogGroup, "FILE",
         "Use this GPU catalog instead of the embedded one", "the embedded data/gpus.json",
         Applies::Always, true, true},
        {Field::CatalogMerge, "--catalog-merge", "", "catalog_merge", FieldKind::Value,
         kCatalogGroup, "FILE",
         "Extend or override the catalog with the entries of FILE (your own prices, a new card)",
         "", Applies::Always, false, true},
    };
    return t;
}

}  // namespace

std::span<const FieldSpec> field_specs() {
    return table();
}

}  // namespace gpuadvise
