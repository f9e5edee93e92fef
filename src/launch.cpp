#include "gpuadvise/launch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpuadvise/error.hpp"
#include "gpuadvise/performance.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise {
namespace {

// The estimate's own uncertainty (docs/accuracy.md: memory p90 error about
// 10 %) is the margin an emitted memory fraction keeps over the estimate.
constexpr double kMemoryMargin = 0.10;
// The most of a card an emitted fraction asks for: vLLM's and SGLang's own
// guidance leaves a few per cent for the driver and other processes.
constexpr double kMaxMemoryFraction = 0.95;

std::string model_ref(const Workload& w, std::string_view placeholder) {
    if (!w.model.hf_repo.empty()) return w.model.hf_repo;
    if (w.model.origin == ModelOrigin::Gguf || w.model.origin == ModelOrigin::Safetensors)
        return w.model.name;
    return std::string(placeholder);
}

bool needs_placeholder(const Workload& w) {
    return w.model.hf_repo.empty() && w.model.origin != ModelOrigin::Gguf &&
           w.model.origin != ModelOrigin::Safetensors;
}

// The share of each card the serving engine may take: the estimate plus the
// margin, never more than kMaxMemoryFraction.
double memory_fraction(const Recommendation& rec) {
    const double card = static_cast<double>(rec.gpu->memory_bytes);
    if (card <= 0) return 0.9;
    const double need = static_cast<double>(rec.memory.per_gpu_bytes) * (1.0 + kMemoryMargin);
    return std::min(kMaxMemoryFraction, std::ceil(need / card * 100.0) / 100.0);
}

std::string dtype_name(Precision p) {
    switch (p) {
        case Precision::Bf16:
        case Precision::Fp8:  // FP8 training only; its 16-bit dtype is bf16
            return "bfloat16";
        case Precision::Fp16:
            return "float16";
        case Precision::Fp32:
            return "float32";
    }
    return "auto";
}

// llama.cpp offloads every layer when -ngl exceeds the block count (the
// output layer is the extra one: llama-model.cpp, n_gpu_layers > n_layer);
// an offloaded plan gives its own count.
std::int64_t gpu_layers(const Workload& w, const Recommendation& rec) {
    if (rec.offload) return rec.offload->ngl();
    return w.model.arch.total_layers() + 1;
}

std::string tensor_split(const Recommendation& rec) {
    std::string out;
    for (const Placement& p : rec.placement) {
        if (!out.empty()) out += ',';
        out += std::to_string(p.layers);
    }
    return out;
}

std::string lora_modules(const Workload& w) {
    std::string out;
    for (LoraTarget t : w.lora_targets) {
        if (!out.empty()) out += ", ";
        out += t == LoraTarget::LmHead ? "lm_head" : fmt::format("{}_proj", kLoraTargets.name(t));
    }
    return out;
}

// Each optimizer's name in axolotl's config and as a torch/bitsandbytes class.
struct OptimizerNames {
    Optimizer optimizer;
    std::string_view axolotl, torch;
};
constexpr OptimizerNames kOptimizerNames[] = {
    {Optimizer::AdamW, "adamw_torch_fused", "torch.optim.AdamW"},
    {Optimizer::AdamW8bit, "adamw_bnb_8bit", "bitsandbytes.optim.AdamW8bit"},
    {Optimizer::PagedAdamW8bit, "paged_adamw_8bit", "bitsandbytes.optim.PagedAdamW8bit"},
    {Optimizer::PagedAdamW32bit, "paged_adamw_32bit", "bitsandbytes.optim.PagedAdamW32bit"},
    {Optimizer::Sgd, "sgd", "torch.optim.SGD"},
    {Optimizer::SgdMomentum, "sgd", "torch.optim.SGD"},
    {Optimizer::Adafactor, "adafactor", "torch.optim.Adafactor"},
    {Optimizer::Lion, "lion_8bit", "bitsandbytes.optim.Lion8bit"},
};

const OptimizerNames& optimizer_names(Optimizer o) {
    for (const OptimizerNames& n : kOptimizerNames)
        if (n.optimizer == o) return n;
    return kOptimizerNames[0];
}

std::int64_t per_node(const Recommendation& rec) {
    return rec.count / std::max<std::int64_t>(rec.nodes, 1);
}

// torchrun for one box or, across nodes, with a rendezvous every node joins.
std::string torchrun_prefix(const Recommendation& rec) {
    if (rec.nodes > 1)
        return fmt::format(
            "torchrun --nnodes {} --nproc-per-node {} --rdzv-backend c10d --rdzv-endpoint "
            "$MASTER_ADDR:29500",
            rec.nodes, per_node(rec));
    return fmt::format("torchrun --standalone --nproc-per-node {}", rec.count);
}

bool inference_kind(LaunchKind k) {
    return k == LaunchKind::Vllm || k == LaunchKind::Sglang || k == LaunchKind::TrtllmServe ||
           k == LaunchKind::LlamaServer || k == LaunchKind::Ollama || k == LaunchKind::MlxLm;
}

// The engine each serving launch drives (data/engines.json ids).
std::string_view launch_engine(LaunchKind k) {
    switch (k) {
        case LaunchKind::Vllm:
            return "vllm";
        case LaunchKind::Sglang:
            return "sglang";
        case LaunchKind::TrtllmServe:
            return "tensorrt-llm";
        case LaunchKind::LlamaServer:
            return "llama.cpp";
        case LaunchKind::Ollama:
            return "ollama";
        case LaunchKind::MlxLm:
            return "mlx";
        default:
            return "";
    }
}

LaunchKind auto_kind(const Workload& w, const Recommendation& rec, std::string_view what) {
    if (w.trains()) return w.uses_lora() ? LaunchKind::Axolotl : LaunchKind::Accelerate;
    const std::string_view engine = rec.engine ? rec.engine->id : "";
    if (engine == "lm-studio") return LaunchKind::LlamaServer;  // LM Studio runs llama.cpp
    for (LaunchKind k : {LaunchKind::Vllm, LaunchKind::Sglang, LaunchKind::TrtllmServe,
                         LaunchKind::LlamaServer, LaunchKind::Ollama, LaunchKind::MlxLm})
        if (launch_engine(k) == engine) return k;
    throw InputError(fmt::format(
        "{} auto: the plan's engine {} has no launch template; give --engine vllm, sglang, "
        "tensorrt-llm, llama.cpp, ollama or mlx, or --emit one of those",
        what, engine.empty() ? "(none)" : engine));
}

void serve_vllm(Launch& l, const Workload& w, const Recommendation& rec) {
    l.tool = "vllm serve";
    std::string c = fmt::format("vllm serve {}", model_ref(w, "<model>"));
    if (rec.count > 1 && rec.strategy == Parallel::Pp)
        c += fmt::format(" --pipeline-parallel-size {}", rec.count);
    else if (rec.count > 1)
        c += fmt::format(" --tensor-parallel-size {}", rec.count);
    c += fmt::format(" --max-model-len {} --max-num-seqs {} --gpu-memory-utilization {:.2f}", w.seq,
                     w.batch, memory_fraction(rec));
    c += fmt::format(" --dtype {}", dtype_name(w.precision));
    const QuantFamily f = w.quant.family();
    if (f == QuantFamily::Fp8) c += " --quantization fp8";
    if (f == QuantFamily::Bnb4 || f == QuantFamily::Bnb8) c += " --quantization bitsandbytes";
    if (f == QuantFamily::Awq || f == QuantFamily::Gptq)
        l.notes.emplace_back(
            "vLLM reads the AWQ/GPTQ scheme from the checkpoint's quantization_config (and picks "
            "its Marlin kernels); point it at a quantised repository");
    if (w.kv_dtype == KvDtype::Fp8) c += " --kv-cache-dtype fp8";
    l.command = std::move(c);
}

void serve_sglang(Launch& l, const Workload& w, const Recommendation& rec) {
    l.tool = "sglang.launch_server";
    std::string c =
        fmt::format("python -m sglang.launch_server --model-path {}", model_ref(w, "<model>"));
    if (rec.count > 1 && rec.strategy == Parallel::Pp)
        c += fmt::format(" --pp-size {}", rec.count);
    else if (rec.count > 1)
        c += fmt::format(" --tp-size {}", rec.count);
    c += fmt::format(" --context-length {} --max-running-requests {} --mem-fraction-static {:.2f}",
                     w.seq, w.batch, memory_fraction(rec));
    if (w.quant.family() == QuantFamily::Fp8) c += " --quantization fp8";
    if (w.kv_dtype == KvDtype::Fp8) c += " --kv-cache-dtype fp8_e4m3";
    l.command = std::move(c);
}

void serve_trtllm(Launch& l, const Workload& w, const Recommendation& rec) {
    l.tool = "trtllm-serve";
    std::string c = fmt::format("trtllm-serve {}", model_ref(w, "<model>"));
    if (rec.count > 1 && rec.strategy == Parallel::Pp)
        c += fmt::format(" --pp_size {}", rec.count);
    else if (rec.count > 1)
        c += fmt::format(" --tp_size {}", rec.count);
    // The KV pool is a share of the memory left after the weights: size it
    // to the estimate's cache plus the margin.
    const double kv = static_cast<double>(rec.memory.get(&Components::kv_cache));
    const double left = static_cast<double>(rec.usable_bytes) -
                        (static_cast<double>(rec.memory.per_gpu_bytes) - kv);
    const double share = left > 0 ? std::clamp(kv * (1.0 + kMemoryMargin) / left, 0.05, 0.95) : 0.9;
    c += fmt::format(
        " --max_seq_len {} --max_batch_size {} --kv_cache_free_gpu_memory_fraction {:.2f}", w.seq,
        w.batch, std::ceil(share * 100.0) / 100.0);
    l.command = std::move(c);
}

void serve_llama(Launch& l, const Workload& w, const Recommendation& rec) {
    l.tool = "llama-server";
    // llama-server gives each of its -np slots n_ctx / np tokens, so the
    // context is the per-sequence length times the slots.
    std::string c =
        fmt::format("llama-server -m {} -ngl {} -c {} -np {}", model_ref(w, "<model>.gguf"),
                    gpu_layers(w, rec), w.seq * w.batch, w.batch);
    if (rec.offload && rec.offload->host_expert_layers > 0)
        c += fmt::format(" --n-cpu-moe {}", rec.offload->host_expert_layers);
    if (!rec.placement.empty() && rec.strategy == Parallel::Pp)
        c += fmt::format(" --split-mode layer --tensor-split {}", tensor_split(rec));
    else if (rec.count > 1 && rec.strategy == Parallel::Tp)
        c += " --split-mode row";
    if (w.kv_dtype == KvDtype::Q8_0 || w.kv_dtype == KvDtype::Q4_0) {
        // A quantised V cache needs flash attention in llama.cpp.
        const std::string_view t = kKvDtypes.name(w.kv_dtype);
        c += fmt::format(" -fa on -ctk {} -ctv {}", t, t);
    }
    l.command = std::move(c);
}

void serve_ollama(Launch& l, const Workload& w, const Recommendation& rec) {
    l.tool = "ollama";
    l.config_name = "Modelfile";
    // num_gpu is the number of layers Ollama offloads; num_ctx the context
    // of one request (OLLAMA_NUM_PARALLEL multiplies the cache).
    l.config = fmt::format("FROM {}\nPARAMETER num_ctx {}\nPARAMETER num_gpu {}\n",
                           model_ref(w, "<model>"), w.seq, gpu_layers(w, rec));
    std::string env = fmt::format("OLLAMA_NUM_PARALLEL={}", w.batch);
    if (w.kv_dtype == KvDtype::Q8_0 || w.kv_dtype == KvDtype::Q4_0)
        env += fmt::format(" OLLAMA_FLASH_ATTENTION=1 OLLAMA_KV_CACHE_TYPE={}",
                           kKvDtypes.name(w.kv_dtype));
    l.command = fmt::format(
        "{} ollama serve & ollama create gpuadvise -f Modelfile && ollama run "
        "gpuadvise",
        env);
}

void serve_mlx(Launch& l, const Workload& w, const Recommendation&) {
    l.tool = "mlx_lm.server";
    l.command =
        fmt::format("mlx_lm.server --model {} --max-tokens {}", model_ref(w, "<model>"), w.gen);
}

std::string precision_flag(const Workload& w) {
    switch (w.precision) {
        case Precision::Bf16:
            return "bf16";
        case Precision::Fp16:
            return "fp16";
        case Precision::Fp8:
            return "fp8";  // accelerate's mixed_precision: fp8 (Transformer Engine or torchao)
        case Precision::Fp32:
            return "no";
    }
    return "no";
}

std::string deepspeed_json(const Workload& w, int stage, std::int64_t accumulation) {
    std::string s = fmt::format(
        "{{\n  \"train_micro_batch_size_per_gpu\": {},\n  \"gradient_accumulation_steps\": {},\n",
        w.batch, accumulation);
    s += fmt::format("  \"bf16\": {{\"enabled\": {}}},\n  \"fp16\": {{\"enabled\": {}}},\n",
                     w.precision == Precision::Bf16 || w.precision == Precision::Fp8,
                     w.precision == Precision::Fp16);
    s += fmt::format("  \"zero_optimization\": {{\n    \"stage\": {},\n", stage);
    s += "    \"overlap_comm\": true,\n    \"contiguous_gradients\": true";
    if (stage == 3) s += ",\n    \"stage3_gather_16bit_weights_on_model_save\": true";
    s += "\n  },\n  \"gradient_clipping\": 1.0\n}\n";
    return s;
}

void train_accelerate(Launch& l, const Workload& w, const Recommendation& rec) {
    l.tool = "accelerate launch";
    l.config_name = "accelerate.yaml";
    std::string type = "NO";
    if (rec.count > 1) {
        switch (rec.strategy) {
            case Parallel::Fsdp:
                type = "FSDP";
                break;
            case Parallel::Zero1:
            case Parallel::Zero2:
            case Parallel::Zero3:
                type = "DEEPSPEED";
                break;
            default:
                type = "MULTI_GPU";
        }
    }
    std::string y = fmt::format(
        "compute_environment: LOCAL_MACHINE\ndistributed_type: {}\nnum_machines: 1\n"
        "num_processes: {}\nmixed_precision: {}\n",
        type, rec.count, precision_flag(w));
    if (type == "FSDP")
        y += fmt::format(
            "fsdp_config:\n  fsdp_sharding_strategy: FULL_SHARD\n"
            "  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP\n"
            "  fsdp_state_dict_type: SHARDED_STATE_DICT\n  fsdp_offload_params: false\n"
            "  fsdp_activation_checkpointing: {}\n  fsdp_use_orig_params: true\n",
            w.grad_ckpt);
    if (type == "DEEPSPEED")
        y += fmt::format(
            "deepspeed_config:\n  zero_stage: {}\n  gradient_accumulation_steps: 1\n"
            "  offload_optimizer_device: none\n  offload_param_device: none\n"
            "  zero3_init_flag: {}\n",
            zero_stage(rec.strategy), rec.strategy == Parallel::Zero3);
    l.config = std::move(y);
    l.command = "accelerate launch --config_file accelerate.yaml train.py";
    l.notes.emplace_back(fmt::format(
        "train.py is your training script; give it micro-batch {} per GPU, sequence length {}{}",
        w.batch, w.seq, w.grad_ckpt ? " and gradient checkpointing" : ""));
}

void train_deepspeed(Launch& l, const Workload& w, const Recommendation& rec) {
    l.tool = "deepspeed";
    l.config_name = "ds_config.json";
    l.config = deepspeed_json(w, zero_stage(rec.strategy), rec.micro_batches);
    if (rec.layout.splits_model())
        l.notes.emplace_back(fmt::format(
            "ds_config.json holds the data-parallel part (ZeRO-{}); the {} split of the model "
            "is Megatron-DeepSpeed's --tensor-model-parallel-size and "
            "--pipeline-model-parallel-size (--emit megatron has them)",
            zero_stage(rec.strategy), layout_label(rec.layout)));
    l.command =
        rec.nodes > 1
            ? fmt::format(
                  "deepspeed --num_nodes {} --num_gpus {} --hostfile hostfile train.py "
                  "--deepspeed ds_config.json",
                  rec.nodes, per_node(rec))
            : fmt::format("deepspeed --num_gpus {} train.py --deepspeed ds_config.json", rec.count);
    if (w.precision == Precision::Fp8)
        l.notes.emplace_back(
            "DeepSpeed's config has no FP8 switch: train.py runs the linear layers under "
            "Transformer Engine's te.fp8_autocast (bf16 is the config's dtype)");
}

void train_torchrun(Launch& l, const Workload& w, const Recommendation& rec) {
    l.tool = "torchrun";
    l.command = torchrun_prefix(rec) + " train.py";
    if (rec.strategy == Parallel::Fsdp || rec.strategy == Parallel::Zero3 ||
        rec.strategy == Parallel::Zero2) {
        l.config_name = "fsdp_settings.py";
        const std::string dt = w.precision == Precision::Fp16 ? "torch.float16" : "torch.bfloat16";
        l.config = fmt::format(
            "# FSDP2 (torch.distributed.fsdp.fully_shard) settings for train.py\n"
            "mp_policy = MixedPrecisionPolicy(param_dtype={0}, reduce_dtype={0})\n"
            "for block in model.layers:  # one FSDP unit per decoder layer\n"
            "    fully_shard(block, mp_policy=mp_policy, reshard_after_forward={1})\n"
            "fully_shard(model, mp_policy=mp_policy)\n"
            "activation_checkpointing = {2}\n"
            "optimizer = {3}(model.parameters())\n",
            dt, rec.strategy == Parallel::Zero2 ? "False" : "True", w.grad_ckpt ? "True" : "False",
            optimizer_names(w.optimizer).torch);
        if (w.precision == Precision::Fp8)
            l.config.insert(l.config.find("mp_policy"),
                            "# FP8 matmuls: torchao.float8, before fully_shard\n"
                            "convert_to_float8_training(model, module_filter_fn=lambda m, fqn: "
                            "fqn != \"output\")\n");
    }
}

void train_axolotl(Launch& l, const Workload& w, const Recommendation& rec) {
    l.tool = "axolotl train";
    l.config_name = "gpuadvise.yml";
    std::string y = fmt::format("base_model: {}\n", model_ref(w, "<model>"));
    if (w.uses_lora()) {
        y += fmt::format("adapter: {}\n", w.method == Method::Qlora ? "qlora" : "lora");
        if (w.quant.family() == QuantFamily::Bnb4) y += "load_in_4bit: true\n";
        if (w.quant.family() == QuantFamily::Bnb8) y += "load_in_8bit: true\n";
        y += fmt::format("lora_r: {}\nlora_alpha: {}\nlora_dropout: 0.05\n", w.lora_rank,
                         2 * w.lora_rank);
        y += fmt::format("lora_target_modules: [{}]\n", lora_modules(w));
    }
    y += fmt::format("sequence_len: {}\nmicro_batch_size: {}\ngradient_accumulation_steps: 1\n",
                     w.seq, w.batch);
    y += fmt::format("gradient_checkpointing: {}\n{}: true\nflash_attention: {}\n", w.grad_ckpt,
                     w.precision == Precision::Fp16 ? "fp16" : "bf16", w.flash_attn);
    y += fmt::format("optimizer: {}\n", optimizer_names(w.optimizer).axolotl);
    if (rec.count > 1 && zero_stage(rec.strategy) > 0 && rec.strategy != Parallel::Fsdp)
        y += fmt::format("deepspeed: deepspeed_configs/zero{}.json\n", zero_stage(rec.strategy));
    else if (rec.count > 1 && rec.strategy == Parallel::Fsdp)
        y += "fsdp:\n  - full_shard\n  - auto_wrap\nfsdp_config:\n"
             "  fsdp_transformer_layer_cls_to_wrap: LlamaDecoderLayer\n";
    l.config = std::move(y);
    l.command = "axolotl train gpuadvise.yml";
    l.notes.emplace_back("add your datasets: and output_dir: to gpuadvise.yml");
    if (w.precision == Precision::Fp8)
        l.notes.emplace_back(
            "FP8 is not set here (bf16 is): --emit accelerate writes mixed_precision: fp8");
    if (rec.count > 1 && rec.strategy == Parallel::Fsdp)
        l.notes.emplace_back(
            "fsdp_transformer_layer_cls_to_wrap names the model's decoder layer class");
}

void train_torchtune(Launch& l, const Workload& w, const Recommendation& rec) {
    l.tool = "tune run";
    const bool lora = w.uses_lora();
    const bool one = rec.count == 1;
    const std::string recipe = fmt::format("{}_finetune_{}", lora ? "lora" : "full",
                                           one ? "single_device" : "distributed");
    std::string c = one ? "tune run " : fmt::format("tune run --nproc_per_node {} ", rec.count);
    c += fmt::format("{} --config <model>/{}{} batch_size={} gradient_accumulation_steps=1", recipe,
                     w.method == Method::Qlora ? "qlora" : (lora ? "lora" : "full"),
                     one ? "_single_device" : "", w.batch);
    c += fmt::format(" tokenizer.max_seq_len={} enable_activation_checkpointing={}", w.seq,
                     w.grad_ckpt ? "True" : "False");
    if (lora)
        c += fmt::format(" model.lora_rank={} model.lora_alpha={}", w.lora_rank, 2 * w.lora_rank);
    c += fmt::format(" optimizer._component_={}", optimizer_names(w.optimizer).torch);
    l.command = std::move(c);
    l.notes.emplace_back("<model>/... is the recipe config for your model ('tune ls' lists them)");
    if (w.precision == Precision::Fp8)
        l.notes.emplace_back("the recipe trains in bf16: torchtune's recipes have no FP8 switch");
}

// The plan's sequences per optimizer step over every data-parallel rank.
std::int64_t global_batch(const Workload& w, const Recommendation& rec) {
    if (rec.micro_batch > 0) return rec.layout.dp * rec.micro_batches * rec.micro_batch;
    return w.batch * w.grad_accum * rec.count;
}

// Megatron-LM's pretrain_gpt.py with the plan's layout: tensor, pipeline,
// context and expert parallel sizes (DP is world size / (TP x CP x PP), never
// a flag), sequence parallel with TP, interleaving as layers per virtual
// stage, the distributed optimizer for DDP/ZeRO-1/2, torch FSDP2 for
// fsdp/zero3 (arguments.py, v0.15.3).
void train_megatron(Launch& l, const Workload& w, const Recommendation& rec) {
    l.tool = "pretrain_gpt.py";
    const Architecture& a = w.model.arch;
    const Layout& lay = rec.layout;
    std::string c = torchrun_prefix(rec) + " pretrain_gpt.py";
    c += fmt::format(" --tensor-model-parallel-size {} --pipeline-model-parallel-size {}", lay.tp,
                     lay.pp);
    if (lay.tp > 1) c += " --sequence-parallel";
    if (lay.cp > 1) c += fmt::format(" --context-parallel-size {}", lay.cp);
    if (lay.pp > 1 && lay.vpp > 1)
        c += fmt::format(" --num-layers-per-virtual-pipeline-stage {}",
                         stage_layers(a, lay) / lay.vpp);
    if (a.is_moe())
        c += fmt::format(" --num-experts {} --moe-router-topk {} --expert-model-parallel-size {}",
                         a.experts, a.experts_per_token, lay.ep);
    // An uneven split: the first and last stages take the remainder off the others.
    if (lay.vpp > 1 && a.total_layers() % (lay.pp * lay.vpp) != 0)
        l.notes.emplace_back(fmt::format(
            "the {} layers do not divide into {} equal chunks: Megatron's interleaved schedule "
            "needs --num-layers a multiple of pp x vpp (pad the model or choose --vpp)",
            a.total_layers(), lay.pp * lay.vpp));
    if (lay.vpp == 1 && lay.pp > 2 && a.total_layers() % lay.pp != 0) {
        const std::int64_t inner = a.total_layers() / lay.pp + 1;
        const std::int64_t ends = a.total_layers() - inner * (lay.pp - 2);
        if (ends >= 2)
            c += fmt::format(
                " --decoder-first-pipeline-num-layers {} --decoder-last-pipeline-num-layers {}",
                ends / 2, ends - ends / 2);
    }
    c += fmt::format(
        " --num-layers {} --hidden-size {} --ffn-hidden-size {} --num-attention-heads {}", a.layers,
        a.hidden, a.intermediate, a.heads);
    if (a.kv_heads > 0 && a.kv_heads != a.heads)
        c += fmt::format(" --group-query-attention --num-query-groups {}", a.kv_heads);
    c += fmt::format(" --seq-length {} --max-position-embeddings {}", w.seq,
                     std::max(w.seq, a.max_position));
    c +=
        fmt::format(" --micro-batch-size {} --global-batch-size {}", w.batch, global_batch(w, rec));
    c += w.precision == Precision::Fp16 ? " --fp16" : " --bf16";
    // NeMo's recipes: hybrid (E4M3 forward, E5M2 gradients) with per-tensor
    // current scaling, or MXFP8 on Blackwell (bf16_with_fp8_current_scaling_mixed,
    // bf16_with_mxfp8_mixed).
    if (w.precision == Precision::Fp8)
        c += fmt::format(" --fp8-format hybrid --fp8-recipe {}",
                         fp8_training_recipe(*rec.gpu).value_or("").starts_with("MXFP8")
                             ? "mxfp8"
                             : "tensorwise");
    if (rec.strategy == Parallel::Fsdp || rec.strategy == Parallel::Zero3)
        c += " --use-torch-fsdp2";
    else if (rec.count > 1)
        c += " --use-distributed-optimizer --overlap-grad-reduce";
    if (w.grad_ckpt) c += " --recompute-granularity full --recompute-method uniform";
    l.command = std::move(c);
    l.notes.emplace_back("add --data-path, --tokenizer-type and --train-iters for your run");
}

// The optimizer steps of the job when it has a size.
std::optional<std::int64_t> job_steps(const Workload& w, const Recommendation& rec) {
    const auto tokens = rec.performance.job_tokens;
    const double per_step = static_cast<double>(global_batch(w, rec)) * static_cast<double>(w.seq);
    if (!tokens || !(per_step > 0) || !(*tokens / per_step < 1e15)) return std::nullopt;
    return static_cast<std::int64_t>(std::ceil(*tokens / per_step));
}

// torchtitan's TOML job config (v0.2.2 torchtitan/config/job_config.py; its
// Llama 3 train_configs/*.toml): the layout as data-parallel degrees (FSDP
// shards over every GPU, DDP replicates, ZeRO-2 shards without resharding
// after forward), the batch, checkpointing mode, and torchao's float8 (MXFP8
// on Blackwell) as a model converter for --precision fp8.
void train_torchtitan(Launch& l, const Workload& w, const Recommendation& rec) {
    l.tool = "torchtitan";
    l.config_name = "gpuadvise.toml";
    const Architecture& a = w.model.arch;
    // torchtitan builds its models from a registry of flavors
    // (torchtitan/models/llama3/__init__.py): the Llama 3 sizes map to theirs.
    std::string flavor = "<flavor>";
    const double p = static_cast<double>(w.model.params);
    for (const auto& [name, params] :
         {std::pair<const char*, double>{"8B", 8.03e9}, {"70B", 70.6e9}, {"405B", 405.9e9}})
        if (std::fabs(p / params - 1.0) < 0.03 && a.mlp == MlpKind::Gated) flavor = name;
    const bool fp8 = w.precision == Precision::Fp8;
    const bool mx = fp8 && fp8_training_recipe(*rec.gpu).value_or("").starts_with("MXFP8");
    std::string t =
        fmt::format("[job]\ndescription = \"gpuadvise plan: {} x {}\"\n\n", rec.count, rec.gpu->id);
    t += fmt::format("[model]\nname = \"llama3\"\nflavor = \"{}\"\n", flavor);
    if (fp8) t += fmt::format("converters = [\"quantize.linear.{}\"]\n", mx ? "mx" : "float8");
    const bool sharded =
        rec.count > 1 && (rec.strategy == Parallel::Fsdp || rec.strategy == Parallel::Zero3 ||
                          rec.strategy == Parallel::Zero2);
    t += fmt::format("\n[optimizer]\nname = \"AdamW\"\nimplementation = \"{}\"\n",
                     to_string(w.optimizer_impl));
    // local_batch_size is what one data-parallel rank takes per step (the
    // pipeline splits it into micro-batches).
    t += fmt::format(
        "\n[training]\nlocal_batch_size = {}\nglobal_batch_size = {}\nseq_len = {}\n",
        rec.micro_batch > 0 && rec.layout.pp > 1 ? w.batch * rec.micro_batches : w.batch,
        global_batch(w, rec), w.seq);
    if (const auto steps = job_steps(w, rec)) t += fmt::format("steps = {}\n", *steps);
    t += fmt::format("mixed_precision_param = \"{}\"\n",
                     w.precision == Precision::Fp32 ? "float32" : "bfloat16");
    // torchtitan shards over the data-parallel ranks with FSDP2 (its optimizer
    // state goes with it: ZeRO-1 is FSDP there too) or replicates (DDP).
    const Layout lay = plan_layout(rec);
    const std::int64_t dp = rec.count > 1 ? lay.dp : 1;
    const bool replicated = rec.strategy == Parallel::Ddp || rec.strategy == Parallel::None;
    const std::int64_t shard = replicated ? 1 : dp;
    const std::int64_t replicate = replicated ? dp : 1;
    t += fmt::format(
        "\n[parallelism]\ndata_parallel_replicate_degree = {}\ndata_parallel_shard_degree = {}\n",
        replicate, shard);
    if (rec.strategy == Parallel::Zero2 && sharded) t += "fsdp_reshard_after_forward = \"never\"\n";
    t += fmt::format(
        "tensor_parallel_degree = {}\npipeline_parallel_degree = {}\ncontext_parallel_degree = "
        "{}\n",
        lay.tp, lay.pp, lay.cp);
    if (lay.ep > 1) t += fmt::format("expert_parallel_degree = {}\n", lay.ep);
    if (lay.pp > 1)
        t += fmt::format(
            "pipeline_parallel_schedule = \"{}\"\npipeline_parallel_microbatch_size = {}\n",
            lay.vpp > 1 ? "Interleaved1F1B" : "1F1B", w.batch);
    const std::string_view mode = w.ckpt_mode == CkptMode::None        ? "none"
                                  : w.ckpt_mode == CkptMode::Selective ? "selective"
                                                                       : "full";
    t += fmt::format("\n[activation_checkpoint]\nmode = \"{}\"\n", mode);
    if (w.ckpt_mode == CkptMode::Selective) t += "selective_ac_option = \"op\"\n";
    if (fp8) {
        // torchao's float8 needs torch.compile to fuse its casts (torchtitan docs/float8.md).
        t += "\n[compile]\nenable = true\ncomponents = [\"model\", \"loss\"]\n";
        if (mx)
            t += "\n[quantize.linear.mx]\nrecipe_name = \"mxfp8_cublas\"\nfilter_fqns = "
                 "[\"output\"]\n";
        else
            t += fmt::format(
                "\n[quantize.linear.float8]\nenable_fsdp_float8_all_gather = {0}\n"
                "precompute_float8_dynamic_scale_for_fsdp = {0}\nfilter_fqns = [\"output\"]\n",
                sharded ? "true" : "false");
    }
    l.config = std::move(t);
    l.command = torchrun_prefix(rec) + " -m torchtitan.train --job.config_file gpuadvise.toml";
    l.notes.emplace_back(
        "add [training] dataset and [model] hf_assets_path (the tokenizer) to gpuadvise.toml");
    if (flavor == "<flavor>")
        l.notes.emplace_back(
            "<flavor>: torchtitan builds models from its registry (torchtitan/models/*); name the "
            "model and flavor closest to yours");
    if (w.ckpt_mode == CkptMode::Offload)
        l.notes.emplace_back("torchtitan has no activation offload: the config checkpoints fully");
    if (w.precision == Precision::Fp16)
        l.notes.emplace_back("torchtitan computes in bfloat16 or float32, not float16");
}

// NeMo's Megatron GPT pre-training (examples/nlp/language_modeling/
// megatron_gpt_pretraining.py) with Hydra overrides of its
// conf/megatron_gpt_config.yaml: nodes and devices, the model shape, the
// layout (tensor and pipeline parallel with sequence parallel and
// interleaving, expert parallel; FSDP through model.fsdp, the distributed
// optimizer for data parallel), the batch, checkpointing and FP8.
void train_nemo(Launch& l, const Workload& w, const Recommendation& rec) {
    l.tool = "megatron_gpt_pretraining.py";
    const Architecture& a = w.model.arch;
    std::string c = "python examples/nlp/language_modeling/megatron_gpt_pretraining.py";
    c += fmt::format(" trainer.num_nodes={} trainer.devices={}",
                     std::max<std::int64_t>(rec.nodes, 1), per_node(rec));
    c += fmt::format(" trainer.precision={}", w.precision == Precision::Fp16   ? "16"
                                              : w.precision == Precision::Fp32 ? "32"
                                                                               : "bf16");
    if (const auto steps = job_steps(w, rec)) c += fmt::format(" trainer.max_steps={}", *steps);
    c += fmt::format(" model.micro_batch_size={} model.global_batch_size={}", w.batch,
                     global_batch(w, rec));
    const Layout& lay = rec.layout;
    c += fmt::format(" model.tensor_model_parallel_size={} model.pipeline_model_parallel_size={}",
                     lay.tp, lay.pp);
    if (lay.tp > 1) c += " model.sequence_parallel=True";
    if (lay.pp > 1 && lay.vpp > 1)
        c += fmt::format(" model.virtual_pipeline_model_parallel_size={}", lay.vpp);
    if (lay.ep > 1) c += fmt::format(" model.expert_model_parallel_size={}", lay.ep);
    c += fmt::format(" model.encoder_seq_length={} model.max_position_embeddings={}", w.seq,
                     std::max(w.seq, a.max_position));
    c += fmt::format(
        " model.num_layers={} model.hidden_size={} model.ffn_hidden_size={} "
        "model.num_attention_heads={}",
        a.layers, a.hidden, a.intermediate, a.heads);
    if (a.kv_heads > 0 && a.kv_heads != a.heads)
        c += fmt::format(" model.num_query_groups={}", a.kv_heads);
    if (a.mlp ==
        MlpKind::Gated)  // Llama-style blocks, as conf/megatron_llama_config.yaml sets them
        c += " model.activation=fast-swiglu model.normalization=rmsnorm "
             "model.position_embedding_type=rope model.bias=False";
    c += fmt::format(" model.share_embeddings_and_output_weights={}",
                     a.tied_embeddings ? "True" : "False");
    if (rec.count > 1) {
        if (rec.strategy == Parallel::Fsdp || rec.strategy == Parallel::Zero3)
            c += " model.fsdp=True model.fsdp_sharding_strategy=full";
        else if (rec.strategy == Parallel::Zero2)
            c += " model.fsdp=True model.fsdp_sharding_strategy=grad";
        else
            c += " model.optim.name=distributed_fused_adam";
    }
    if (w.ckpt_mode == CkptMode::Selective)
        c += " model.activations_checkpoint_granularity=selective";
    else if (w.grad_ckpt)
        c +=
            " model.activations_checkpoint_granularity=full "
            "model.activations_checkpoint_method=uniform model.activations_checkpoint_num_layers=1";
    if (w.precision == Precision::Fp8)
        c += " model.fp8=True model.fp8_hybrid=True model.fp8_amax_history_len=1024 "
             "model.fp8_amax_compute_algo=max";
    l.command = std::move(c);
    l.notes.emplace_back(
        "add model.data.data_prefix and the tokenizer (model.tokenizer.*) for your data");
    if (lay.cp > 1)
        l.notes.emplace_back(
            fmt::format("context parallel {0}: megatron_gpt_config.yaml has no key for it; add "
                        "+model.context_parallel_size={0}",
                        lay.cp));
    if (rec.nodes > 1)
        l.notes.emplace_back(fmt::format(
            "run it on each of the {} nodes with one task per GPU (srun --ntasks-per-node {}; "
            "--emit slurm has the sbatch skeleton)",
            rec.nodes, per_node(rec)));
    if (w.precision == Precision::Fp8 &&
        fp8_training_recipe(*rec.gpu).value_or("").starts_with("MXFP8"))
        l.notes.emplace_back(
            "this config runs Transformer Engine's per-tensor FP8; NeMo 2's "
            "bf16_with_mxfp8_mixed recipe runs MXFP8 on Blackwell");
}

// A Slurm batch script that starts the plan's nodes with torchrun.
void train_slurm(Launch& l, const Workload&, const Recommendation& rec) {
    l.tool = "sbatch";
    l.config_name = "gpuadvise.sbatch";
    l.config = fmt::format(
        "#!/bin/bash\n#SBATCH --job-name=gpuadvise\n#SBATCH --nodes={}\n"
        "#SBATCH --ntasks-per-node=1\n#SBATCH --gpus-per-node={}\n#SBATCH --exclusive\n\n"
        "export MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)\n"
        "srun torchrun --nnodes {} --nproc-per-node {} --rdzv-backend c10d "
        "--rdzv-endpoint \"$MASTER_ADDR:29500\" train.py\n",
        rec.nodes, per_node(rec), rec.nodes, per_node(rec));
    l.command = "sbatch gpuadvise.sbatch";
    l.notes.emplace_back(
        "train.py is your training script (or pretrain_gpt.py with --emit megatron's arguments)");
}

}  // namespace

