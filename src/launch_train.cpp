// Training launches: accelerate and DeepSpeed configs, torchrun, axolotl,
// torchtune, Megatron-LM, torchtitan, NeMo and Slurm, from the plan's layout,
// batch, precision and checkpointing. Every value that came from the user or
// a file goes through quoting.hpp (config_string, render_commands).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpuadvise/error.hpp"
#include "gpuadvise/performance.hpp"
#include "launch_common.hpp"

namespace gpuadvise::launch_detail {
namespace {

// A command's words, one argument each.
struct Args {
    std::vector<Word> words;
    Args& add(std::string_view w) {
        words.push_back({std::string(w)});
        return *this;
    }
    template <typename T>
    Args& flag(std::string_view name, const T& value) {
        add(name);
        return add(fmt::format("{}", value));
    }
};

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

std::string lora_modules(const Workload& w) {
    std::string out;
    for (LoraTarget t : w.lora_targets) {
        if (!out.empty()) out += ", ";
        out += t == LoraTarget::LmHead ? "lm_head" : fmt::format("{}_proj", kLoraTargets.name(t));
    }
    return out;
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

bool mxfp8(const Workload& w, const Recommendation& rec) {
    return w.precision == Precision::Fp8 &&
           fp8_training_recipe(*rec.gpu).value_or("").starts_with("MXFP8");
}

// The plan's sequences per optimizer step over every data-parallel rank.
std::int64_t global_batch(const Workload& w, const Recommendation& rec) {
    if (rec.micro_batch > 0) return rec.layout.dp * rec.micro_batches * rec.micro_batch;
    return w.batch * w.grad_accum * rec.count;
}

// The optimizer steps of the job when it has a size.
std::optional<std::int64_t> job_steps(const Workload& w, const Recommendation& rec) {
    const auto tokens = rec.performance.job_tokens;
    const double per_step = static_cast<double>(global_batch(w, rec)) * static_cast<double>(w.seq);
    if (!tokens || !(per_step > 0) || !(*tokens / per_step < 1e15)) return std::nullopt;
    return static_cast<std::int64_t>(std::ceil(*tokens / per_step));
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
    l.config_format = ConfigFormat::Yaml;
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
    l.commands.push_back(
        {{}, words({"accelerate", "launch", "--config_file", "accelerate.yaml", "train.py"}), ""});
    l.notes.emplace_back(fmt::format(
        "train.py is your training script; give it micro-batch {} per GPU, sequence length {}{}",
        w.batch, w.seq, w.grad_ckpt ? " and gradient checkpointing" : ""));
}

void train_deepspeed(Launch& l, const Workload& w, const Recommendation& rec) {
    l.tool = "deepspeed";
    l.config_name = "ds_config.json";
    l.config_format = ConfigFormat::Json;
    l.config = deepspeed_json(w, zero_stage(rec.strategy), rec.micro_batches);
    if (rec.layout.splits_model())
        l.notes.emplace_back(fmt::format(
            "ds_config.json holds the data-parallel part (ZeRO-{}); the {} split of the model "
            "is Megatron-DeepSpeed's --tensor-model-parallel-size and "
            "--pipeline-model-parallel-size (--emit megatron has them)",
            zero_stage(rec.strategy), layout_label(rec.layout)));
    Args a;
    a.add("deepspeed");
    if (rec.nodes > 1)
        a.flag("--num_nodes", rec.nodes)
            .flag("--num_gpus", per_node(rec))
            .flag("--hostfile", "hostfile")
            .add("train.py");
    else
        a.flag("--num_gpus", rec.count).add("train.py");
    a.flag("--deepspeed", "ds_config.json");
    l.commands.push_back({{}, std::move(a.words), ""});
    if (w.precision == Precision::Fp8)
        l.notes.emplace_back(
            "DeepSpeed's config has no FP8 switch: train.py runs the linear layers under "
            "Transformer Engine's te.fp8_autocast (bf16 is the config's dtype)");
}

void train_torchrun(Launch& l, const Workload& w, const Recommendation& rec) {
    l.tool = "torchrun";
    std::vector<Word> argv = torchrun_prefix(rec);
    append(argv, {"train.py"});
    l.commands.push_back({{}, std::move(argv), ""});
    if (rec.strategy == Parallel::Fsdp || rec.strategy == Parallel::Zero3 ||
        rec.strategy == Parallel::Zero2) {
        l.config_name = "fsdp_settings.py";
        l.config_format = ConfigFormat::Python;
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

// What axolotl's base_model names: the preset's repository, the model's
// folder, or a placeholder.
std::string base_model(const Workload& w, std::string_view what, std::vector<std::string>& notes) {
    if (w.model.origin == ModelOrigin::Gguf)
        throw InputError(fmt::format(
            "{} axolotl: axolotl trains Hugging Face checkpoints, not GGUF files ({}); give the "
            "model's folder with --model-dir or its preset",
            what, w.model.name));
    if (w.model.origin == ModelOrigin::Safetensors)
        return config_string(ConfigFormat::Yaml, w.model.path, what, "axolotl", "the model path");
    if (!w.model.hf_repo.empty())
        return config_string(ConfigFormat::Yaml, w.model.hf_repo, what, "axolotl",
                             "the repository");
    notes.emplace_back("replace <model> with the model's Hugging Face repository or local path");
    return "\"<model>\"";
}

void train_axolotl(Launch& l, const Workload& w, const Recommendation& rec, std::string_view what) {
    l.tool = "axolotl train";
    l.config_name = "gpuadvise.yml";
    l.config_format = ConfigFormat::Yaml;
    std::string y = fmt::format("base_model: {}\n", base_model(w, what, l.notes));
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
    l.commands.push_back({{}, words({"axolotl", "train", "gpuadvise.yml"}), ""});
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
    Args a;
    a.add("tune").add("run");
    if (!one) a.flag("--nproc_per_node", rec.count);
    a.add(fmt::format("{}_finetune_{}", lora ? "lora" : "full",
                      one ? "single_device" : "distributed"));
    a.flag("--config", fmt::format("<model>/{}{}",
                                   w.method == Method::Qlora ? "qlora" : (lora ? "lora" : "full"),
                                   one ? "_single_device" : ""));
    a.add(fmt::format("batch_size={}", w.batch)).add("gradient_accumulation_steps=1");
    a.add(fmt::format("tokenizer.max_seq_len={}", w.seq));
    a.add(fmt::format("enable_activation_checkpointing={}", w.grad_ckpt ? "True" : "False"));
    if (lora)
        a.add(fmt::format("model.lora_rank={}", w.lora_rank))
            .add(fmt::format("model.lora_alpha={}", 2 * w.lora_rank));
    a.add(fmt::format("optimizer._component_={}", optimizer_names(w.optimizer).torch));
    l.commands.push_back({{}, std::move(a.words), ""});
    l.notes.emplace_back("<model>/... is the recipe config for your model ('tune ls' lists them)");
    if (w.precision == Precision::Fp8)
        l.notes.emplace_back("the recipe trains in bf16: torchtune's recipes have no FP8 switch");
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
    Args c{torchrun_prefix(rec)};
    c.add("pretrain_gpt.py");
    c.flag("--tensor-model-parallel-size", lay.tp).flag("--pipeline-model-parallel-size", lay.pp);
    if (lay.tp > 1) c.add("--sequence-parallel");
    if (lay.cp > 1) c.flag("--context-parallel-size", lay.cp);
    if (lay.pp > 1 && lay.vpp > 1)
        c.flag("--num-layers-per-virtual-pipeline-stage", stage_layers(a, lay) / lay.vpp);
    if (a.is_moe())
        c.flag("--num-experts", a.experts)
            .flag("--moe-router-topk", a.experts_per_token)
            .flag("--expert-model-parallel-size", lay.ep);
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
            c.flag("--decoder-first-pipeline-num-layers", ends / 2)
                .flag("--decoder-last-pipeline-num-layers", ends - ends / 2);
    }
    c.flag("--num-layers", a.layers)
        .flag("--hidden-size", a.hidden)
        .flag("--ffn-hidden-size", a.intermediate)
        .flag("--num-attention-heads", a.heads);
    if (a.kv_heads > 0 && a.kv_heads != a.heads)
        c.add("--group-query-attention").flag("--num-query-groups", a.kv_heads);
    c.flag("--seq-length", w.seq)
        .flag("--max-position-embeddings", std::max(w.seq, a.max_position));
    c.flag("--micro-batch-size", w.batch).flag("--global-batch-size", global_batch(w, rec));
    c.add(w.precision == Precision::Fp16 ? "--fp16" : "--bf16");
    // NeMo's recipes: hybrid (E4M3 forward, E5M2 gradients) with per-tensor
    // current scaling, or MXFP8 on Blackwell (bf16_with_fp8_current_scaling_mixed,
    // bf16_with_mxfp8_mixed).
    if (w.precision == Precision::Fp8)
        c.flag("--fp8-format", "hybrid")
            .flag("--fp8-recipe", mxfp8(w, rec) ? "mxfp8" : "tensorwise");
    if (rec.strategy == Parallel::Fsdp || rec.strategy == Parallel::Zero3)
        c.add("--use-torch-fsdp2");
    else if (rec.count > 1)
        c.add("--use-distributed-optimizer").add("--overlap-grad-reduce");
    if (w.grad_ckpt)
        c.flag("--recompute-granularity", "full").flag("--recompute-method", "uniform");
    l.commands.push_back({{}, std::move(c.words), ""});
    l.notes.emplace_back("add --data-path, --tokenizer-type and --train-iters for your run");
}

// torchtitan's TOML job config (v0.2.2 torchtitan/config/job_config.py; its
// Llama 3 train_configs/*.toml): the layout as data-parallel degrees (FSDP
// shards over every GPU, DDP replicates, ZeRO-2 shards without resharding
// after forward), the batch, checkpointing mode, and torchao's float8 (MXFP8
// on Blackwell) as a model converter for --precision fp8.
void train_torchtitan(Launch& l, const Workload& w, const Recommendation& rec,
                      std::string_view what) {
    l.tool = "torchtitan";
    l.config_name = "gpuadvise.toml";
    l.config_format = ConfigFormat::Toml;
    const Architecture& a = w.model.arch;
    // torchtitan builds its models from a registry of flavors
    // (torchtitan/models/llama3/__init__.py): the Llama 3 sizes map to theirs.
    std::string flavor = "<flavor>";
    const double p = static_cast<double>(w.model.params);
    for (const auto& [name, params] :
         {std::pair<const char*, double>{"8B", 8.03e9}, {"70B", 70.6e9}, {"405B", 405.9e9}})
        if (std::fabs(p / params - 1.0) < 0.03 && a.mlp == MlpKind::Gated) flavor = name;
    const bool fp8 = w.precision == Precision::Fp8;
    const bool mx = mxfp8(w, rec);
    // The card's id comes from a catalog file: quoted as a TOML string.
    std::string t =
        fmt::format("[job]\ndescription = {}\n\n",
                    config_string(ConfigFormat::Toml,
                                  fmt::format("gpuadvise plan: {} x {}", rec.count, rec.gpu->id),
                                  what, "torchtitan", "the card's id"));
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
    std::vector<Word> argv = torchrun_prefix(rec);
    append(argv, {"-m", "torchtitan.train", "--job.config_file", "gpuadvise.toml"});
    l.commands.push_back({{}, std::move(argv), ""});
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
// optimizer for data parallel), the batch, checkpointing and FP8. Every
// override is key=value of our own words and numbers.
void train_nemo(Launch& l, const Workload& w, const Recommendation& rec) {
    l.tool = "megatron_gpt_pretraining.py";
    const Architecture& a = w.model.arch;
    Args c;
    c.add("python").add("examples/nlp/language_modeling/megatron_gpt_pretraining.py");
    const auto set = [&](std::string_view key, const auto& value) {
        c.add(fmt::format("{}={}", key, value));
    };
    set("trainer.num_nodes", std::max<std::int64_t>(rec.nodes, 1));
    set("trainer.devices", per_node(rec));
    set("trainer.precision", w.precision == Precision::Fp16   ? "16"
                             : w.precision == Precision::Fp32 ? "32"
                                                              : "bf16");
    if (const auto steps = job_steps(w, rec)) set("trainer.max_steps", *steps);
    set("model.micro_batch_size", w.batch);
    set("model.global_batch_size", global_batch(w, rec));
    const Layout& lay = rec.layout;
    set("model.tensor_model_parallel_size", lay.tp);
    set("model.pipeline_model_parallel_size", lay.pp);
    if (lay.tp > 1) set("model.sequence_parallel", "True");
    if (lay.pp > 1 && lay.vpp > 1) set("model.virtual_pipeline_model_parallel_size", lay.vpp);
    if (lay.ep > 1) set("model.expert_model_parallel_size", lay.ep);
    set("model.encoder_seq_length", w.seq);
    set("model.max_position_embeddings", std::max(w.seq, a.max_position));
    set("model.num_layers", a.layers);
    set("model.hidden_size", a.hidden);
    set("model.ffn_hidden_size", a.intermediate);
    set("model.num_attention_heads", a.heads);
    if (a.kv_heads > 0 && a.kv_heads != a.heads) set("model.num_query_groups", a.kv_heads);
    if (a.mlp ==
        MlpKind::Gated) {  // Llama-style blocks, as conf/megatron_llama_config.yaml sets them
        set("model.activation", "fast-swiglu");
        set("model.normalization", "rmsnorm");
        set("model.position_embedding_type", "rope");
        set("model.bias", "False");
    }
    set("model.share_embeddings_and_output_weights", a.tied_embeddings ? "True" : "False");
    if (rec.count > 1) {
        if (rec.strategy == Parallel::Fsdp || rec.strategy == Parallel::Zero3) {
            set("model.fsdp", "True");
            set("model.fsdp_sharding_strategy", "full");
        } else if (rec.strategy == Parallel::Zero2) {
            set("model.fsdp", "True");
            set("model.fsdp_sharding_strategy", "grad");
        } else {
            set("model.optim.name", "distributed_fused_adam");
        }
    }
    if (w.ckpt_mode == CkptMode::Selective) {
        set("model.activations_checkpoint_granularity", "selective");
    } else if (w.grad_ckpt) {
        set("model.activations_checkpoint_granularity", "full");
        set("model.activations_checkpoint_method", "uniform");
        set("model.activations_checkpoint_num_layers", 1);
    }
    if (w.precision == Precision::Fp8) {
        set("model.fp8", "True");
        set("model.fp8_hybrid", "True");
        set("model.fp8_amax_history_len", 1024);
        set("model.fp8_amax_compute_algo", "max");
    }
    l.commands.push_back({{}, std::move(c.words), ""});
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
    if (mxfp8(w, rec))
        l.notes.emplace_back(
            "this config runs Transformer Engine's per-tensor FP8; NeMo 2's "
            "bf16_with_mxfp8_mixed recipe runs MXFP8 on Blackwell");
}

// A Slurm batch script that starts the plan's nodes with torchrun.
void train_slurm(Launch& l, const Recommendation& rec) {
    l.tool = "sbatch";
    l.config_name = "gpuadvise.sbatch";
    l.config_format = ConfigFormat::Shell;
    l.config = fmt::format(
        "#!/bin/bash\n#SBATCH --job-name=gpuadvise\n#SBATCH --nodes={}\n"
        "#SBATCH --ntasks-per-node=1\n#SBATCH --gpus-per-node={}\n#SBATCH --exclusive\n\n"
        "export MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)\n"
        "srun torchrun --nnodes {} --nproc-per-node {} --rdzv-backend c10d "
        "--rdzv-endpoint \"$MASTER_ADDR:29500\" train.py\n",
        rec.nodes, per_node(rec), rec.nodes, per_node(rec));
    l.commands.push_back({{}, words({"sbatch", "gpuadvise.sbatch"}), ""});
    l.notes.emplace_back(
        "train.py is your training script (or pretrain_gpt.py with --emit megatron's arguments)");
}

}  // namespace

Launch train_launch(const Workload& w, const Recommendation& rec, LaunchKind kind,
                    std::string_view what) {
    if ((kind == LaunchKind::Torchtitan || kind == LaunchKind::Nemo) && w.uses_lora())
        throw InputError(fmt::format(
            "{} {} writes a pre-training config (every weight trained); for --method {} use "
            "axolotl, torchtune or accelerate",
            what, kLaunchKinds.name(kind), to_string(w.method)));
    Launch l;
    switch (kind) {
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
            train_axolotl(l, w, rec, what);
            break;
        case LaunchKind::Torchtune:
            train_torchtune(l, w, rec);
            break;
        case LaunchKind::Megatron:
            train_megatron(l, w, rec);
            break;
        case LaunchKind::Slurm:
            train_slurm(l, rec);
            break;
        case LaunchKind::Torchtitan:
            train_torchtitan(l, w, rec, what);
            break;
        case LaunchKind::Nemo:
            train_nemo(l, w, rec);
            break;
        default:
            break;
    }
    return l;
}

}  // namespace gpuadvise::launch_detail