Launch make_launch(const Workload& w, const Recommendation& rec, LaunchKind kind,
                   std::string_view what) {
    if (w.is_fixed())
        throw InputError(fmt::format("{}: a --task requirement has no model to launch", what));
    if (w.is_image())
        throw InputError(fmt::format(
            "{}: the launch templates are for language-model engines; {} runs in diffusers or "
            "PyTorch (drop --emit)",
            what, w.model.name));
    if (kind == LaunchKind::Auto) kind = auto_kind(w, rec, what);
    const std::string_view name = kLaunchKinds.name(kind);
    if (w.trains() && inference_kind(kind))
        throw InputError(fmt::format(
            "{} {} serves a model; for --method {} use accelerate, deepspeed, torchrun, axolotl, "
            "torchtune, megatron, torchtitan, nemo or slurm",
            what, name, to_string(w.method)));
    if (!w.trains() && !inference_kind(kind))
        throw InputError(
            fmt::format("{} {} launches training; for inference use vllm, sglang, trtllm-serve, "
                        "llama-server, ollama or mlx-lm",
                        what, name));
    if ((kind == LaunchKind::Torchtitan || kind == LaunchKind::Nemo) && w.uses_lora())
        throw InputError(fmt::format(
            "{} {} writes a pre-training config (every weight trained); for --method {} use "
            "axolotl, torchtune or accelerate",
            what, name, to_string(w.method)));
    if (inference_kind(kind)) {
        const Engine* engine = find_engine(launch_engine(kind));
        if (engine) {
            const QuantFamily family =
                w.model.origin == ModelOrigin::Gguf ? QuantFamily::Gguf : w.quant.family();
            const EngineFit fit = engine_fit(*engine, *rec.gpu, family);
            if (!fit.runs) throw InputError(fmt::format("{} {}: {}", what, name, fit.reason));
        }
    }
    Launch l;
    l.kind = kind;
    switch (kind) {
        case LaunchKind::Vllm:
            serve_vllm(l, w, rec);
            break;
        case LaunchKind::Sglang:
            serve_sglang(l, w, rec);
            break;
        case LaunchKind::TrtllmServe:
            serve_trtllm(l, w, rec);
            break;
        case LaunchKind::LlamaServer:
            serve_llama(l, w, rec);
            break;
        case LaunchKind::Ollama:
            serve_ollama(l, w, rec);
            break;
        case LaunchKind::MlxLm:
            serve_mlx(l, w, rec);
            break;
        case LaunchKind::Accelerate:
            train_accelerate(l, w, rec);
            break;
        case LaunchKind::Deepspeed:
            train_deepspeed(l, w, rec);
            break;
        case LaunchKind::Torchrun:
            train_torchrun(l, w, rec);
            break;
        case LaunchKind::Axolotl:
            train_axolotl(l, w, rec);
            break;
        case LaunchKind::Torchtune:
            train_torchtune(l, w, rec);
            break;
        case LaunchKind::Megatron:
            train_megatron(l, w, rec);
            break;
        case LaunchKind::Slurm:
            train_slurm(l, w, rec);
            break;
        case LaunchKind::Torchtitan:
            train_torchtitan(l, w, rec);
            break;
        case LaunchKind::Nemo:
            train_nemo(l, w, rec);
            break;
        case LaunchKind::Auto:
            break;
    }
    if (needs_placeholder(w) && (l.command.find("<model>") != std::string::npos ||
                                 l.config.find("<model>") != std::string::npos))
        l.notes.insert(l.notes.begin(),
                       "replace <model> with the model's Hugging Face repository or local path");
    return l;
}

}  // namespace gpuadvise
